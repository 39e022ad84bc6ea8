"""Committing a change: apply edits through the workspace journal, run the edit checks (syntax
guard, diagnostics delta), undo on rejection, and report a unified diff. Every mutating tool
ends here, so they all behave the same."""

from __future__ import annotations

import difflib

from .result import FileEdit, ToolResult
from .toolcontext import ToolContext
from .workspace import Applied

MAX_DIFF_CHARS = 20_000


def unified_diff(path: str, before: str | None, after: str | None) -> str:
    a = [] if before is None else before.splitlines(keepends=True)
    b = [] if after is None else after.splitlines(keepends=True)
    lines = difflib.unified_diff(
        a, b, fromfile="/dev/null" if before is None else f"a/{path}", tofile="/dev/null" if after is None else f"b/{path}"
    )
    out = []
    for line in lines:
        out.append(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n")
    return "".join(out)


def diff_of(applied: Applied) -> str:
    return "".join(unified_diff(p, applied.before.get(p), applied.after.get(p)) for p in applied.paths)


def bounded(text: str, limit: int, *, what: str = "characters") -> str:
    """Head and tail of `text`, saying how much was cut from the middle."""
    if len(text) <= limit:
        return text
    head = text[: limit * 2 // 3]
    tail = text[-(limit // 3):]
    cut = len(text) - len(head) - len(tail)
    return f"{head}\n[... {cut} {what} cut ...]\n{tail}"


def commit(
    ctx: ToolContext, edits: list[FileEdit], *, operation: str, summary: str, force: bool = False
) -> ToolResult:
    """Apply `edits` as one journaled operation; run the checks; return the result with a diff.
    Workspace errors propagate (the registry turns them into failed results)."""
    applied = ctx.workspace.apply(edits, operation=operation, run_id=ctx.run_id)
    notes: list[str] = []
    data: dict[str, object] = {"files": applied.paths, "journal_id": applied.entry_id}
    for check in ctx.edit_checks:
        outcome = check.check(ctx, applied)
        if outcome.data:
            data[check.name] = outcome.data
        if outcome.reject and not force:
            ctx.workspace.undo(applied.entry_id, force=True)
            return ToolResult.fail(
                f"{outcome.reject}\nThe edit was undone; nothing changed. Fix the edit, or pass force=true to keep it anyway.",
                data={**data, "files": [], "rejected_by": check.name},
            )
        if outcome.reject:
            notes.append(f"kept despite {check.name} (force): {outcome.reject}")
        notes.extend(outcome.notes)
    diff = diff_of(applied)
    data["diff"] = diff
    out = [summary]
    out.extend(notes)
    if diff:
        out.append(bounded(diff, MAX_DIFF_CHARS))
    return ToolResult(True, "\n".join(out), None, data)
