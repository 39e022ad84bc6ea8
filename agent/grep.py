"""Text search over workspace files: ripgrep when present, a pure-Python engine otherwise.

Both engines search the same files (chosen here, by the gitignore-aware walk, never by ripgrep's
own walk) with the same line semantics (UTF-8 lines, BOMs honoured, CRLF ends a line, files with
NUL bytes are binary and skipped), and their hits go through the same selection and rendering,
so they give the same result. Regex dialects differ at the edges: a pattern ripgrep cannot
compile (look-around, back-references) is searched by Python's `re`.
"""

from __future__ import annotations

import codecs
import contextlib
import re
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from .errors import ToolFailure, WorkspaceError
from .grep_rg import RgUnusable, rg_batches
from .grep_types import Budget, FileHits, Recheck, Source
from .grep_types import Query as Query
from .grep_types import StaleSelection as StaleSelection
from .ripgrep import find_rg
from .textcodec import decode_raw

Engine = Literal["auto", "ripgrep", "python"]
MAX_SHOWN_LINE = 300  # characters of one hit shown; longer lines are cut around the match


@dataclass(slots=True)
class Hit:
    path: str
    line: int
    column: int | None  # None for a context line
    text: str


@dataclass(slots=True)
class Outcome:
    hits: list[Hit] = field(default_factory=list)  # kept matches and their context, in order
    shown: int = 0
    total: int = 0
    files_with_matches: int = 0
    files_searched: int = 0
    engine: str = "python"
    timed_out: bool = False
    note: str | None = None


def compile_python(query: Query) -> re.Pattern[str]:
    pattern = query.pattern if query.regex else re.escape(query.pattern)
    try:
        return re.compile(pattern, 0 if query.case_sensitive else re.IGNORECASE)
    except re.error as exc:
        raise ToolFailure(f"invalid regular expression {query.pattern!r}: {exc}; "
                          "pass regex=false to search for the literal text") from exc


