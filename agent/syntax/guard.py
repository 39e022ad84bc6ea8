"""The syntax guard: after every mutating tool, re-parse the changed files in supported
languages; if a change adds syntax errors, say where the first new one is (with a few lines of
context) so that `commit` undoes the edit, unless the caller passed force=true.
"""

from __future__ import annotations

import difflib
from typing import TYPE_CHECKING, Any

import tree_sitter as ts

from ..config import SyntaxSettings
from ..result import CheckOutcome
from .languages import encode, error_nodes, language_for, parse_bytes
from .positions import LineMap

if TYPE_CHECKING:
    from ..workspace import Applied

CONTEXT_LINES = 2
MAX_LINE_CHARS = 160


class SyntaxGuard:
    """An `EditCheck`: reject a change that increases a file's count of syntax errors."""

    name = "syntax"

    def __init__(self, settings: SyntaxSettings):
        self.settings = settings

    def check(self, ctx: object, applied: Applied) -> CheckOutcome:
        """`ctx` (the session's ToolContext) is not needed: the settings came in at construction."""
        outcome = CheckOutcome()
        settings = self.settings
        if not settings.guard:
            return outcome
        problems: list[str] = []
        counts: dict[str, Any] = {}
        for path in applied.paths:
            after = applied.after.get(path)
            language = language_for(path)
            if after is None or language is None:
                continue
            source = encode(after)
            if len(source) > settings.max_file_bytes:
                outcome.notes.append(f"syntax check skipped for {path}: larger than {settings.max_file_bytes} bytes")
                continue
            before = applied.before.get(path)
            new_errors = error_nodes(parse_bytes(source, language))
            old_count = 0 if before is None else len(error_nodes(parse_bytes(encode(before), language)))
            counts[path] = {"language": language, "errors_before": old_count, "errors_after": len(new_errors)}
            if len(new_errors) > old_count:
                problems.append(explain(path, before, after, source, new_errors, old_count))
            elif len(new_errors) < old_count:
                outcome.notes.append(f"{path}: syntax errors {old_count} → {len(new_errors)}")
        if counts:
            outcome.data["files"] = counts
        if problems:
            outcome.reject = "\n\n".join(problems)
        return outcome


def _changed_rows(before: str | None, after: str) -> list[tuple[int, int]]:
    """0-based [start, end) row ranges of `after` that differ from `before`."""
    if before is None:
        return [(0, after.count("\n") + 1)]
    matcher = difflib.SequenceMatcher(None, before.split("\n"), after.split("\n"), autojunk=False)
    return [(j1, max(j2, j1 + 1)) for tag, _i1, _i2, j1, j2 in matcher.get_opcodes() if tag != "equal"]


def _first_new(errors: list[ts.Node], changed: list[tuple[int, int]]) -> ts.Node:
    for node in errors:
        first, last = node.start_point[0], node.end_point[0]
        if any(first < end and last >= start for start, end in changed):
            return node
    return errors[0]


def describe(node: ts.Node) -> str:
    if node.is_missing:
        return f"missing {node.type!r}"
    text = (node.text or b"").decode("utf-8", "replace").strip()
    first = text.split("\n", 1)[0]
    if not first:
        return "unexpected end of input"
    shown = first if len(first) <= 40 else first[:40] + "…"
    return f"unexpected {shown!r}"


def _innermost(node: ts.Node) -> ts.Node:
    """Inside a large ERROR region, the first nested ERROR or MISSING node: a sharper position."""
    for child in node.children:
        if child.is_missing or child.is_error:
            return _innermost(child)
        if child.has_error:
            return _innermost(child)
    return node


def explain(path: str, before: str | None, after: str, source: bytes, errors: list[ts.Node], old_count: int) -> str:
    """Where the first new syntax error is, with numbered context lines and a caret."""
    region = _first_new(errors, _changed_rows(before, after))
    node = _innermost(region)
    lines_map = LineMap(source)
    row, byte_col = node.start_point
    col = lines_map.char_column(row, byte_col)
    lines = after.split("\n")
    out = [f"syntax check: {path}: the edit adds syntax errors ({old_count} before, {len(errors)} after).",
           f"First new error at line {row + 1}, column {col + 1}: {describe(node)}"]
    if region.start_point != region.end_point and (region.start_byte, region.end_byte) != (node.start_byte, node.end_byte):
        (r1, c1), (r2, c2) = region.start_point, region.end_point
        out[-1] += (f" (the unparsable region is {r1 + 1}:{lines_map.char_column(r1, c1) + 1}"
                    f"-{r2 + 1}:{lines_map.char_column(r2, c2) + 1})")
    first, last = max(0, row - CONTEXT_LINES), min(len(lines) - 1, row + CONTEXT_LINES)
    width = len(str(last + 1))
    for i in range(first, last + 1):
        text = lines[i] if len(lines[i]) <= MAX_LINE_CHARS else lines[i][:MAX_LINE_CHARS] + "…"
        out.append(f"{'>' if i == row else ' '} {i + 1:>{width}} | {text}")
        if i == row and col <= MAX_LINE_CHARS:
            out.append(f"  {' ' * width} | {' ' * col}^")
    return "\n".join(out)
