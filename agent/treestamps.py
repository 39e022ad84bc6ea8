"""The one stat check of a kept walk: the stamps of the paths a walk's answer depended on (each
folder it listed, each .gitignore it read, each virtualenv marker it obeyed), taken once, and
whether they still hold. Standard library only: `codeagent index`'s fast path checks with it.

Three owners keep walks by it:
- a session without a daemon, its search walks (agent/semantic/walkstamps.py);
- the daemon and watched sessions, for what their folder watch cannot see: hidden folders,
  links, markers (agent/semantic/walkcache.py);
- `codeagent index`, its walk snapshot (agent/syntax/index.py writes it, relative to the root;
  agent/commands/index_fast.py checks it).

A stamp is a path's (ctime, mtime, size, inode), links followed, or None when it is gone.
Creating, deleting or renaming an entry changes its folder's ctime and mtime, and, unlike the
mtime, the ctime cannot be set back (`touch -d`, `tar`, `rsync -t` and `cp -p` set mtimes), so a
folder whose mtime was set back still shows the change; another folder in its place has another
inode. A followed link (a .gitignore or a pyvenv.cfg linked from elsewhere) is stamped by its
target, so a target removed or replaced outside the tree shows too.

The racy rule: timestamps come from a coarse clock (a kernel tick; a second on some filesystems),
so a change made in the same tick as the walk may leave the same stamp. Stamps with a ctime or
mtime later than the walk's start minus RACY_NS are not kept (git's index does the same), and so
stamps taken after the walk are as good as stamps taken before each listing: a change made after
the walk began leaves a ctime past its start.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence

RACY_NS = 2_000_000_000

Stamp = tuple[int, int, int, int] | None  # (ctime_ns, mtime_ns, size, inode); None: gone


def stamp(path: str) -> Stamp:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_ctime_ns, st.st_mtime_ns, st.st_size, st.st_ino)


def stamps(paths: Iterable[str]) -> list[Stamp]:
    return [stamp(path) for path in paths]


def take(paths: Sequence[str], started_ns: int) -> list[Stamp] | None:
    """The paths' stamps now, for a walk begun at `started_ns` (time.time_ns() before its first
    listing); None when one is too recent to prove anything (the racy rule)."""
    young = started_ns - RACY_NS
    out = stamps(paths)
    for s in out:
        if s is not None and (s[0] > young or s[1] > young):
            return None
    return out


def hold(paths: Sequence[str], kept: Sequence[Stamp]) -> bool:
    """Whether every path still has the stamp `take` gave it; stops at the first difference."""
    if len(paths) != len(kept):
        return False
    stat = os.stat
    for path, old in zip(paths, kept, strict=True):
        try:
            st = stat(path)
        except OSError:
            if old is not None:
                return False
            continue
        if old != (st.st_ctime_ns, st.st_mtime_ns, st.st_size, st.st_ino):
            return False
    return True
