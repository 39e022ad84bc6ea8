"""The `move_symbol` tool's work: plan the move (python.py; TypeScript: typescript.py), check the
plan against the files and show it (dry run) or commit it as one journaled, undoable operation
with the edit checks (syntax guard, diagnostics delta)."""

from __future__ import annotations

from typing import Any

from ...commit import MAX_DIFF_CHARS, bounded, changed_lines, unified_diff
from ...errors import ToolFailure
from ...result import ToolResult
from ...semantic.target import Target
from ...toolcontext import ToolContext
from ..commit import commit_plan, file_edits
from ..plan import EditPlan
from .pyblock import MoveRefused
from .python import plan_python_move
from .typescript import plan_typescript_move

MAX_SITES_LISTED = 500
MAX_REVIEW_LISTED = 30


def plan_move(ctx: ToolContext, target: Target, dest: str, *, keep_alias: bool = False) -> EditPlan:
    try:
        dest_rel = ctx.workspace.rel(ctx.workspace.root / dest)
    except Exception as exc:  # outside the workspace, or a path the workspace refuses
        raise ToolFailure(f"DEST {dest!r}: {exc}") from exc
    if target.language not in ("python", "typescript", "tsx"):
        raise ToolFailure(f"move supports Python and TypeScript files; {target.path} is {target.language}")
    planner = plan_python_move if target.language == "python" else plan_typescript_move
    try:
        return planner(ctx.workspace, target.path, target.pos.line + 1, target.name, dest_rel,
                                keep_alias=keep_alias)
    except MoveRefused as exc:
        raise ToolFailure(f"{exc}; nothing was written") from exc


def move_symbol(ctx: ToolContext, target: Target, dest: str, *, dry_run: bool, keep_alias: bool = False,
                check_diagnostics: bool = True) -> ToolResult:
    plan = plan_move(ctx, target, dest, keep_alias=keep_alias)
    checked = file_edits(ctx.workspace, plan)
    files = sorted(e.path for e in checked.edits)
    sites = [s.to_dict() for sites in plan.by_file().values() for s in sites]
    review = [r.to_dict() for r in plan.review]
    summary = (f"{'would move' if dry_run else 'moved'} {plan.old_name} -> {plan.new_name}: {len(plan.sites)} "
               f"edit(s) in {len(files)} file(s)")
    extra = list(plan.notes)
    if review:
        extra.append(f"mentions in comments and strings, not rewritten ({plan.review_total}; review):")
        extra.extend(f"  {r['path']}:{r['line']}:{r['column']}: {r['text']}" for r in review[:MAX_REVIEW_LISTED])
    data: dict[str, Any] = {
        "name": target.name, "old_name": plan.old_name, "new_name": plan.new_name, "target": str(target.location),
        "dest": dest, "method": plan.method, "sites": sites[:MAX_SITES_LISTED], "site_count": len(sites),
        "reasons": plan.reason_counts(), "created": [str(ctx.workspace.rel(op.path)) for op in plan.file_ops],
        "review": review[:MAX_REVIEW_LISTED], "review_count": plan.review_total, "notes": list(plan.notes),
        "dry_run": dry_run,
    }
    if dry_run:
        diff = "".join(unified_diff(e.path, checked.before.get(e.path), e.new_text) for e in checked.edits)
        return ToolResult.ok("\n".join([summary, *extra, bounded(diff, MAX_DIFF_CHARS)]), files=files, diff=diff,
                             **data)
    result = commit_plan(ctx, plan, summary="\n".join([summary, *extra]), edits=checked,
                         operation=f"move_symbol {plan.old_name} -> {plan.new_name}", show=changed_lines,
                         skip=() if check_diagnostics else ("diagnostics",))
    result.data.update(data)
    return result
