"""Answers of read-only semantic queries, kept by a long-lived session (the daemon) for as long as
nothing they depend on can have changed; the rule that decides it is in agent/daemon/cached.py.

Cached: find_references, find_definition, type_info, call_hierarchy, find_implementations and
type_hierarchy — pure functions of the workspace's files, the settings and the server. Not
cached: get_diagnostics (the server publishes them asynchronously, so the same files can give a
later, fuller answer; and it can apply fixes), code_actions (tied to those diagnostics), and
every syntactic fallback (a server that failed is retried by the next uncached request: a cached
fallback would pin the degraded answer).

An entry holds the result and the stat signature (mtime, size, inode) of each file its data names
(the queried file included): checked again on every hit, they catch what no folder watch sees
(files in unwatched folders such as an installed package, writes through mmap). Kept as the
UTF-8 JSON the daemon sends (encoding a 1,500-reference answer takes longer than finding it),
with the head the daemon sends before it (what the CLI reads of it without decoding the rest).
Bounded by entries and by bytes (least recently used first out)."""

from __future__ import annotations

import json
import os
import threading
from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .. import treestamps
from ..toolcontext import ToolContext

CACHED_TOOLS = frozenset({"find_references", "find_definition", "type_info", "call_hierarchy",
                          "find_implementations", "type_hierarchy"})
MAX_ENTRIES = 256
MAX_BYTES = 32 * 1024 * 1024  # of the results' JSON
MAX_STAMPS = 2_000  # files named by one answer; an answer naming more is not kept
MAX_WALK = 20_000  # data nodes looked at for file paths
# A file modified this recently may change again within the same mtime tick (FAT and some network
# filesystems count in seconds): an answer naming one is not kept, as the index of git does.
RACY_NS = treestamps.RACY_NS
_SERVICE = "semantic.queries"

Signature = tuple[int, int, int]
Stamp = tuple[str, Signature | None]


@dataclass(frozen=True, slots=True)
class Entry:
    encoded: bytes  # the result as UTF-8 JSON, ready to send (a big answer takes longer to encode than to look up)
    stamps: tuple[Stamp, ...]
    head: bytes | None = None  # what is sent before it (daemon/wire.result_head), encoded alike

    @property
    def size(self) -> int:
        return len(self.encoded) + len(self.head or b"")


def signature(path: str) -> Signature | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_mtime_ns, st.st_size, st.st_ino)


def named_paths(root: Path, data: Any, also: Iterable[str] = ()) -> list[str] | None:
    """Absolute paths of the files an answer's data names (every "path" string, and `also`);
    None when there are more than MAX_STAMPS (or the data is too big to walk)."""
    found = {str(root / p) for p in also}
    stack, seen = [data], 0
    while stack:
        node = stack.pop()
        seen += 1
        if seen > MAX_WALK:
            return None
        if isinstance(node, dict):
            for key, value in node.items():
                if key == "path" and isinstance(value, str) and value:
                    found.add(value if os.path.isabs(value) else str(root / value))
                elif isinstance(value, dict | list):
                    stack.append(value)
        elif isinstance(node, list):
            stack.extend(v for v in node if isinstance(v, dict | list))
        if len(found) > MAX_STAMPS:
            return None
    return sorted(found)


def stamps_of(paths: list[str], started_ns: int) -> tuple[Stamp, ...] | None:
    """The files' signatures now; None when one was modified after `started_ns` - RACY_NS (the
    answer may predate a change that left the same signature)."""
    out = []
    for path in paths:
        sig = signature(path)
        if sig is not None and sig[0] > started_ns - RACY_NS:
            return None
        out.append((path, sig))
    return tuple(out)


class QueryCache:
    def __init__(self, max_entries: int = MAX_ENTRIES, max_bytes: int = MAX_BYTES):
        self.max_entries = max_entries
        self.max_bytes = max_bytes
        self.epoch = 0  # bumped by every invalidation: an answer computed across one is not kept
        self._entries: OrderedDict[str, Entry] = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._entries)

    @property
    def size_bytes(self) -> int:
        return self._bytes

    def invalidate(self) -> None:
        with self._lock:
            self._entries.clear()
            self._bytes = 0
            self.epoch += 1

    def get(self, key: str) -> Entry | None:
        """The stored result, if its files still have the signatures they had."""
        with self._lock:
            entry = self._entries.get(key)
        if entry is None:
            return None
        if any(signature(path) != sig for path, sig in entry.stamps):
            with self._lock:
                if self._entries.get(key) is entry:
                    del self._entries[key]
                    self._bytes -= entry.size
            return None
        with self._lock:
            if key in self._entries:
                self._entries.move_to_end(key)
        return entry

    def put(self, key: str, result: dict[str, Any], stamps: tuple[Stamp, ...], epoch: int,
            head: dict[str, Any] | None = None) -> bool:
        """Keep `result` (and the `head` sent before it), computed while the cache was at `epoch`;
        False when an invalidation came in between or it is bigger than the whole cache."""
        encoded = json.dumps(result, ensure_ascii=False).encode("utf-8")
        head_bytes = json.dumps(head, ensure_ascii=False).encode("utf-8") if head is not None else None
        size = len(encoded) + len(head_bytes or b"")
        if size > self.max_bytes:
            return False
        with self._lock:
            if epoch != self.epoch:
                return False
            old = self._entries.pop(key, None)
            if old is not None:
                self._bytes -= old.size
            self._entries[key] = Entry(encoded, stamps, head_bytes)
            self._bytes += size
            while len(self._entries) > self.max_entries or self._bytes > self.max_bytes:
                _, gone = self._entries.popitem(last=False)
                self._bytes -= gone.size
        return True


def query_cache(ctx: ToolContext) -> QueryCache:
    """The session's cache (created by the daemon; other sessions never keep answers)."""
    return ctx.service(_SERVICE, QueryCache)


def forget_queries(ctx: ToolContext) -> None:
    """A tool of this session wrote files: no kept answer is trusted, even before a watch says so."""
    if ctx.has_service(_SERVICE):
        query_cache(ctx).invalidate()
