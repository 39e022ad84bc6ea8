"""What the two search engines of agent/grep.py (Python's and ripgrep's, agent/grep_rg.py)
share: the query, one file's hits, the result budget."""

from __future__ import annotations

import base64
import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

Source = tuple[str | Path, str]  # (the file's real path, its display name)


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
    pending: list[bytes] = field(default_factory=list)  # rg's match events not yet parsed (see `take`)

    def take(self, count: int) -> None:
        """Parse the first `count` pending matches (rg's JSON events or plain records) into
        `match_lines`, `offsets`, `texts` (matches past what will be shown are only counted)."""
        for raw in self.pending[:count]:
            if raw.startswith(b"{"):  # a JSON match event
                data = json.loads(raw)["data"]
                number = data["line_number"]
                self.offsets[number] = data["submatches"][0]["start"] if data["submatches"] else 0
                self.texts[number] = line_bytes(data["lines"])
            else:  # a plain record, LINE:COLUMN:TEXT (agent/grep_rgtext.py; COLUMN counts bytes from 1)
                line, column, text = raw.split(b":", 2)
                number = int(line)
                self.offsets[number] = int(column) - 1
                self.texts[number] = text
            self.match_lines.append(number)
        self.pending = []


def line_bytes(lines: dict[str, str]) -> bytes:
    """The bytes of a line in rg's JSON (text, or base64 when it is not UTF-8)."""
    if "text" in lines:
        return lines["text"].encode("utf-8")
    return base64.b64decode(lines.get("bytes", ""))


class StaleSelection(Exception):
    """The caller's last check of its file list (`search(recheck=...)`) failed: its answer would
    not be the fresh walk's; the caller walks again."""


@dataclass(slots=True)
class Budget:
    remaining: int
    deadline: float

    def expired(self) -> bool:
        return time.monotonic() > self.deadline


class Recheck:
    """A caller's check of its file list, run once: as soon as ripgrep runs (so the two overlap),
    or before the Python engine reads, or at the latest before the answer is given."""

    def __init__(self, check: Callable[[], bool] | None):
        self._check = check

    def __call__(self) -> None:
        check, self._check = self._check, None
        if check is not None and not check():
            raise StaleSelection
