"""Parsing files in a second process, so that a session's parses use the machine's second core.

py-tree-sitter (0.25, 0.26) holds the GIL for the whole of `Parser.parse(bytes)`: two threads of one
process parsing take turns, and a thread parsing a 2 MB bundle (~0.5-1 s) stops every other thread
of the process for that long (a daemon's request thread, the thread reading the language server's
answers). So a long-lived session hands the files it parses for one name's code occurrences (the
identifier tokens, and the outline when asked), a batch at a time, to one worker process when it
is free; a caller that finds it busy, starting or broken parses in its own process, as before.
The answer is the same either way: the worker runs the same functions on the same bytes.

The worker is `python -P -m agent.syntax.parse_worker`, run from `/` (nothing of the workspace is
on its import path, and nothing the workspace holds chooses what runs). It is started at the first
need, in the background (the callers meanwhile parse locally), reads length-prefixed pickles on
stdin and writes its answers on stdout, and exits when its stdin closes or after `idle_exit_s`
(IDLE_EXIT_S) without work, its memory going back to the system; the next need starts another.
One that dies, answers garbage or overruns TIMEOUT_S is killed; after MAX_FAILURES none is
started again.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import select
import struct
import subprocess
import sys
import threading
import time
from array import array
from typing import Any

MIN_BYTES = 50_000  # below this a hand-over costs more than it saves (~10 ms of parsing)
IDLE_EXIT_S = 60.0
TIMEOUT_S = 60.0  # a parse of the largest readable file takes a few seconds
START_TIMEOUT_S = 20.0
MAX_FAILURES = 3
_HEAD = struct.Struct("<I")
_READY = b"R"

Item = tuple[bytes, str, str, bool]  # (source, language, name, whether the outline is wanted)
# (identifier token starts, their ends, the name's 0-based (line, column)s, the outline entries or None)
Parsed = tuple[array, array, list[tuple[int, int]], list[tuple[Any, ...]] | None]


class ParseWorker:
    """The session's worker process (one), used by whichever thread finds it free."""

    def __init__(self, min_bytes: int = MIN_BYTES, idle_exit_s: float = IDLE_EXIT_S):
        self.min_bytes = min_bytes
        self.idle_exit_s = idle_exit_s
        self._use = threading.Lock()  # held by the thread whose parse the worker runs now
        self._state = threading.Lock()  # guards the fields below
        self._proc: subprocess.Popen[bytes] | None = None  # started and ready
        self._starting = False
        self._closed = False
        self.failures = 0
        self.parsed = 0  # files the worker parsed (for tests and profiles)

    def parse_many(self, items: list[Item]) -> list[Parsed | None] | None:
        """Each (source, language, name, outline) item's answer from the worker: the name's
        occurrences in the source (and its outline entries if `outline` and there are some);
        None for an item the worker could not parse. None for all when there is too little to
        parse (under `min_bytes` in all) or the worker is not free."""
        if sum(len(item[0]) for item in items) < self.min_bytes or self._closed or self.failures >= MAX_FAILURES:
            return None
        if not self._use.acquire(blocking=False):
            return None
        try:
            with self._state:
                proc = self._proc
                if proc is None or proc.poll() is not None:
                    self._proc = None
                    self._start_soon()
                    return None
            return self._ask(proc, [(language, name, source, outline) for source, language, name, outline in items])
        finally:
            self._use.release()

    @property
    def free(self) -> bool:
        """Up and parsing nobody's files at this moment (a hand-over now would most likely be taken)."""
        proc = self._proc
        return (proc is not None and proc.poll() is None and not self._closed and self.failures < MAX_FAILURES
                and not self._use.locked())

    def start(self) -> None:
        """Start the worker now, in the background, if none runs (a caller that knows parses are
        coming: the first hand-over then finds it up)."""
        with self._state:
            if self._proc is None and self.failures < MAX_FAILURES:
                self._start_soon()

    def _start_soon(self) -> None:
        """(Holding `_state`.) Start a worker on another thread unless one is starting."""
        if self._starting or self._closed:
            return
        self._starting = True
        threading.Thread(target=self._start, name="codeagent-parse-worker-start", daemon=True).start()

    def _start(self) -> None:
        proc: subprocess.Popen[bytes] | None = None
        try:
            proc = subprocess.Popen([sys.executable, "-P", "-m", __name__, str(self.idle_exit_s)],
                                    stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                    cwd="/", close_fds=True)
            assert proc.stdout is not None
            ready = _read_exact(proc.stdout.fileno(), 1, time.monotonic() + START_TIMEOUT_S)
            if ready != _READY:
                raise OSError(f"the parse worker did not start (said {ready!r})")
        except (OSError, ValueError, TimeoutError):
            if proc is not None:
                _stop(proc)
            with self._state:
                self.failures += 1
                self._starting = False
            return
        with self._state:
            self._starting = False
            if self._closed:
                _stop(proc)
            else:
                self._proc = proc

    def _ask(self, proc: subprocess.Popen[bytes], request: list[tuple[Any, ...]]) -> list[Parsed | None] | None:
        assert proc.stdin is not None and proc.stdout is not None
        data = pickle.dumps(request, protocol=pickle.HIGHEST_PROTOCOL)
        deadline = time.monotonic() + TIMEOUT_S
        try:
            _write_all(proc.stdin.fileno(), _HEAD.pack(len(data)) + data)
            size = _HEAD.unpack(_read_exact(proc.stdout.fileno(), _HEAD.size, deadline))[0]
            replies = pickle.loads(_read_exact(proc.stdout.fileno(), size, deadline))
            if not isinstance(replies, list) or len(replies) != len(request):
                raise ValueError(f"the parse worker answered {replies!r:.200}")
            results: list[Parsed | None] = [
                (array("I", reply[1]), array("I", reply[2]), reply[3], reply[4]) if reply[0] == "ok" else None
                for reply in replies]
        except (OSError, EOFError, TimeoutError, ValueError, pickle.PickleError, struct.error, TypeError,
                IndexError):
            idle_exit = _stop(proc) == 0  # it left on its own between our look and our request: no fault
            with self._state:
                self._proc = None
                if not idle_exit:
                    self.failures += 1
            return None
        self.parsed += sum(result is not None for result in results)
        return results

    def close(self) -> None:
        with self._state:
            self._closed = True
            proc, self._proc = self._proc, None
        if proc is not None:
            _stop(proc)