def show_line(text: str, column: int | None) -> str:
    """One line as shown: long lines are cut to a window around the match."""
    text = text.rstrip("\n").rstrip("\r")
    if len(text) <= MAX_SHOWN_LINE:
        return text
    start = max(0, (column or 1) - 1 - MAX_SHOWN_LINE // 3)
    piece = text[start:start + MAX_SHOWN_LINE]
    return ("…" if start else "") + piece + f"… [line of {len(text)} characters cut]"


# ----------------------------------------------------------------- the Python engine


def _decoded_lines(data: bytes) -> list[str] | None:
    """The file's lines as ripgrep sees them, or None for a binary file."""
    if data.startswith(codecs.BOM_UTF8):
        text = data[3:].decode("utf-8", "surrogateescape")
    elif data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        encoding = "utf-16-le" if data.startswith(codecs.BOM_UTF16_LE) else "utf-16-be"
        text = data[2:].decode(encoding, "replace")
    else:
        text = data.decode("utf-8", "surrogateescape")
    if "\x00" in text:
        return None
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    return lines


def _python_file(path: str | Path, name: str, rx: re.Pattern[str], query: Query, keep: int) -> FileHits:
    hits = FileHits(name)
    try:
        with open(path, "rb") as fh:
            data = fh.read()
    except OSError:
        return hits
    lines = _decoded_lines(data)
    if lines is None:
        hits.binary = True
        return hits
    wanted: set[int] = set()
    for i, line in enumerate(lines, 1):
        m = rx.search(line[:-1] if line.endswith("\r") else line)
        if m is None:
            continue
        hits.matched += 1
        if len(hits.match_lines) < keep:
            hits.match_lines.append(i)
            hits.offsets[i] = len(line[:m.start()].encode("utf-8", "surrogateescape"))
            wanted.update(range(i - query.context_lines, i + query.context_lines + 1))
    for i in sorted(wanted):
        if 1 <= i <= len(lines):
            hits.texts[i] = lines[i - 1].encode("utf-8", "surrogateescape")
    return hits


def _python_batches(
    files: Sequence[Source], query: Query, budget: Budget
) -> Iterator[list[FileHits]]:
    rx = compile_python(query)
    for path, name in files:
        if budget.expired():
            return
        yield [_python_file(path, name, rx, query, budget.remaining)]


# ----------------------------------------------------------------- shared selection


class _Decoder:
    """Turns hit lines into text: UTF-8, or for a file that is not UTF-8 its detected encoding
    (so a GBK or Latin-1 line reads right, though the pattern matched its UTF-8 view)."""

    def __init__(self, files: Sequence[Source]):
        self.files = files
        self.paths: dict[str, str | Path] | None = None  # name -> real path, made when first needed
        self.encodings: dict[str, str] = {}

    def __call__(self, name: str, line: bytes) -> str:
        try:
            return line.decode("utf-8")
        except UnicodeDecodeError:
            pass
        if name not in self.encodings:
            self.encodings[name] = "utf-8"
            if self.paths is None:
                self.paths = {name: path for path, name in self.files}
            with contextlib.suppress(OSError, KeyError, WorkspaceError), open(self.paths[name], "rb") as fh:
                self.encodings[name] = decode_raw(fh.read(), name=name)[1].encoding  # unreadable: keep UTF-8
        return line.decode(self.encodings[name], "replace")


def _collect(
    outcome: Outcome, batches: Iterable[list[FileHits]], query: Query, budget: Budget, decoder: _Decoder
) -> None:
    for batch in batches:
        for hits in batch:
            if hits.binary or hits.matched == 0:
                continue
            if budget.remaining <= 0:  # (the result is full: the file only counts)
                outcome.total += hits.matched
                outcome.files_with_matches += 1
                continue
            if hits.pending:
                hits.take(budget.remaining)
            outcome.total += hits.matched
            outcome.files_with_matches += 1
            kept = hits.match_lines[: budget.remaining]
            budget.remaining -= len(kept)
            outcome.shown += len(kept)
            near = {n for m in kept for n in range(m - query.context_lines, m + query.context_lines + 1)}
            for number in sorted(n for n in hits.texts if n in near):
                raw = hits.texts[number]
                column = None
                if number in kept:
                    column = len(decoder(hits.path, raw[: hits.offsets.get(number, 0)])) + 1
                text = decoder(hits.path, raw)
                outcome.hits.append(Hit(hits.path, number, column, show_line(text, column)))


def search(
    files: Sequence[Source], query: Query, *, engine: Engine = "auto", timeout: float = 60.0,
    root: Path | None = None, recheck: Callable[[], bool] | None = None,
) -> Outcome:
    """Search `files` ((real path, display name), in the order results should come) for `query`;
    `root` is the workspace (no rg inside it runs). `recheck` (false: `files` is out of date,
    StaleSelection is raised) runs once rg has started, or before Python reads a file."""
    once = Recheck(recheck)
    outcome = Outcome(files_searched=len(files))
    rg = find_rg(root) if engine in ("auto", "ripgrep") else None
    if engine == "ripgrep" and rg is None:
        raise ToolFailure("ripgrep (rg) is not installed; install the `ripgrep` wheel or use engine python")
    budget = Budget(query.max_results, time.monotonic() + timeout)
    decoder = _Decoder(files)
    try:
        if rg is not None:
            try:
                outcome.engine = "ripgrep"
                _collect(outcome, rg_batches(rg, files, query, budget, once), query, budget, decoder)
                outcome.timed_out = budget.expired()
                once()
                return outcome
            except RgUnusable as exc:
                if engine == "ripgrep":
                    raise ToolFailure(f"ripgrep refused the search: {exc}") from exc
                compile_python(query)  # a pattern neither dialect accepts: say so, with Python's reason
                outcome = Outcome(files_searched=len(files), note="ripgrep could not run this pattern; searched with Python's re")
                budget = Budget(query.max_results, budget.deadline)
        outcome.engine = "python"
        once()
        _collect(outcome, _python_batches(files, query, budget), query, budget, decoder)
    except TimeoutError:
        pass
    once()
    outcome.timed_out = budget.expired()
    return outcome


def render(outcome: Outcome, query: Query, where: str) -> str:
    """The text a model reads: `path:line: text` for matches, `path-line- text` for context."""
    if not outcome.hits:
        said = f"no matches for {query.pattern!r} in {where} ({outcome.files_searched} files searched)"
        return said + (" [search timed out; results are partial]" if outcome.timed_out else "")
    out: list[str] = []
    previous: Hit | None = None
    for hit in outcome.hits:
        if query.context_lines and previous is not None and (
            previous.path != hit.path or hit.line > previous.line + 1
        ):
            out.append("--")
        sep = ":" if hit.column is not None else "-"
        out.append(f"{hit.path}{sep}{hit.line}{sep} {hit.text}")
        previous = hit
    summary = f"{outcome.total} matching lines in {outcome.files_with_matches} files"
    if outcome.shown < outcome.total:
        out.append(f"[showing the first {outcome.shown} of {summary}; narrow the pattern, path or glob, "
                   "or raise max_results]")
    else:
        out.append(f"({summary})")
    if outcome.timed_out:
        out.append("[search timed out; results are partial]")
    return "\n".join(out)
