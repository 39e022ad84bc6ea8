"""Where a name occurs as a whole word in a text: the cheap test before any parse (a candidate
file whose every word match the server confirmed needs none)."""

from __future__ import annotations


def _word_char(c: str) -> bool:
    return c.isalnum() or c in "_$"


def word_positions(text: str, name: str) -> list[tuple[int, int]]:
    """0-based (line, column) of `name` as a whole word (str.find: a regex with a look-behind
    cannot use the fast literal search, and this runs over every candidate file per query)."""
    out: list[tuple[int, int]] = []
    size, end = len(name), len(text)
    line, scanned = 0, 0
    pos = text.find(name)
    while pos != -1:
        after = pos + size
        if (pos == 0 or not _word_char(text[pos - 1])) and (after >= end or not _word_char(text[after])):
            line += text.count("\n", scanned, pos)
            scanned = pos
            out.append((line, pos - (text.rfind("\n", 0, pos) + 1)))
        pos = text.find(name, pos + 1)
    return out
