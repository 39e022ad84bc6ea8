"""Which parts of a printed line colour.py styles, and how: loaded only when the output is coloured
(a terminal), so a piped command does not import re for it."""

from __future__ import annotations

import re

_LOCATION = re.compile(r"^(\s*)((?:\S+?:)?\d+:\d+)(?=[:\s]|$)")
_FILE_HEADER = re.compile(r"^[\w./@+-]+\.\w+$")  # a grouped listing's file line (`refs`)


def line_styles(line: str) -> list[tuple[str, str]]:
    """(text, style) pieces of one line."""
    if line.startswith(("+++ ", "--- ")):
        return [(line, "bold")]
    if line.startswith("@@"):
        return [(line, "cyan")]
    if line.startswith("+"):
        return [(line, "green")]
    if line.startswith("-"):
        return [(line, "red")]
    if _FILE_HEADER.match(line):
        return [(line, "bold magenta")]
    m = _LOCATION.match(line)
    if m:
        return [(m.group(1), ""), (m.group(2), "cyan"), (line[m.end():], "")]
    return [(line, "")]
