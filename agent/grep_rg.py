"""The ripgrep engine of agent/grep.py: the files (chosen by grep.py's caller) searched by `rg
--json` in a few large batches, each file's hits kept up to what the result can show.

Without context lines a match event is only counted; its JSON is parsed later, and only when the
result shows it (`FileHits.take`), and matches no result can show are dropped as the batch goes
(`_prune`), so a pattern matching a hundred thousand lines costs little more than rg's own run.
"""

from __future__ import annotations

import base64
import json
import os
import subprocess
import threading
import time
from collections.abc import Iterator, Sequence
from typing import Any

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


def _rg_args(rg: str, query: Query) -> list[str]:
    args = [rg, "--json", "--no-config", "--crlf", "--no-messages", "-e", query.pattern]
    args.append("--case-sensitive" if query.case_sensitive else "--ignore-case")
    if not query.regex:
        args.append("--fixed-strings")
    if query.context_lines:
        args += ["--context", str(query.context_lines)]
    return args


def _event_path(data: dict[str, Any]) -> str:
    path = data["path"]
    return str(path["text"]) if "text" in path else os.fsdecode(base64.b64decode(path.get("bytes", "")))


def _rg_batch(rg: str, query: Query, batch: Sequence[Source], keep: int, deadline: float) -> list[FileHits]:
    names = {str(path): name for path, name in batch}
    order = {key: i for i, key in enumerate(names)}
    held = 0  # pending match events over all files
    ended: set[str] = set()  # files whose "end" event came (their count and binary flag are final)
    cmd = _rg_args(rg, query) + ["--"] + [str(path) for path, _ in batch]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL)
    timer = threading.Timer(max(0.0, deadline - time.monotonic()), proc.kill)
    timer.start()
    found: dict[str, FileHits] = {}
    n = query.context_lines
    hits = FileHits("")
    assert proc.stdout is not None and proc.stderr is not None
    try:
        # rg writes each file's events together (begin, matches and context, end). Without
        # context a match is only counted, its JSON kept unparsed for `FileHits.take`; with
        # context the line numbers decide which context lines are kept, so matches are parsed.
        for raw in proc.stdout:
            head = raw[:20]
            if head.startswith(b'{"type":"match"'):
                hits.matched += 1
                if n == 0:
                    if len(hits.pending) < keep:
                        hits.pending.append(raw)
                        held += 1
                        if held > 4 * keep:
                            held = _prune(found, order, ended, keep)
                    continue
            elif head.startswith(b'{"type":"begin"'):
                key = _event_path(json.loads(raw)["data"])
                hits = found.get(key) or found.setdefault(key, FileHits(names.get(key, key)))
                continue
            elif head.startswith(b'{"type":"end"'):
                data = json.loads(raw)["data"]
                hits.binary = data.get("binary_offset") is not None
                ended.add(_event_path(data))
                continue
            elif not head.startswith(b'{"type":"context"'):
                continue
            event = json.loads(raw)
            data = event["data"]
            number = data["line_number"]
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
        if n:
            near = {x for m in hits.match_lines for x in range(m - n, m + n + 1)}
            hits.texts = {k: t for k, t in hits.texts.items() if k in near}
    return [found[str(path)] for path, _ in batch if str(path) in found]


def _prune(found: dict[str, FileHits], order: dict[str, int], ended: set[str], keep: int) -> int:
    """Drop pending matches no result can show: those past the first `keep` matches of the
    finished files in path order (files found later only push them further back; a file still
    being read may yet turn out binary, so its matches do not count). The count still held."""
    before = held = 0
    for key in sorted(found, key=lambda k: order.get(k, len(order))):
        hits = found[key]
        del hits.pending[max(0, keep - before):]
        held += len(hits.pending)
        if key in ended and not hits.binary:
            before += hits.matched
    return held


def _batched(files: Sequence[Source]) -> Iterator[list[Source]]:
    batch: list[Source] = []
    size = 0
    for item in files:
        batch.append(item)
        size += len(os.fsencode(item[0])) + 9  # its NUL and its pointer
        if size >= _BATCH_ARG_BYTES:
            yield batch
            batch, size = [], 0
    if batch:
        yield batch


def rg_batches(rg: str, files: Sequence[Source], query: Query, budget: Budget) -> Iterator[list[FileHits]]:
    for batch in _batched(files):
        if budget.expired():
            return
        yield _rg_batch(rg, query, batch, max(budget.remaining, 0), budget.deadline)
