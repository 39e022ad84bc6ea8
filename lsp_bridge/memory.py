"""How much memory a server process holds: the resident set of it and every process below it, read
from /proc (Linux; elsewhere nothing is known and None is returned). A server may run helpers
(tsserver's type-checking child, node workers): they are the server's memory too."""

from __future__ import annotations

import os

PAGE = 1024  # /proc/PID/status reports kB
MAX_PROCESSES = 256  # a runaway tree is counted this far, never walked without end


def _rss_bytes(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/status", encoding="ascii", errors="replace") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) * PAGE
    except (OSError, ValueError, IndexError):
        pass
    return 0


def children(pid: int) -> list[int]:
    """Direct children, from each thread's `children` list (no scan of all of /proc)."""
    found: list[int] = []
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return found
    for task in tasks:
        try:
            with open(f"/proc/{pid}/task/{task}/children", encoding="ascii") as f:
                found.extend(int(word) for word in f.read().split())
        except (OSError, ValueError):
            continue
    return found


def tree_rss(pid: int) -> int | None:
    """Resident bytes of `pid` and its descendants (at most MAX_PROCESSES of them); None when /proc does not know the process."""
    if not os.path.exists(f"/proc/{pid}/status"):
        return None
    total, todo = 0, [pid]
    seen: set[int] = set()
    while todo and len(seen) < MAX_PROCESSES:
        current = todo.pop()
        if current in seen:
            continue
        seen.add(current)
        total += _rss_bytes(current)
        todo.extend(children(current))
    return total
