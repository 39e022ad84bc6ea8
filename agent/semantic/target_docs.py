"""The text of the file a query points at, kept for the session while the file is unchanged: a
warm daemon otherwise read, decoded and hashed it on every query (@aws-sdk/client-ec2's
models_0.d.ts, 300 KB: 2-9 ms of a ~30 ms answer).

A kept TextDoc is the very value a fresh read would give (its hash guards the writes of a rename
that starts from it): it is reused only while the file's stat signature (mtime, ctime, size,
inode) is the one before that read, and only if the read came more than RACY_NS after the
file's last change, so a write in the same timestamp tick cannot hide behind an equal mtime.
The ctime changes on every write and cannot be set back, even where the mtime is (`touch -d`)."""

from __future__ import annotations

import os
import stat
import threading
import time
from collections import OrderedDict
from pathlib import Path

from ..toolcontext import ToolContext
from ..workspace import TextDoc
from .querycache import RACY_NS

MAX_DOCS = 16
_SERVICE = "semantic.target_docs"
Signature = tuple[int, int, int, int]


def _signature(path: Path) -> Signature | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    if not stat.S_ISREG(st.st_mode):
        return None
    return (st.st_mtime_ns, st.st_ctime_ns, st.st_size, st.st_ino)


class TargetDocs:
    def __init__(self) -> None:
        self._docs: OrderedDict[Path, tuple[Signature, TextDoc]] = OrderedDict()
        self._lock = threading.Lock()
        self.reused = 0  # for tests and profiles

    def read(self, ctx: ToolContext, real: Path) -> TextDoc:
        """`ctx.workspace.read(real)` (`real`: a path Workspace.resolve gave), from the kept copy
        when the file is unchanged since it was read."""
        before = _signature(real)
        with self._lock:
            held = self._docs.get(real)
            if held is not None and before is not None and held[0] == before:
                self._docs.move_to_end(real)
                self.reused += 1
                return held[1]
        read_at = time.time_ns()
        doc = ctx.workspace.read(real)  # words every error (missing, too large, binary)
        if before is None or read_at - max(before[0], before[1]) <= RACY_NS or _signature(real) != before:
            return doc  # changed just now or while it was read: not kept
        with self._lock:
            self._docs[real] = (before, doc)
            self._docs.move_to_end(real)
            while len(self._docs) > MAX_DOCS:
                self._docs.popitem(last=False)
        return doc


def target_doc(ctx: ToolContext, real: Path) -> TextDoc:
    return ctx.service(_SERVICE, TargetDocs).read(ctx, real)
