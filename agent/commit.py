"""Committing a change: apply edits through the workspace journal, run the edit checks (syntax
guard, diagnostics delta), undo on rejection, and report a unified diff. Every mutating tool
ends here, so they all behave the same."""

from __future__ import annotations

import difflib
from collections.abc import Callable, Collection
from typing import Any

from .result import FileEdit, ToolResult, bounded
from .toolcontext import ToolContext
from .workspace import Applied

__all__ = ["bounded", "commit", "diff_of", "unified_diff"]

MAX_DIFF_CHARS = 20_000  # in the output the model reads
MAX_DATA_DIFF_CHARS = 2_000_000  # in the structured data


def _lines(text: str) -> list[str]:
    """Lines with their "\n" kept; unlike str.splitlines, only "\n" ends a line."""
    parts = [line + "\n" for line in text.split("\n")]
    parts[-1] = parts[-1][:-1]
    return parts if parts[-1] else parts[:-1]


def unified_diff(path: str, before: str | None, after: str | None) -> str:
    """A git-style unified diff of one file ("/dev/null" for a created or deleted file)."""
    a = [] if before is None else _lines(before)
    b = [] if after is None else _lines(after)
    lines = difflib.unified_diff(
        a, b, fromfile="/dev/null" if before is None else f"a/{path}", tofile="/dev/null" if after is None else f"b/{path}"
    )
    out = []
    for line in lines:
        out.append(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n")
    return "".join(out)


def diff_of(applied: Applied) -> str:
    return "".join(unified_diff(p, applied.before.get(p), applied.after.get(p)) for p in applied.paths)


def changed_lines(applied: Applied) -> str:
    """Each changed line once, as it reads now (`path:LINE: text`): what a model needs to see of a
    structural edit such as a rename, at a fraction of a diff's size (the diff stays in `data`)."""
    out: list[str] = []
    for path in applied.paths:
        before = (applied.before.get(path) or "").split("\n")
        after = applied.after.get(path)
        if after is None:
            out.append(f"{path}: deleted")
            continue
        new = after.split("\n")
        matcher = difflib.SequenceMatcher(None, before, new, autojunk=False)
        for tag, _i1, _i2, j1, j2 in matcher.get_opcodes():
            if tag in ("replace", "insert"):
                out.extend(f"{path}:{j + 1}: {new[j].strip()}" for j in range(j1, j2))
            elif tag == "delete":
                out.append(f"{path}:{j1 + 1}: (lines removed before this one)")
    return "\n".join(out) + ("\n" if out else "")


def commit(
    ctx: ToolContext, edits: list[FileEdit], *, operation: str, summary: str, force: bool = False,
    show: Callable[[Applied], str] = diff_of, skip: Collection[str] = (),
) -> ToolResult:
    """Apply `edits` as one journaled operation; run the checks (except those named in `skip`);
    return the result with what changed (`show`: the unified diff by default; the diff is always in
    `data`).
    Workspace errors propagate (the registry turns them into failed results)."""
    applied = ctx.workspace.apply(edits, operation=operation, run_id=ctx.run_id)
    if not applied.entry_id:
        return ToolResult.ok(f"{summary}: nothing to change", files=[], diff="")
    notes: list[str] = []
    data: dict[str, Any] = {"files": applied.paths, "journal_id": applied.entry_id}
    for check in ctx.edit_checks:
        if check.name in skip:
            continue
        try:
            outcome = check.check(ctx, applied)
        except Exception as exc:  # a broken check must not leave the caller thinking nothing changed
            notes.append(f"note: the {check.name} check could not run ({type(exc).__name__}: {exc})")
            continue
        if outcome.data:
            data[check.name] = outcome.data
        if outcome.reject and not force:
            ctx.workspace.undo(applied.entry_id, force=True)
            return ToolResult.fail(
                f"{outcome.reject}\nThe edit was undone; nothing changed. "
                "Fix the edit, or pass force=true to keep it anyway.",
                **{**data, "files": [], "journal_id": None, "rejected_by": check.name},
            )
        if outcome.reject:
            notes.append(f"kept despite {check.name} (force): {outcome.reject}")
        notes.extend(outcome.notes)
    diff = diff_of(applied)
    data["diff"] = bounded(diff, MAX_DATA_DIFF_CHARS)
    out = [summary]
    out.extend(notes)
    if diff:
        out.append(bounded(diff if show is diff_of else show(applied), MAX_DIFF_CHARS))
    return ToolResult(True, "\n".join(out), None, data)
