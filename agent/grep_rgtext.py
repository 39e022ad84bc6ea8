"""Reading rg's plain output without context lines (agent/grep_rg.py): `--heading --null
--line-number --column`, a fifth of `--json`'s bytes, so both rg (which formats them) and this
process (which reads them) do less.

That output is one group per file with matches, groups separated by an empty line, each group in
one piece even when rg searches on several threads (its buffered writer puts the separator
between whole buffers). A group is `PATH\\0LINE:COLUMN:TEXT\\n` followed by `LINE:COLUMN:TEXT\\n`
lines; a file rg found to be binary ends its group (or is its whole group) with `PATH: binary
file matches (...)`. A record's TEXT holds no newline (and no NUL: rg stops printing a file at
its first NUL) and never makes an empty line, so `\\n\\n` only ever ends a group; a file's
matches are counted with one `bytes.count`, and only the lines a result may show are cut out
(kept unparsed for `FileHits.take`).

It is read for literals only (`plain_query`), and only when every path of the batch is absolute
and has no newline: a line that starts with `/` is then a group's first or a binary notice, never
a record (which starts with a digit). What does not fit (a group's last line that is neither a
record nor its file's notice, a second path in a group, a kept line without its column, output
cut inside a line) raises Inconsistent, and the batch is searched again and read from `--json`.
"""

from __future__ import annotations

import re

from .grep_rgscan import CountedScan
from .grep_types import FileHits, Query

HEADING_ARGS = ["--heading", "--null", "--line-number", "--column", "--with-filename", "--color=never"]
_NOTICE = b": binary file matches ("
_DIGITS = b"0123456789"
_RECORD = re.compile(rb"[0-9]+:[0-9]+:")


class Inconsistent(Exception):
    """rg's plain output is not in the form this reader knows."""


def plain_query(query: Query) -> bool:
    """rg prints a record's column only when its printer finds the match again in the line, which
    a regex may not (`$` on a last line without a newline gives `LINE:TEXT`, so a TEXT starting
    with `12:` would read as a column): plain output is read for literals, which it always finds,
    unless they hold a line end (the printer looks in the line without its terminator)."""
    return not query.regex and not query.context_lines and "\r" not in query.pattern and "\n" not in query.pattern


def usable(keys: list[str]) -> bool:
    """True when every path is absolute and holds no newline: then rg's plain output is read
    without doubt (see the module's docstring)."""
    joined = "\0".join(keys)
    return bool(keys) and joined.startswith("/") and joined.count("\0/") == len(keys) - 1 and "\n" not in joined


class HeadingScan(CountedScan):
    """CountedScan's counts and kept lines (its prune and cutoff too) from the plain output.
    A group is read once it is whole, so every file found has ended and is not binary."""

    def __init__(self, names: dict[str, str], order: dict[str, int], keep: int):
        super().__init__(names, order, keep)
        self._pieces: list[bytes] = []  # an unfinished last group, in pieces

    def feed(self, data: bytes) -> None:
        if self._pieces:  # (a separator split between the last read and this one is found in the join)
            cut = data.find(b"\n\n")
            if cut < 0:
                self._pieces.append(data)
                return
            group = b"".join(self._pieces) + data[: cut + 1]
            self._pieces = []
            self._groups(group, 0, len(group))
            data = data[cut + 2:]
        last = data.rfind(b"\n\n")
        if last >= 0:
            self._groups(data, 0, last + 1)
            data = data[last + 2:]
        if data:
            self._pieces.append(data)

    def close(self) -> None:
        if self._pieces:
            group = b"".join(self._pieces)
            self._pieces = []
            if not group.endswith(b"\n"):
                raise Inconsistent("output ends inside a line")
            self._groups(group, 0, len(group))

    def _groups(self, buf: bytes, pos: int, end: int) -> None:
        """The whole groups of buf[pos:end] (end is just past the last group's newline)."""
        while pos < end:
            stop = buf.find(b"\n\n", pos, end)
            stop = end if stop < 0 else stop + 1
            self._group(buf, pos, stop)
            pos = stop + 1

    def _group(self, buf: bytes, start: int, end: int) -> None:
        first = buf.index(b"\n", start, end)
        nul = buf.find(b"\0", start, first)
        if not buf.startswith(b"/", start):
            raise Inconsistent("a group that does not start with a path")
        if nul < 0:  # a binary file's notice alone
            if first + 1 != end or _NOTICE not in buf[start:first]:
                raise Inconsistent("a line that is neither a record nor a notice")
            return
        key = buf[start:nul].decode("utf-8", "surrogateescape")
        if key not in self.names or nul + 1 == first or buf[nul + 1] not in _DIGITS:
            raise Inconsistent("a group of an unknown path, or without a record")
        last = max(start, buf.rfind(b"\n", start, end - 1) + 1)  # where the group's last line starts
        if last > start and buf[last] not in _DIGITS:  # binary: its notice ends the group
            if not buf.startswith(buf[start:nul] + _NOTICE, last):
                raise Inconsistent("a line that is neither a record nor a notice")
            return
        if buf.find(b"\0", nul + 1, end) >= 0:  # another file's path: a separator missing
            raise Inconsistent("two files in one group")
        hits = self.found.get(key)
        if hits is None:
            hits = self.found[key] = FileHits(self.names[key])
        hits.matched += buf.count(b"\n", nul, end)
        self.ended.add(key)
        room = self.keep - len(hits.pending)
        if room <= 0 or self.order.get(key, len(self.order)) > self.cutoff:
            return
        pos = nul + 1
        while room > 0 and pos < end:
            nl = buf.index(b"\n", pos, end) + 1
            if _RECORD.match(buf, pos) is None:  # (a record without its column: see `plain_query`)
                raise Inconsistent("a record without a column")
            hits.pending.append(buf[pos:nl])
            room -= 1
            self.held += 1
            pos = nl
        if self.held > 4 * self.keep:
            self.prune()
