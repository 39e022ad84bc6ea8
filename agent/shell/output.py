"""Command output as the model sees it: the first and last bytes of a stream of any size, decoded
as UTF-8 with invalid bytes replaced, and all of it written to a log file up to a limit."""

from __future__ import annotations

import codecs
import contextlib
from collections import deque
from collections.abc import Callable
from typing import IO


class OutputCollector:
    """Keeps the first and last bytes of a stream of any size; writes all of it to `log`."""

    def __init__(self, max_chars: int, *, log: IO[bytes] | None, log_limit: int,
                 on_output: Callable[[str], None] | None = None):
        self.head_chars = max_chars * 2 // 3
        self.tail_chars = max_chars - self.head_chars
        self.max_chars = max_chars
        self.head_limit = max_chars * 4  # UTF-8: at most 4 bytes per character
        self.tail_limit = self.tail_chars * 4
        self.head = bytearray()
        self.tail: deque[bytes] = deque()
        self.tail_size = 0
        self.total = 0
        self.newlines = 0
        self.log = log
        self.log_limit = log_limit
        self.logged = 0
        self.log_error: str | None = None
        self.on_output = on_output
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")

    def feed(self, data: bytes) -> None:
        self.total += len(data)
        self.newlines += data.count(b"\n")
        if self.log is not None and self.logged < self.log_limit and self.log_error is None:
            piece = data[: self.log_limit - self.logged]
            try:
                self.log.write(piece)
            except OSError as exc:  # a full disk must not stop the command or lose its result
                self.log_error = f"{exc.strerror or exc}"
            else:
                self.logged += len(piece)
        room = self.head_limit - len(self.head)
        if room > 0:
            self.head += data[:room]
        self.tail.append(data)
        self.tail_size += len(data)
        while self.tail and self.tail_size - len(self.tail[0]) >= self.tail_limit:
            self.tail_size -= len(self.tail.popleft())
        if self.on_output is not None:
            text = self._decoder.decode(data)
            if text:
                with contextlib.suppress(Exception):  # a broken display must not stop the command
                    self.on_output(text)

    def result(self) -> tuple[str, str, int, int]:
        """(head, tail, bytes cut, lines cut); the tail is empty when nothing was cut."""
        if self.total <= self.head_limit:
            text = _decode(bytes(self.head))
            if len(text) <= self.max_chars:
                return _display(text), "", 0, 0
        head_text = _decode(bytes(self.head))[: self.head_chars]
        tail_raw = b"".join(self.tail)[-self.tail_limit:]
        tail_text = _decode(tail_raw)[-self.tail_chars:]
        head_bytes = head_text.encode("utf-8", "surrogateescape")
        tail_bytes = tail_text.encode("utf-8", "surrogateescape")
        cut_bytes = max(self.total - len(head_bytes) - len(tail_bytes), 0)
        cut_lines = max(self.newlines - head_bytes.count(b"\n") - tail_bytes.count(b"\n"), 0)
        return _display(head_text), _display(tail_text), cut_bytes, cut_lines


def _decode(data: bytes) -> str:
    return data.decode("utf-8", "surrogateescape")


def _display(text: str) -> str:
    """Invalid bytes (kept as surrogates for exact counting) shown as U+FFFD."""
    return text.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
