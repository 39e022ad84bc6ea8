"""The ripgrep engine of agent/grep.py: the files (chosen by grep.py's caller) searched by `rg
--json` in a few large batches, each file's hits kept up to what the result can show.

Without context lines a match event is only counted, by a byte scan of rg's output in large
chunks (agent/grep_rgscan.py); its JSON is parsed later, and only when the result shows it
(`FileHits.take`), and matches no result can show are dropped as the batch goes, so a pattern
matching a hundred thousand lines costs little more than rg's own run.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import subprocess
import sys
import threading
import time
from bisect import bisect_left
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from itertools import accumulate
from typing import IO

from .grep_rgscan import CHUNK, CountedScan, event_path
from .grep_rgtext import HEADING_ARGS, HeadingScan, Inconsistent, plain_query, usable
from .grep_types import Budget, FileHits, Query, Source, line_bytes


# One rg process for up to this many bytes of file arguments, each counted with its pointer as
# the kernel counts them: half of what the system allows (Linux: a quarter of the stack limit,
# usually 2 MB) less this environment, at least 32 KB; 200 KB where the limit is unknown. Each
# process costs a spawn, and rg searches one command line's files on all cores while a batch's
# tail runs on one: one batch for a Django-sized tree (~480 KB of paths) beats three.
def _arg_budget() -> int:
    try:
        limit = os.sysconf("SC_ARG_MAX")
    except (ValueError, OSError):
        limit = -1
    env = sum(len(k) + len(v) + 10 for k, v in os.environb.items()) if os.name == "posix" else 0
    return max(32 * 1024, limit // 2 - env) if limit > 0 else 200 * 1024


_BATCH_ARG_BYTES = _arg_budget()


class RgUnusable(Exception):
    """ripgrep cannot run this query (missing, or the pattern is outside its dialect)."""


def _rg_args(rg: str, query: Query, plain: bool = False) -> list[str]:
    """`plain`: rg's plain output instead of `--json` (no context lines: agent/grep_rgtext.py)."""
    args = [rg, *(HEADING_ARGS if plain else ["--json"]), "--no-config", "--crlf", "--no-messages", "-e", query.pattern]
    args.append("--case-sensitive" if query.case_sensitive else "--ignore-case")
    if not query.regex:
        args.append("--fixed-strings")
    if query.context_lines:
        args += ["--context", str(query.context_lines)]
    return args


def _grow_pipe(fd: int) -> None:
    """A 1 MB pipe (Linux) instead of 64 KB: rg blocks, and this process wakes, far less often
    for an output of megabytes."""
    with contextlib.suppress(AttributeError, OSError):
        fcntl.fcntl(fd, fcntl.F_SETPIPE_SZ, CHUNK)


@dataclass(frozen=True, slots=True)
class _Batch:
    """What one rg process of a file list needs, computed once per list (see `_prepared`)."""

    keys: list[str]  # the real paths as rg prints them
    names: dict[str, str]  # real path -> display name
    order: dict[str, int]  # real path -> rank in the result's order
    argv: list[bytes]  # the file arguments, encoded, reversed: rg's parallel walker takes its
    # paths from stacks (last in, first out), so its output comes roughly in our order, and past
    # the first results matches need only counting
    plain: bool  # its paths allow rg's plain output (agent/grep_rgtext.py)

    @classmethod
    def of(cls, batch: Sequence[Source]) -> _Batch:
        keys = [str(path) for path, _ in batch]
        enc, errors = sys.getfilesystemencoding(), sys.getfilesystemencodeerrors()  # (os.fsencode's, without
        argv = [key.encode(enc, errors) for key in reversed(keys)]  # its call per path: 0.5 ms, not 6, on Django)
        return cls(keys, dict(zip(keys, [name for _, name in batch], strict=True)),
                   dict(zip(keys, range(len(keys)), strict=True)), argv, usable(keys))


class _LastList:
    """The batches of the last file list searched, by identity: a kept walk (the daemon's, a
    session's) hands the same tuple to every search, which then spares ~5 ms of paths turned into
    arguments and maps per call on Django. Holding the list keeps its identity from being reused."""

    def __init__(self) -> None:
        self._held: tuple[Sequence[Source] | None, list[_Batch]] = (None, [])  # (one attribute: threads)

    def batches_of(self, files: Sequence[Source]) -> list[_Batch]:
        held, batches = self._held
        if held is files:
            return batches
        batches = [_Batch.of(batch) for batch in _batched(files)]
        self._held = (files, batches)
        return batches


_LAST = _LastList()


