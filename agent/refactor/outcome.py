"""The tool result of a structural refactoring (change signature, safe delete): a plan with
conflicts is refused as a whole, listing every conflict (nothing is written); otherwise the diff
(dry run) or one journaled commit through the edit checks (syntax guard, diagnostics delta)."""

from __future__ import annotations

from typing import Any

from ..commit import MAX_DIFF_CHARS, bounded, changed_lines, unified_diff
from ..result import ToolResult
from ..toolcontext import ToolContext
from .commit import commit_plan, file_edits
from .plan import EditPlan

MAX_LISTED = 200


def plan_data(plan: EditPlan) -> dict[str, Any]:
    sites = [s.to_dict(new_text=True) for sites in plan.by_file().values() for s in sites]
    return {"operation": plan.operation, "name": plan.old_name, "target": str(plan.target) if plan.target else None,
            "sites": sites[:MAX_LISTED], "site_count": len(sites), "reasons": plan.reason_counts(),
            "conflicts": plan.conflicts[:MAX_LISTED], "conflict_count": len(plan.conflicts),
            "review": [r.to_dict() for r in plan.review[:MAX_LISTED]], "review_count": plan.review_total,
            "notes": list(plan.notes)}


def refused(plan: EditPlan, what: str, extra: dict[str, Any] | None = None) -> ToolResult:
    shown = plan.conflicts[:MAX_LISTED]
    more = [f"... {len(plan.conflicts) - len(shown)} more"] if len(plan.conflicts) > len(shown) else []
    lines = [f"{what} was refused ({len(plan.conflicts)} reason(s)); nothing was changed:",
             *(f"  {c}" for c in shown), *more]
    return ToolResult.fail("\n".join(lines), refused=True, **plan_data(plan), **(extra or {}))


def finish(ctx: ToolContext, plan: EditPlan, *, summary: str, operation: str, dry_run: bool,
           check_diagnostics: bool = True, extra: dict[str, Any] | None = None) -> ToolResult:
    """Show (dry run) or commit a plan without conflicts (see the module)."""
    checked = file_edits(ctx.workspace, plan)
    files = sorted(e.path for e in checked.edits)
    data = {**plan_data(plan), "files": files, "dry_run": dry_run, **(extra or {})}
    notes = list(plan.notes)
    if plan.review:
        notes.append(f"same name in code, not confirmed as this symbol ({plan.review_total}; review):")
        notes.extend(f"  {r.location} {r.line_text[:100]}" for r in plan.review[:30])
    head = "\n".join([summary, *notes])
    if dry_run:
        diff = "".join(unified_diff(e.path, checked.before.get(e.path), e.new_text) for e in checked.edits)
        return ToolResult.ok("\n".join([head, bounded(diff, MAX_DIFF_CHARS)]), diff=diff, **data)
    result = commit_plan(ctx, plan, summary=head, edits=checked, operation=operation, show=changed_lines,
                         skip=() if check_diagnostics else ("diagnostics",))
    result.data.update({k: v for k, v in data.items() if k != "files" or "files" not in result.data})
    return result
