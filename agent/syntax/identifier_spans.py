"""Every identifier token of one source, as byte spans: one parse answers `code_occurrences` for
any name. A references query for one name parses each candidate file; the next query for another
name (client-ec2: EC2Client, then Tag, over the same 2 MB bundles and 2,000 `.d.ts` files) then
finds each of those files' tokens without parsing it again. Two arrays of 4-byte offsets per file
(client-ec2's 11 M characters: ~220,000 tokens, under 2 MB)."""

from __future__ import annotations

import bisect
from array import array

import tree_sitter as ts

from .languages import encode, get_query, parse_bytes
from .positions import LineMap


class IdentifierSpans:
    """The start and end byte offsets of the identifier tokens in code (the language's
    `identifiers` query), sorted by start."""

    __slots__ = ("starts", "ends")

    def __init__(self, spans: list[tuple[int, int]]):
        spans.sort()
        self.starts = array("I", (s for s, _ in spans))
        self.ends = array("I", (e for _, e in spans))

    @classmethod
    def of_arrays(cls, starts: array, ends: array) -> IdentifierSpans:
        """Spans already sorted by start (another process's `starts` and `ends`)."""
        spans = cls.__new__(cls)
        spans.starts, spans.ends = starts, ends
        return spans

    def __len__(self) -> int:
        return len(self.starts)

    def occurrences(self, source: bytes, name: str) -> list[tuple[int, int]]:
        """What `scopes.code_occurrences(text, language, name)` gives for the text `source`
        encodes: 0-based (line, character column) of each token equal to `name`, in order."""
        wanted = encode(name)
        size = len(wanted)
        if not size:
            return []
        starts, ends = self.starts, self.ends
        lines: LineMap | None = None
        found: list[tuple[int, int]] = []
        row = scanned = 0
        pos = source.find(wanted)
        while pos != -1:
            i = bisect.bisect_left(starts, pos)
            while i < len(starts) and starts[i] == pos:  # (tokens sharing a start: each is checked)
                if ends[i] == pos + size:
                    row += source.count(b"\n", scanned, pos)  # tree-sitter's rows end at "\n" only
                    scanned = pos
                    if lines is None:
                        lines = LineMap(source)
                    found.append((row, lines.char_column(row, pos - (source.rfind(b"\n", 0, pos) + 1))))
                    break
                i += 1
            pos = source.find(wanted, pos + 1)
        return found


def identifier_spans(source: bytes, language: str) -> tuple[IdentifierSpans, ts.Tree | None]:
    """Parse `source` once and keep its identifier tokens (and the tree, for the caller's use)."""
    query = get_query(language, "identifiers")
    if query is None:
        return IdentifierSpans([]), None
    tree = parse_bytes(source, language)
    spans = [(node.start_byte, node.end_byte)
             for nodes in ts.QueryCursor(query).captures(tree.root_node).values() for node in nodes]
    return IdentifierSpans(spans), tree
