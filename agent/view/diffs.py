"""Diffs as the pages draw them: a unified diff (from a tool result or rebuilt from the journal)
parsed with `unidiff` into rows, each side syntax-highlighted with Pygments for the file's
language, ready for the unified and the side-by-side layouts; rename sites carry their reasons.

Reads the journal's entries and the workspace's current files (to know what an operation wrote);
writes nothing."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from markupsafe import Markup, escape
from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexer import Lexer
from pygments.lexers import TextLexer, get_lexer_for_filename
from pygments.util import ClassNotFound
from unidiff import PatchSet
from unidiff.errors import UnidiffParseError

from ..commit import unified_diff
from ..errors import CodeagentError
from ..journal import JournalEntry
from ..result import content_hash
from ..workspace import Workspace

MAX_DIFF_LINES = 3_000  # rows drawn per diff; the count of the rest is said
MAX_HIGHLIGHT_CHARS = 400_000  # past this a side is drawn plain (Pygments is linear but not free)
_FORMATTER = HtmlFormatter(nowrap=True, classprefix="")


@dataclass(slots=True)
class Row:
    kind: str  # "ctx", "add", "del"
    old_no: int | None
    new_no: int | None
    html: Markup
    reasons: list[str] = field(default_factory=list)


@dataclass(slots=True)
class Hunk:
    header: str
    rows: list[Row]

    def pairs(self) -> list[tuple[Row | None, Row | None]]:
        """Side by side: context on both sides, a run of removed lines beside the added ones."""
        out: list[tuple[Row | None, Row | None]] = []
        dels: list[Row] = []
        adds: list[Row] = []

        def flush() -> None:
            for i in range(max(len(dels), len(adds))):
                out.append((dels[i] if i < len(dels) else None, adds[i] if i < len(adds) else None))
            dels.clear()
            adds.clear()

        for row in self.rows:
            if row.kind == "del":
                if adds:
                    flush()
                dels.append(row)
            elif row.kind == "add":
                adds.append(row)
            else:
                flush()
                out.append((row, row))
        flush()
        return out


@dataclass(slots=True)
class FileDiff:
    path: str
    status: str  # "modified", "added", "deleted"
    hunks: list[Hunk]
    added: int
    removed: int


@dataclass(slots=True)
class Diff:
    files: list[FileDiff]
    cut: int = 0  # rows not drawn
    raw: str = ""
    error: str = ""  # the text could not be parsed as a diff: shown as text instead

    @property
    def empty(self) -> bool:
        return not self.files and not self.error


def css() -> str:
    """The Pygments colours, scoped under .code (served as /static/pygments.css)."""
    return HtmlFormatter(style="friendly", classprefix="").get_style_defs(".code") + "\n"


def _lexer(path: str) -> Lexer:
    try:
        return get_lexer_for_filename(path, stripnl=False, ensurenl=False)
    except ClassNotFound:
        return TextLexer(stripnl=False, ensurenl=False)


def _highlight(lines: list[str], lexer: Lexer) -> list[Markup]:
    text = "\n".join(lines)
    if len(text) > MAX_HIGHLIGHT_CHARS:
        return [escape(line) for line in lines]
    out = highlight(text + "\n", lexer, _FORMATTER).split("\n")
    if len(out) < len(lines):  # never expected; fall back rather than misalign
        return [escape(line) for line in lines]
    return [Markup(line) for line in out[:len(lines)]]  # noqa: S704 (Pygments escapes the source)


def parse(text: str, sites: list[dict[str, Any]] | None = None) -> Diff:
    """A unified diff → rows to draw. `sites` (rename sites: path, line, reason) mark the removed
    lines they are on, so each change says why it was made."""
    if not text.strip():
        return Diff([], raw=text)
    try:
        patch = PatchSet(text.splitlines(keepends=True))
    except UnidiffParseError as exc:
        return Diff([], raw=text, error=f"not a unified diff ({exc})")
    reasons: dict[tuple[str, int], list[str]] = {}
    for site in sites or []:
        if isinstance(site, dict) and isinstance(site.get("line"), int):
            reasons.setdefault((str(site.get("path")), site["line"]), []).append(str(site.get("reason") or ""))
    budget = MAX_DIFF_LINES
    cut = 0
    files: list[FileDiff] = []
    for pf in patch:
        path = (pf.path or "").removeprefix("a/").removeprefix("b/")
        lexer = _lexer(path)
        status = "added" if pf.is_added_file else "deleted" if pf.is_removed_file else "modified"
        hunks: list[Hunk] = []
        for h in pf:
            lines = list(h)
            if budget <= 0:
                cut += len(lines)
                continue
            taken, budget = lines[:budget], budget - len(lines)
            cut += len(lines) - len(taken)
            old_side = [ln.value.rstrip("\n") for ln in taken if not ln.is_added]
            new_side = [ln.value.rstrip("\n") for ln in taken if not ln.is_removed]
            old_html, new_html = iter(_highlight(old_side, lexer)), iter(_highlight(new_side, lexer))
            rows: list[Row] = []
            for ln in taken:
                if ln.is_added:
                    rows.append(Row("add", None, ln.target_line_no, next(new_html)))
                elif ln.is_removed:
                    why = reasons.get((path, ln.source_line_no or 0), [])
                    rows.append(Row("del", ln.source_line_no, None, next(old_html), sorted(set(why))))
                else:
                    next(new_html)
                    rows.append(Row("ctx", ln.source_line_no, ln.target_line_no, next(old_html)))
            header = f"@@ -{h.source_start},{h.source_length} +{h.target_start},{h.target_length} @@ {h.section_header}"
            hunks.append(Hunk(header.rstrip(), rows))
        files.append(FileDiff(path, status, hunks, pf.added, pf.removed))
    return Diff(files, cut=cut, raw=text)


# ----------------------------------------------------------------------------- from the journal
def entry_diff(ws: Workspace, entry: JournalEntry, later: list[JournalEntry]) -> tuple[str, list[str]]:
    """The unified diff of what `entry` wrote, and the files whose new bytes are gone (changed since
    by hand: shown as not available). What an operation wrote is the old bytes of the next entry
    that touched the file, or the file as it is now, whichever has the recorded hash."""
    parts: list[str] = []
    unknown: list[str] = []
    for jf in entry.files:
        new: bytes | None = None
        found = jf.new_hash is None
        for other in later:
            match = next((f for f in other.files if f.path == jf.path), None)
            if match is not None and match.old is not None and content_hash(match.old) == jf.new_hash:
                new, found = match.old, True
                break
        if not found:
            try:
                real = ws.resolve(jf.path)
                data = real.read_bytes() if real.is_file() else None
            except (CodeagentError, OSError):
                data = None
            if data is not None and content_hash(data) == jf.new_hash:
                new, found = data, True
        if not found:
            unknown.append(jf.path)
            continue
        before, after = _text(jf.old), _text(new)
        if before is _BINARY or after is _BINARY:
            parts.append(f"Binary files a/{jf.path} and b/{jf.path} differ\n")
            continue
        parts.append(unified_diff(jf.path, before, after))
    return "".join(parts), unknown


_BINARY = "\0binary"


def _text(data: bytes | None) -> str | None:
    if data is None:
        return None
    if b"\0" in data[:8192]:
        return _BINARY
    return data.decode("utf-8", errors="replace")
