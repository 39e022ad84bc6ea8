"""Text search over workspace files: ripgrep when present, a pure-Python engine otherwise.

Both engines search the same files (chosen here, by the gitignore-aware walk, never by ripgrep's
own walk) with the same line semantics (UTF-8 lines, BOMs honoured, CRLF ends a line, files with
NUL bytes are binary and skipped), and their hits go through the same selection and rendering,
so they give the same result. Regex dialects differ at the edges: a pattern ripgrep cannot
compile (look-around, back-references) is searched by Python's `re`.
"""

from __future__ import annotations

import base64
import codecs
import contextlib
import json
import os
import re
import subprocess
import threading
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from .errors import ToolFailure, WorkspaceError
from .ripgrep import find_rg
from .textcodec import decode_raw

Engine = Literal["auto", "ripgrep", "python"]
MAX_SHOWN_LINE = 300  # characters of one hit shown; longer lines are cut around the match
_BATCH_FILES = 400
_BATCH_ARG_BYTES = 64 * 1024


@dataclass(frozen=True, slots=True)
class Query:
    pattern: str
    regex: bool = True
    case_sensitive: bool = True
    context_lines: int = 0
    max_results: int = 200


@dataclass(slots=True)
class FileHits:
    """The hits of one file: matching line numbers (all, or the first `keep`) and line texts."""

    path: str
    match_lines: list[int] = field(default_factory=list)
    offsets: dict[int, int] = field(default_factory=dict)  # byte offset of the first match in its line
    texts: dict[int, bytes] = field(default_factory=dict)
    matched: int = 0  # matching lines in the file, counted even past what is kept
    binary: bool = False


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


def _python_file(path: Path, name: str, rx: re.Pattern[str], query: Query, keep: int) -> FileHits:
    hits = FileHits(name)
    try:
        data = path.read_bytes()
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
    files: list[tuple[Path, str]], query: Query, budget: _Budget
) -> Iterator[list[FileHits]]:
    rx = compile_python(query)
    for path, name in files:
        if budget.expired():
            return
        yield [_python_file(path, name, rx, query, budget.remaining)]


# ----------------------------------------------------------------- the ripgrep engine


class RgUnusable(Exception):
    """ripgrep cannot run this query (missing, or the pattern is outside its dialect)."""


def _rg_args(rg: str, query: Query) -> list[str]:
    args = [rg, "--json", "--no-config", "--crlf", "--no-messages", "-e", query.pattern]
    args.append("--case-sensitive" if query.case_sensitive else "--ignore-case")
    if not query.regex:
        args.append("--fixed-strings")
    if query.context_lines:
        args += ["--context", str(query.context_lines)]
    return args


def _line_bytes(lines: dict[str, str]) -> bytes:
    if "text" in lines:
        return lines["text"].encode("utf-8")
    return base64.b64decode(lines.get("bytes", ""))


def _event_path(data: dict[str, Any]) -> str:
    path = data["path"]
    return str(path["text"]) if "text" in path else os.fsdecode(base64.b64decode(path.get("bytes", "")))


def _rg_batch(rg: str, query: Query, batch: list[tuple[Path, str]], keep: int, deadline: float) -> list[FileHits]:
    names = {str(path): name for path, name in batch}
    cmd = _rg_args(rg, query) + ["--"] + [str(path) for path, _ in batch]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL)
    timer = threading.Timer(max(0.0, deadline - time.monotonic()), proc.kill)
    timer.start()
    found: dict[str, FileHits] = {}
    n = query.context_lines
    assert proc.stdout is not None and proc.stderr is not None
    try:
        for raw in proc.stdout:
            kind = raw[:20]
            if not kind.startswith((b'{"type":"match"', b'{"type":"context"', b'{"type":"end"')):
                continue
            event = json.loads(raw)
            data = event["data"]
            key = _event_path(data)
            hits = found.get(key)
            if hits is None:
                hits = found[key] = FileHits(names.get(key, key))
            if event["type"] == "end":
                hits.binary = data.get("binary_offset") is not None
                continue
            number = data["line_number"]
            full = len(hits.match_lines) >= keep
            last = hits.match_lines[-1] if hits.match_lines else None
            # past `keep`, a line is only needed as context of the last kept match
            needed = not full or (last is not None and number <= last + n)
            if event["type"] == "match":
                hits.matched += 1
                if not full:
                    line = _line_bytes(data["lines"])
                    hits.match_lines.append(number)
                    start = data["submatches"][0]["start"] if data["submatches"] else 0
                    hits.offsets[number] = start
                    hits.texts[number] = line
                    continue
            if needed:
                hits.texts[number] = _line_bytes(data["lines"])
        proc.wait(timeout=max(1.0, deadline - time.monotonic()))
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        raise TimeoutError from None
    except BaseException:
        proc.kill()
        proc.wait()
        raise
    finally:
        timer.cancel()
        proc.stdout.close()
        err = proc.stderr.read().decode("utf-8", "replace")
        proc.stderr.close()
    if time.monotonic() > deadline:
        raise TimeoutError
    if proc.returncode not in (0, 1):
        raise RgUnusable(err.strip() or f"rg exited with status {proc.returncode}")
    for hits in found.values():  # drop context before the first match that fell out of `keep`
        near = {x for m in hits.match_lines for x in range(m - n, m + n + 1)}
        hits.texts = {k: t for k, t in hits.texts.items() if k in near}
    return [found[str(path)] for path, _ in batch if str(path) in found]