def _stop(proc: subprocess.Popen[bytes]) -> int | None:
    """Close the worker's stdin (it exits) and reap it, killing it if it does not; its exit code
    if it exited by itself (0: idle or stdin closed)."""
    with contextlib.suppress(OSError):
        if proc.stdin is not None:
            proc.stdin.close()
    try:
        code = proc.wait(timeout=1.0)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        code = None
    if proc.stdout is not None:
        proc.stdout.close()
    return code


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def _read_exact(fd: int, size: int, deadline: float | None) -> bytes:
    chunks: list[bytes] = []
    left = size
    while left:
        if deadline is not None:
            wait = deadline - time.monotonic()
            if wait <= 0 or not select.select([fd], [], [], wait)[0]:
                raise TimeoutError("the parse worker did not answer in time")
        chunk = os.read(fd, min(left, 1 << 20))
        if not chunk:
            raise EOFError("the parse worker closed its output")
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def _answer(language: str, name: str, source: bytes, outline: bool) -> tuple[Any, ...]:
    from .identifier_spans import identifier_spans
    from .symbols import outline_entries

    spans, tree = identifier_spans(source, language)
    found = spans.occurrences(source, name)
    entries = None
    if outline and found and tree is not None:
        with contextlib.suppress(Exception):  # as keep_outline: a file without an outline keeps none
            entries = [tuple(entry) for entry in outline_entries(tree, source, language)]
    return ("ok", spans.starts.tobytes(), spans.ends.tobytes(), found, entries)


def main(argv: list[str]) -> int:
    """The worker: answer requests until stdin closes or nothing came for `argv[0]` seconds."""
    from . import identifier_spans, symbols  # noqa: F401  (loaded before saying ready)

    idle = float(argv[0]) if argv else IDLE_EXIT_S
    out = sys.stdout.buffer
    out.write(_READY)
    out.flush()
    while True:
        if not select.select([0], [], [], idle)[0]:
            return 0
        try:
            head = _read_exact(0, _HEAD.size, None)
        except EOFError:
            return 0
        replies = []
        for item in pickle.loads(_read_exact(0, _HEAD.unpack(head)[0], None)):
            try:
                replies.append(_answer(*item))
            except Exception as exc:  # said to the caller, which then parses that file itself
                replies.append(("error", f"{type(exc).__name__}: {exc}"))
        data = pickle.dumps(replies, protocol=pickle.HIGHEST_PROTOCOL)
        _write_all(1, _HEAD.pack(len(data)) + data)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
