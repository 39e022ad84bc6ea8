"""The last unconfirmed same-name scan of each name (name_occurrences.unconfirmed_hits), kept in a
long-lived session (the daemon) so that a repeated references query does not look the name up in
every source file again, nor filter every candidate's occurrences again (@aws-sdk/client-ec2's
EC2Client: 1,109 candidate files and 666 unconfirmed hits per answer, a quarter of our work).

Validity: the file cache's `watched_epoch` (filecache.py), which every stored or dropped text,
every watch event and a lost watch change. An entry is kept only when its candidate list came
wholly from watched, cached texts (`with_word_trusted`), the epoch was the same before the scan
began and after it ended, and no file was left unchecked; it is used only while the epoch is still
the one it was computed at. A scan result is reused only for the same confirmed positions, the
same excluded file and the same budget (a different server answer is filtered afresh)."""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import Generic, TypeVar

from ..toolcontext import ToolContext

R = TypeVar("R")
MAX_NAMES = 64
_SERVICE = "semantic.name_scans"
Confirmed = dict[str, set[tuple[int, int]]]


@dataclass(frozen=True)
class Scan(Generic[R]):
    """One name's scan: its candidate files and its result for one set of confirmed positions."""

    epoch: int
    files: list[str]
    confirmed: Confirmed
    exclude: str | None
    max_chars: int
    result: R

    def answers(self, confirmed: Confirmed, exclude: str | None, max_chars: int) -> bool:
        return exclude == self.exclude and max_chars == self.max_chars and confirmed == self.confirmed


class NameScans(Generic[R]):
    def __init__(self) -> None:
        self._kept: OrderedDict[tuple[str, str], Scan[R]] = OrderedDict()
        self._lock = threading.Lock()  # looked up on the bridge's thread, stored on the request's
        self.reused = 0  # scans answered from here (for tests and profiles)

    def get(self, name: str, family: str, epoch: int | None) -> Scan[R] | None:
        """The kept scan of `name`, if it was computed at `epoch` (None: no watch, nothing kept)."""
        key = (name, family)
        with self._lock:
            held = self._kept.get(key)
            if held is None or epoch is None or held.epoch != epoch:
                return None
            self._kept.move_to_end(key)
            return held

    def put(self, name: str, family: str, scan: Scan[R]) -> None:
        key = (name, family)
        with self._lock:
            self._kept.pop(key, None)
            self._kept[key] = scan
            while len(self._kept) > MAX_NAMES:
                self._kept.popitem(last=False)


def name_scans(ctx: ToolContext) -> NameScans[object]:
    return ctx.service(_SERVICE, NameScans)
