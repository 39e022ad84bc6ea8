"""Bounding what a model reads of a refactoring without cutting anything silently: whole files of a
diff, whole lines of a changed-lines listing, until the budget is spent; then one line naming what
was left out and where the rest is. Never a cut from the middle of a file or a line."""

from __future__ import annotations

from collections.abc import Sequence


def whole_files(diffs: Sequence[tuple[str, str]], budget: int, *, rest: str) -> tuple[str, bool]:
    """(the diffs of the first files that fit in `budget` characters + a note naming the others,
    whether any was left out). A single file larger than the budget is shown by whole lines."""
    out: list[str] = []
    used = 0
    left: list[str] = []
    left_lines = 0
    for path, diff in diffs:
        if left or used + len(diff) > budget:
            if not out and not left:  # the first file alone is too big: its first whole lines
                shown, cut = whole_lines(diff.splitlines(keepends=True), budget)
                out.append(shown)
                used += len(shown)
                left_lines += cut
                left.append(f"{path} (in part)")
                continue
            left.append(path)
            left_lines += diff.count("\n")
            continue
        out.append(diff)
        used += len(diff)
    if not left:
        return "".join(out), False
    names = ", ".join(left[:10]) + (f" and {len(left) - 10} more" if len(left) > 10 else "")
    note = f"[diff not shown for {len(left)} file(s) ({left_lines} diff line(s)): {names}; {rest}]\n"
    return "".join(out) + note, True


def whole_lines(lines: Sequence[str], budget: int) -> tuple[str, int]:
    """(the first lines that fit in `budget` characters, how many lines were left out)."""
    used = 0
    for i, line in enumerate(lines):
        if used + len(line) > budget:
            return "".join(lines[:i]), len(lines) - i
        used += len(line)
    return "".join(lines), 0


def changed_lines_shown(text: str, budget: int, *, rest: str) -> tuple[str, bool]:
    """A `path:LINE: text` listing cut at whole lines, saying how many lines in how many files were
    left out."""
    lines = text.splitlines(keepends=True)
    shown, cut = whole_lines(lines, budget)
    if not cut:
        return text, False
    files = {line.split(":", 1)[0] for line in lines[len(lines) - cut:]}
    return shown + f"[{cut} more changed line(s) in {len(files)} file(s) not shown; {rest}]\n", True
