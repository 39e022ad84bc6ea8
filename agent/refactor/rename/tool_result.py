"""The `rename_symbol` tool's work: plan (symbol.py), check and turn the plan into the workspace's
edits (refactor/commit.py), then show it (dry run) or commit it through the journal and the edit
checks. The result's `sites`, `reasons` and `unconfirmed` are the plan's, bounded."""

from __future__ import annotations

from typing import Any

from ...commit import MAX_DIFF_CHARS, bounded, changed_lines, unified_diff
from ...result import ToolResult
from ...semantic.target import Target
from ...toolcontext import ToolContext
from ..commit import commit_plan, file_edits
from .symbol import plan_symbol_rename

MAX_SITES_LISTED = 500
MAX_UNCONFIRMED = 30


def rename_symbol(ctx: ToolContext, target: Target, new_name: str, *, dry_run: bool,
                  allow_syntactic: bool, check_diagnostics: bool = True) -> ToolResult:
    plan = plan_symbol_rename(ctx, target, new_name, allow_syntactic=allow_syntactic)
    checked = file_edits(ctx.workspace, plan)
    sites = [s.to_dict() for sites in plan.by_file().values() for s in sites]
    unconfirmed = [{"path": r.location.path, "line": r.location.line, "column": r.location.column}
                   for r in plan.review]
    files = sorted(e.path for e in checked.edits)
    summary = (f"{'would rename' if dry_run else 'renamed'} {plan.old_name} -> {new_name}: {len(plan.sites)} "
               f"site(s) in {len(files)} file(s) [{plan.method}{'' if plan.complete else ', incomplete'}]")
    extra = list(plan.notes)
    if unconfirmed:
        extra.append(f"same name, not renamed ({len(unconfirmed)}; review: dynamic access, a string, or another "
                     "symbol?):")
        extra.extend(f"  {u['path']}:{u['line']}:{u['column']}" for u in unconfirmed[:MAX_UNCONFIRMED])
    data: dict[str, Any] = {
        "old_name": plan.old_name, "new_name": new_name, "target": str(target.location), "method": plan.method,
        "complete": plan.complete, "sites": sites[:MAX_SITES_LISTED], "site_count": len(sites),
        "reasons": plan.reason_counts(), "unconfirmed": unconfirmed[:MAX_UNCONFIRMED],
        "unconfirmed_count": len(unconfirmed), "dry_run": dry_run,
    }
    if dry_run:
        diff = "".join(unified_diff(e.path, checked.before.get(e.path), e.new_text) for e in checked.edits)
        text = "\n".join([summary, *extra, bounded(diff, MAX_DIFF_CHARS)])
        return ToolResult.ok(text, files=files, diff=diff, **data)
    # the model reads each changed line once; the full diff is in data (and `--dry-run` shows it)
    result = commit_plan(ctx, plan, summary="\n".join([summary, *extra]), edits=checked,
                         operation=f"rename_symbol {plan.old_name} -> {new_name}", show=changed_lines,
                         skip=() if check_diagnostics else ("diagnostics",))
    result.data.update(data)
    return result
