"""One page of a long references answer: the references from `offset` on, at most `limit` of them,
grouped by file and by the definition enclosing each (`in Registry.describe`; at module level the
module), with each line's text. The page's data is whole; the text a model reads stops at whole
references once it reaches its character budget, and says exactly what it left out (how many, in
which files) and how to get it (the next `offset`, or the CLI's `--json`). Nothing is cut from the
middle of a line or a file."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from .hits import MAX_FILES_NAMED, group_label

Refs = dict[str, list[tuple[int, int, int, int]]]  # rel path -> 0-based (line, col, end_line, end_col)
Where = Callable[[str, int, int], tuple[str, str]]  # (rel, line0, col0) -> (enclosing name, kind)
InFile = Callable[[str], tuple[Callable[[int], str], Callable[[int, int], tuple[str, str]]]]  # rel -> both, bound


@dataclass
class Page:
    # every reference of the page, for data: [{path, groups: [{in, kind, hits: [{line, column, ...}]}]}]
    files: list[dict[str, Any]] = field(default_factory=list)
    text: list[str] = field(default_factory=list)  # what fits the budget
    whole_text: list[str] = field(default_factory=list)  # with `whole`: every reference of the page
    listed: int = 0  # references in `text`
    in_page: int = 0  # references in `files`
    left_text: int = 0  # references of the page not in `text`
    left_files: dict[str, int] = field(default_factory=dict)  # path -> references after the last one listed

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
            named = sorted(self.left_files.items())
            listed = ", ".join(f"{p} ({n})" for p, n in named[:MAX_FILES_NAMED])
            more = f", and {len(named) - MAX_FILES_NAMED} more file(s)" if len(named) > MAX_FILES_NAMED else ""
            parts.append(f"{rest} more reference(s) in {len(named)} file(s) not listed: call again with "
                         f"offset={shown_to}, or run `{call} --json` for all of them; they are in {listed}{more}")
        return "[" + "; ".join(parts) + "]" if parts else None


def page(refs: Refs, line_of: Callable[[str, int], str], where: Where, *, offset: int, limit: int,
         budget: int, whole: bool = False, in_file: InFile | None = None) -> Page:
    """References `offset`..`offset+limit` in file order; `text` holds the first ones whose lines
    (with their file and group headers) fit in `budget` characters. With `whole`, `whole_text` is
    the text of every one, as with an unlimited budget (the same pass: a second one over 1,500
    references costs as much as the first). `in_file(rel)`, when given, is `line_of` and `where`
    bound to one file (Outlines.in_file: the file's lines and outline are looked up once, not
    once per reference)."""
    out = Page()
    seen = 0
    used = 0
    text_full = False
    for rel in sorted(refs):
        sites = refs[rel]
        if seen + len(sites) <= offset:  # the whole file is before the page
            seen += len(sites)
            continue
        if in_file is not None:
            line_at, where_at = in_file(rel)
        else:
            line_at, where_at = partial(line_of, rel), partial(where, rel)
        groups: list[dict[str, Any]] = []
        rows: list[str] = []
        all_rows: list[str] = []
        hits: list[dict[str, Any]] = []
        group_name: str | None = None  # the last group's "in"
        label = ""  # ... and its header line
        shown_group = -1  # the index of the group whose header the text has printed last
        for ln, col, eln, ecol in sites:
            seen += 1
            if seen <= offset:
                continue
            if out.in_page >= limit:
                break
            text = line_at(ln)
            name, kind = where_at(ln, col)
            new_group = not groups or group_name != name
            if new_group:
                hits = []
                groups.append({"in": name, "kind": kind, "hits": hits})
                group_name, label = name, group_label(name, kind)
            hits.append({"line": ln + 1, "column": col + 1, "end_line": eln + 1, "end_column": ecol + 1,
                         "text": text})
            out.in_page += 1
            row = f"    {ln + 1}:{col + 1}  {text}"
            if whole:
                if new_group:
                    all_rows.append(label)
                all_rows.append(row)
            if text_full:
                continue
            header = shown_group != len(groups) - 1
            extra = len(row) + 1 + (0 if rows else len(rel) + 1) + (len(label) + 1 if header else 0)
            if used + extra > budget:
                text_full = True
                continue
            if header:
                rows.append(label)
                shown_group = len(groups) - 1
            rows.append(row)
            used += extra
            out.listed += 1
        if groups:
            out.files.append({"path": rel, "groups": groups})
        if rows:
            out.text.append(rel)
            out.text.extend(rows)
        if all_rows:
            out.whole_text.append(rel)
            out.whole_text.extend(all_rows)
        if out.in_page >= limit:
            break
    out.left_files = left_after(refs, offset + out.listed)
    out.left_text = out.in_page - out.listed
    return out


def whole_page(listed: Page, refs: Refs, offset: int) -> Page:
    """What `page` with an unlimited budget says of `listed`'s page (built with `whole`)."""
    return Page(files=listed.files, text=listed.whole_text, listed=listed.in_page, in_page=listed.in_page,
                left_files=left_after(refs, offset + listed.in_page))


def left_after(refs: Refs, shown_to: int) -> dict[str, int]:
    """The references after the first `shown_to`, per file (a file listed in part counts)."""
    left: dict[str, int] = {}
    count = 0
    for rel in sorted(refs):
        after = max(0, count + len(refs[rel]) - max(shown_to, count))
        if after:
            left[rel] = after
        count += len(refs[rel])
    return left
