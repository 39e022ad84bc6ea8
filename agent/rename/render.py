"""A rename plan as text for a person or a model: a summary by reason, each site with its reason,
the review list and notes. Bounded."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from .model import RenamePlan

MAX_SITES_SHOWN = 200


def render_plan(plan: RenamePlan, rel: Callable[[Path], str], *, max_sites: int = MAX_SITES_SHOWN) -> str:
    by_file = plan.by_file()
    counts = ", ".join(f"{reason} {n}" for reason, n in sorted(plan.reason_counts().items()))
    out = [f"rename {plan.old_name} -> {plan.new_name}: {len(plan.edits)} site(s) in {len(by_file)} file(s)"
           + (f" ({counts})" if counts else "")]
    texts: dict[Path, list[str]] = {}
    shown = 0
    for path, edits in by_file.items():
        out.append(f"  {rel(path)}")
        for e in edits:
            if shown >= max_sites:
                break
            shown += 1
            lines = texts.get(path)
            if lines is None:
                try:
                    lines = texts[path] = path.read_text(encoding="utf-8", errors="replace").split("\n")
                except OSError:
                    lines = texts[path] = []
            line = e.range.start.line
            src = lines[line].strip() if line < len(lines) else ""
            out.append(f"    {line + 1}:{e.range.start.character + 1} [{e.reason}] {src[:120]}")
    if shown < len(plan.edits):
        out.append(f"  ... {len(plan.edits) - shown} more site(s) not shown")
    for op in plan.file_ops:
        target = f" -> {rel(op.new_path)}" if op.new_path is not None else ""
        out.append(f"  file {op.kind}: {rel(op.path)}{target}")
    if plan.review_total:
        out.append(f"review ({plan.review_total} occurrence(s) of {plan.old_name!r} no rule confirmed; not changed):")
        for r in plan.review:
            out.append(f"  {rel(r.path)}:{r.line + 1}:{r.character + 1} [{r.kind}] {r.line_text[:120]}")
        if plan.review_total > len(plan.review):
            out.append(f"  ... {plan.review_total - len(plan.review)} more not shown")
    for note in plan.notes:
        out.append(f"note: {note}")
    return "\n".join(out)