def _batched(files: list[tuple[Path, str]]) -> Iterator[list[tuple[Path, str]]]:
    batch: list[tuple[Path, str]] = []
    size = 0
    for item in files:
        batch.append(item)
        size += len(str(item[0])) + 1
        if len(batch) >= _BATCH_FILES or size >= _BATCH_ARG_BYTES:
            yield batch
            batch, size = [], 0
    if batch:
        yield batch


def _rg_batches(rg: str, files: list[tuple[Path, str]], query: Query, budget: _Budget) -> Iterator[list[FileHits]]:
    for batch in _batched(files):
        if budget.expired():
            return
        yield _rg_batch(rg, query, batch, max(budget.remaining, 0), budget.deadline)


# ----------------------------------------------------------------- shared selection


@dataclass(slots=True)
class _Budget:
    remaining: int
    deadline: float

    def expired(self) -> bool:
        return time.monotonic() > self.deadline


class _Decoder:
    """Turns hit lines into text: UTF-8, or for a file that is not UTF-8 its detected encoding
    (so a GBK or Latin-1 line reads right, though the pattern matched its UTF-8 view)."""

    def __init__(self, paths: dict[str, Path]):
        self.paths = paths
        self.encodings: dict[str, str] = {}

    def __call__(self, name: str, line: bytes) -> str:
        try:
            return line.decode("utf-8")
        except UnicodeDecodeError:
            pass
        if name not in self.encodings:
            self.encodings[name] = "utf-8"
            with contextlib.suppress(OSError, KeyError, WorkspaceError):  # unreadable: keep UTF-8
                self.encodings[name] = decode_raw(self.paths[name].read_bytes(), name=name)[1].encoding
        return line.decode(self.encodings[name], "replace")


def _collect(
    outcome: Outcome, batches: Iterable[list[FileHits]], query: Query, budget: _Budget, decoder: _Decoder
) -> None:
    for batch in batches:
        for hits in batch:
            if hits.binary or hits.matched == 0:
                continue
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
    files: list[tuple[Path, str]], query: Query, *, engine: Engine = "auto", timeout: float = 60.0,
    root: Path | None = None,
) -> Outcome:
    """Search `files` ((real path, display name), in the order results should come) for `query`;
    `root` is the workspace (no rg inside it runs)."""
    outcome = Outcome(files_searched=len(files))
    rg = find_rg(root) if engine in ("auto", "ripgrep") else None
    if engine == "ripgrep" and rg is None:
        raise ToolFailure("ripgrep (rg) is not installed; install the `ripgrep` wheel or use engine python")
    budget = _Budget(query.max_results, time.monotonic() + timeout)
    decoder = _Decoder({name: path for path, name in files})
    try:
        if rg is not None:
            try:
                outcome.engine = "ripgrep"
                _collect(outcome, _rg_batches(rg, files, query, budget), query, budget, decoder)
                outcome.timed_out = budget.expired()
                return outcome
            except RgUnusable as exc:
                if engine == "ripgrep":
                    raise ToolFailure(f"ripgrep refused the search: {exc}") from exc
                compile_python(query)  # a pattern neither dialect accepts: say so, with Python's reason
                outcome = Outcome(files_searched=len(files), note="ripgrep could not run this pattern; searched with Python's re")
                budget = _Budget(query.max_results, budget.deadline)
        outcome.engine = "python"
        _collect(outcome, _python_batches(files, query, budget), query, budget, decoder)
    except TimeoutError:
        pass
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