def _rg_batch(rg: str, query: Query, batch: _Batch, keep: int, deadline: float,
              started: Callable[[], None] | None = None) -> list[FileHits]:
    """`started` runs once rg runs (it may raise, which stops rg): the caller's last check of
    its file list, done while rg begins its search."""
    try:
        found = _rg_run(rg, query, batch, keep, deadline, started, batch.plain and plain_query(query))
    except Inconsistent:  # (never seen with the pinned rg) the same search, read from its JSON
        found = _rg_run(rg, query, batch, keep, deadline, None, False)
    return [found[key] for key in batch.keys if key in found]


def _rg_run(rg: str, query: Query, batch: _Batch, keep: int, deadline: float,
            started: Callable[[], None] | None, plain: bool) -> dict[str, FileHits]:
    names, order = batch.names, batch.order
    cmd = [os.fsencode(arg) for arg in _rg_args(rg, query, plain)] + [b"--"] + batch.argv
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL)
    timer = threading.Timer(max(0.0, deadline - time.monotonic()), proc.kill)
    timer.start()
    assert proc.stdout is not None and proc.stderr is not None
    try:
        _grow_pipe(proc.stdout.fileno())
        if started is not None:
            started()
        if query.context_lines:
            found = _read_with_context(proc.stdout, names, keep, query.context_lines)
        else:  # matches are only counted, and kept unparsed while a result may show them
            scan = (HeadingScan if plain else CountedScan)(names, order, keep)
            fd = proc.stdout.fileno()
            while data := os.read(fd, CHUNK):
                scan.feed(data)
            scan.close()
            found = scan.found
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
        timer.join()  # (gone before the call returns: a one-shot call then ends without teardown, tool_end.py)
        proc.stdout.close()
        err = proc.stderr.read().decode("utf-8", "replace")
        proc.stderr.close()
    if time.monotonic() > deadline:
        raise TimeoutError
    if proc.returncode not in (0, 1):
        raise RgUnusable(err.strip() or f"rg exited with status {proc.returncode}")
    return found


def _read_with_context(stdout: IO[bytes], names: dict[str, str], keep: int, n: int) -> dict[str, FileHits]:
    """rg's events with context lines: the line numbers decide which context lines are kept, so
    matches are parsed (rg writes each file's events together: begin, matches and context, end)."""
    found: dict[str, FileHits] = {}
    hits = FileHits("")
    for raw in stdout:
        head = raw[:20]
        if head.startswith(b'{"type":"begin"'):
            key = event_path(json.loads(raw)["data"])
            hits = found.get(key) or found.setdefault(key, FileHits(names.get(key, key)))
            continue
        if head.startswith(b'{"type":"end"'):
            hits.binary = json.loads(raw)["data"].get("binary_offset") is not None
            continue
        if not head.startswith((b'{"type":"match"', b'{"type":"context"')):
            continue
        event = json.loads(raw)
        data = event["data"]
        number = data["line_number"]
        if event["type"] == "match":
            hits.matched += 1
        full = len(hits.match_lines) >= keep
        last = hits.match_lines[-1] if hits.match_lines else None
        # past `keep`, a line is only needed as context of the last kept match
        needed = not full or (last is not None and number <= last + n)
        if event["type"] == "match" and not full:
            hits.match_lines.append(number)
            hits.offsets[number] = data["submatches"][0]["start"] if data["submatches"] else 0
            hits.texts[number] = line_bytes(data["lines"])
        elif needed:  # (a match past `keep` may be context of the last kept one)
            hits.texts[number] = line_bytes(data["lines"])
    for hits in found.values():  # drop context before the first match that fell out of `keep`
        near = {x for m in hits.match_lines for x in range(m - n, m + n + 1)}
        hits.texts = {k: t for k, t in hits.texts.items() if k in near}
    return found


def _arg_bytes(path: str | os.PathLike[str]) -> int:
    """What one file argument costs: its bytes, its NUL and its pointer."""
    if isinstance(path, str) and path.isascii():  # (isascii is a flag, no scan; os.fsencode is a Python call)
        return len(path) + 9
    return len(os.fsencode(path)) + 9


def _batched(files: Sequence[Source]) -> Iterator[list[Source]]:
    """`files` cut where a batch's arguments reach _BATCH_ARG_BYTES (that file included)."""
    ends = list(accumulate(_arg_bytes(path) for path, _ in files))
    start = 0
    while start < len(files):
        stop = min(bisect_left(ends, (ends[start - 1] if start else 0) + _BATCH_ARG_BYTES, lo=start) + 1, len(files))
        yield list(files[start:stop])
        start = stop


def rg_batches(rg: str, files: Sequence[Source], query: Query, budget: Budget,
               started: Callable[[], None] | None = None) -> Iterator[list[FileHits]]:
    for batch in _LAST.batches_of(files):
        if budget.expired():
            return
        yield _rg_batch(rg, query, batch, max(budget.remaining, 0), budget.deadline, started)
