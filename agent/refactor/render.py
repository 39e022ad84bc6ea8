"""An EditPlan as text for a person or a model: a summary by reason, each site with its reason and
its line, the file operations, the review list and notes. Bounded."""

from __future__ import annotations

from ..errors import CodeagentError
from ..workspace import Workspace
from .plan import EditPlan

MAX_SITES_SHOWN = 200


def render_plan(plan: EditPlan, ws: Workspace, *, max_sites: int = MAX_SITES_SHOWN) -> str:
    by_file = plan.by_file()
    counts = ", ".join(f"{reason} {n}" for reason, n in sorted(plan.reason_counts().items()))
    out = [f"{plan.operation} {plan.old_name} -> {plan.new_name}: {len(plan.sites)} site(s) in {len(by_file)} "
           "file(s)" + (f" ({counts})" if counts else "")]
    shown = 0
    for path, sites in by_file.items():
        out.append(f"  {path}")
        lines = _lines(ws, path)
        for site in sites:
            if shown >= max_sites:
                break
            shown += 1
            src = lines[site.line - 1].strip() if site.line - 1 < len(lines) else ""
            out.append(f"    {site.line}:{site.column} [{site.reason}] {src[:120]}")
    if shown < len(plan.sites):
        out.append(f"  ... {len(plan.sites) - shown} more site(s) not shown")
    for op in plan.file_ops:
        target = f" -> {_shown(ws, op.new_path)}" if op.new_path is not None else ""
        out.append(f"  file {op.kind}: {_shown(ws, op.path)}{target}")
    if plan.review_total:
        out.append(f"review ({plan.review_total} occurrence(s) of {plan.old_name!r} no rule confirmed; not changed):")
        for r in plan.review:
            out.append(f"  {r.location} [{r.kind}] {r.line_text[:120]}")
        if plan.review_total > len(plan.review):
            out.append(f"  ... {plan.review_total - len(plan.review)} more not shown")
    for conflict in plan.conflicts:
        out.append(f"conflict: {conflict}")
    for note in plan.notes:
        out.append(f"note: {note}")
    return "\n".join(out)


def _lines(ws: Workspace, path: str) -> list[str]:
    try:
        return ws.read(path).text.split("\n")
    except (CodeagentError, OSError):
        return []


def _shown(ws: Workspace, path: object) -> str:
    try:
        return ws.rel(str(path))
    except (CodeagentError, ValueError):
        return str(path)
