"""One page of a long references answer: the references from `offset` on, at most `limit` of them,
with each line's text. The page's data is whole; the text a model reads stops at whole references
once it reaches its character budget, and says exactly what it left out and how to get it (the
next `offset`, or the CLI's `--json`). Nothing is cut from the middle of a line or a file."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

Refs = dict[str, list[tuple[int, int, int, int]]]  # rel path -> 0-based (line, col, end_line, end_col)


@dataclass
class Page:
    files: list[dict[str, Any]] = field(default_factory=list)  # every reference of the page, for data
    text: list[str] = field(default_factory=list)  # what fits the budget
    listed: int = 0  # references in `text`
    in_page: int = 0  # references in `files`
    left_text: int = 0  # references of the page not in `text`
    left_files: int = 0  # files those are in

    def note(self, total: int, offset: int, call: str) -> str | None:
        """What the text leaves out, and how to get it; None when the text is the whole answer."""
        shown_to = offset + self.listed
        if offset == 0 and shown_to >= total:
            return None
        rest = total - shown_to
        parts = []
        if offset:
            parts.append(f"references 1-{offset} were skipped (offset={offset})")
        if rest:
            parts.append(f"{rest} more reference(s) in {self.left_files} file(s) not listed: "
                         f"call again with offset={shown_to}, or run `{call} --json` for all of them")
        return "[" + "; ".join(parts) + "]" if parts else None


def page(refs: Refs, line_of: Callable[[str, int], str], *, offset: int, limit: int, budget: int) -> Page:
    """References `offset`..`offset+limit` in file order; `text` holds the first ones whose lines
    fit in `budget` characters."""
    out = Page()
    seen = 0
    used = 0
    text_full = False
    for rel in sorted(refs):
        entries: list[dict[str, Any]] = []
        rows: list[str] = []
        for ln, col, eln, ecol in refs[rel]:
            seen += 1
            if seen <= offset:
                continue
            if out.in_page >= limit:
                break
            text = line_of(rel, ln)
            entries.append({"line": ln + 1, "column": col + 1, "end_line": eln + 1, "end_column": ecol + 1,
                            "text": text})
            out.in_page += 1
            row = f"  {ln + 1}:{col + 1}  {text}"
            extra = len(row) + 1 + (0 if rows else len(rel) + 1)
            if not text_full and used + extra <= budget:
                rows.append(row)
                used += extra
                out.listed += 1
            else:
                text_full = True
        if entries:
            out.files.append({"path": rel, "references": entries})
        if rows:
            out.text.append(rel)
            out.text.extend(rows)
        if out.in_page >= limit:
            break
    # the files holding a reference after the last one listed (a file listed in part counts)
    shown_to = offset + out.listed
    files_left: set[str] = set()
    count = 0
    for rel in sorted(refs):
        count += len(refs[rel])
        if count > shown_to:
            files_left.add(rel)
    out.left_text = out.in_page - out.listed
    out.left_files = len(files_left)
    return out
