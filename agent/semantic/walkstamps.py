"""search_in_files' file selections kept by a process without a daemon (the agent loop, the MCP
server), reused only while a stat of everything the walk's answer depends on shows no change
(the stamps and their racy rule: agent/treestamps.py, `codeagent index`'s check too).

The daemon keeps selections while its folder watch is quiet (agent/semantic/walkcache.py); a
process without a watch re-checks instead: every folder the walk listed (its ctime changes when
an entry is created, deleted or renamed, and, unlike its mtime, cannot be set back by `touch` or
`tar`), every selected or oversized file (its size decides the read limit), each folder's
.gitignore, and each symlinked file's target, resolved again. That is one `stat` per folder and
file, about a third of what listing the folders, matching the ignore rules and the per-file size
stat cost, and the files' part runs while ripgrep begins; the answer is the fresh walk's. A
selection walked while something was being changed (a stamp younger than treestamps.RACY_NS) is
not kept.
"""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

from .. import treestamps
from ..toolcontext import ToolContext
from .walkcache import Selection

MAX_ENTRIES = 8
MAX_PATHS = 200_000  # stamped paths over all kept selections (Django's: ~10,000)
_SERVICE = "walk.stamped"


def _sizes(paths: tuple[str, ...]) -> list[int | None]:
    out: list[int | None] = []
    stat, append = os.stat, out.append
    for path in paths:
        try:
            append(stat(path).st_size)
        except OSError:
            append(None)
    return out


@dataclass(frozen=True, slots=True)
class _Entry:
    selection: Selection
    strict: tuple[str, ...]  # folders, .gitignore files, virtualenv markers: any change counts
    stamps: tuple[treestamps.Stamp, ...]
    sized: tuple[str, ...]  # selected and oversized files (symlinks: their targets): only the size counts
    sizes: tuple[int | None, ...]
    links: tuple[tuple[str, bool], ...]  # every symlinked file met, and whether it led out


class StampedWalks:
    """Kept selections by key (start folder, glob, settings)."""

    def __init__(self) -> None:
        self._entries: OrderedDict[str, _Entry] = OrderedDict()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._entries)

    def get(self, key: str, leaves: Callable[[str], bool]) -> tuple[Selection, Callable[[], bool]] | None:
        """The kept selection if no folder, rule file or link changed (`leaves` says whether a
        symlinked file now leads out of the workspace or to something not a file), with the check
        of its files' sizes still to make: `search` makes it while ripgrep begins. Every path in
        the selection is then still the regular file, or the link into the workspace, it was (a
        file replaced by a link or a fifo changes its folder), so ripgrep may open them."""
        with self._lock:
            entry = self._entries.get(key)
        if entry is None:
            return None
        if any(leaves(link) != out for link, out in entry.links) or not treestamps.hold(entry.strict, entry.stamps):
            self._drop(key, entry)
            return None

        def sizes_unchanged() -> bool:
            if _sizes(entry.sized) != list(entry.sizes):
                self._drop(key, entry)
                return False
            with self._lock:
                if key in self._entries:
                    self._entries.move_to_end(key)
            return True

        return entry.selection, sizes_unchanged

    def _drop(self, key: str, entry: _Entry) -> None:
        with self._lock:
            if self._entries.get(key) is entry:
                del self._entries[key]

    def put(self, key: str, selection: Selection, sized: list[tuple[str, int]], folders: list[str],
            depends: list[str], links: list[tuple[str, bool]], started_ns: int,
            rule_files: list[str] | None = None) -> bool:
        """Keep a selection walked from `started_ns` (time.time_ns() before the walk began) on:
        `sized` holds every selected and oversized file with the size its choice was made on,
        `depends` other paths the walk looked at (walk.iter_file_names), `links` every symlinked
        file met and whether it led out, `rule_files` the .gitignore files whose rules the walk
        used (None: each folder's that is a file; the walk's own list spares a stat a folder).
        False when it is too big or something was changing while it was walked."""
        strict = list(folders) + depends
        if rule_files is None:
            rule_files = [os.path.join(f, ".gitignore") for f in folders if os.path.isfile(os.path.join(f, ".gitignore"))]
        strict += rule_files
        if len(strict) + len(sized) > MAX_PATHS:
            return False
        stamps = treestamps.take(strict, started_ns)
        if stamps is None:  # a folder or rule file changed in the walk's clock tick may change unseen
            return False
        entry = _Entry(selection, tuple(strict), tuple(stamps), tuple(p for p, _ in sized), tuple(n for _, n in sized),
                       tuple(links))
        with self._lock:
            self._entries.pop(key, None)
            self._entries[key] = entry
            while len(self._entries) > MAX_ENTRIES or sum(len(e.strict) + len(e.sized) for e in self._entries.values()) > MAX_PATHS:
                self._entries.popitem(last=False)
        return True


def stamped_walks(ctx: ToolContext) -> StampedWalks | None:
    """The session's store (created on first use); None in a session of one call, which has no
    next search to reuse a walk (stamping Django's walk costs ~30 ms)."""
    return None if ctx.one_call else ctx.service(_SERVICE, StampedWalks)
