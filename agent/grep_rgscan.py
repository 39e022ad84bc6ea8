"""Reading `rg --json` without context lines (agent/grep_rg.py) by scanning its bytes in large
chunks instead of line by line in Python.

Without context, each file's events come together: one begin, its match events, one end (rg
prints a file's output in one piece even when it searches on several threads). So a file's
matches are counted with one `bytes.count` over the run of lines before its end event, and only
the lines a result may show are cut out, kept unparsed for `FileHits.take`. The markers searched
for (`{"type":"end"` and the like) cannot occur inside a JSON string, where every `"` is escaped:
they only ever start an event's line.
"""

from __future__ import annotations

import base64
import json
import os
from typing import Any

from .grep_types import FileHits

CHUNK = 1 << 20  # bytes asked of the pipe per read
_MATCH = b'{"type":"match"'
_BEGIN = b'{"type":"begin"'
_END = b'{"type":"end"'
_BEGIN_TEXT = b'{"type":"begin","data":{"path":{"text":"'
_BEGIN_TAIL = b'"}}}'
_NOT_BINARY = b'"binary_offset":null'


def event_path(data: dict[str, Any]) -> str:
    path = data["path"]
    return str(path["text"]) if "text" in path else os.fsdecode(base64.b64decode(path.get("bytes", "")))


class CountedScan:
    """The hits of one batch's `rg --json` output without context: every file's matching lines
    counted, and for the files a result may show, their first `keep` match events kept unparsed.

    `cutoff` is the rank (in `order`, the result's path order) of a finished file at which the
    finished, non-binary files up to it already hold `keep` matches: a file ranked after it can
    show nothing, so its lines are only counted. Files found later only lower it."""

    def __init__(self, names: dict[str, str], order: dict[str, int], keep: int):
        self.names, self.order, self.keep = names, order, keep
        self.found: dict[str, FileHits] = {}
        self.ended: set[str] = set()  # files whose end event came (their count and binary flag are final)
        self.held = 0  # pending match events over all files
        self.cutoff = len(order)
        self._hits: FileHits | None = None  # the file being read
        self._rank = 0
        self._key = ""
        self._rest: list[bytes] = []  # an unfinished last line, in pieces

    def feed(self, data: bytes) -> None:
        first = data.find(b"\n")
        if first < 0:
            self._rest.append(data)
            return
        start = 0
        if self._rest:  # finish the line begun in earlier reads on its own: `data` is not copied
            line = b"".join(self._rest) + data[: first + 1]
            self._rest = []
            self._lines(line, 0, len(line))
            start = first + 1
        last = data.rfind(b"\n") + 1
        if last > start:
            self._lines(data, start, last)
        if last < len(data):
            self._rest.append(data[last:])

    def close(self) -> None:
        if self._rest:
            line = b"".join(self._rest) + b"\n"
            self._rest = []
            self._lines(line, 0, len(line))

    def _lines(self, buf: bytes, pos: int, end: int) -> None:
        """The whole lines of buf[pos:end] (end is just past a newline)."""
        while pos < end:
            if self._hits is None:
                nl = buf.index(b"\n", pos, end)
                if buf.startswith(_BEGIN, pos):
                    self._begin(buf[pos:nl])
                pos = nl + 1
                continue
            stop = buf.find(_END, pos, end)
            if (stop if stop >= 0 else end) > pos:
                self._matches(buf, pos, stop if stop >= 0 else end)
            if stop < 0:
                return
            nl = buf.index(b"\n", stop, end)
            self._end(buf[stop:nl])
            pos = nl + 1

    def _begin(self, line: bytes) -> None:
        if line.startswith(_BEGIN_TEXT) and line.endswith(_BEGIN_TAIL) and b"\\" not in line:
            key = line[len(_BEGIN_TEXT): -len(_BEGIN_TAIL)].decode("utf-8", "surrogateescape")
        else:  # escapes in the name, or a name that is not UTF-8 (given as base64 bytes)
            key = event_path(json.loads(line)["data"])
        hits = self.found.get(key)
        if hits is None:
            hits = self.found[key] = FileHits(self.names.get(key, key))
        self._hits, self._rank = hits, self.order.get(key, len(self.order))
        self._key = key

    def _matches(self, buf: bytes, pos: int, stop: int) -> None:
        hits = self._hits
        assert hits is not None
        hits.matched += buf.count(_MATCH, pos, stop)
        room = self.keep - len(hits.pending)
        if room <= 0 or self._rank > self.cutoff:
            return
        while room > 0 and pos < stop:
            nl = buf.index(b"\n", pos, stop) + 1
            if buf.startswith(_MATCH, pos):
                hits.pending.append(buf[pos:nl])
                room -= 1
                self.held += 1
            pos = nl
        if self.held > 4 * self.keep:
            self.prune()

    def _end(self, line: bytes) -> None:
        hits = self._hits
        assert hits is not None
        hits.binary = _NOT_BINARY not in line and json.loads(line)["data"].get("binary_offset") is not None
        self.ended.add(self._key)
        self._hits = None

    def prune(self) -> None:
        """Drop pending matches no result can show: those past the first `keep` matches of the
        finished files in path order (files found later only push them further back; a file still
        being read may yet turn out binary, so its matches do not count)."""
        before = held = 0
        last = len(self.order)
        cutoff = last
        for key in sorted(self.found, key=lambda k: self.order.get(k, last)):
            hits = self.found[key]
            del hits.pending[max(0, self.keep - before):]
            held += len(hits.pending)
            if key in self.ended and not hits.binary:
                before += hits.matched
                if before >= self.keep and cutoff == last:
                    cutoff = self.order.get(key, last)
        self.held, self.cutoff = held, min(self.cutoff, cutoff)
