"""Who may talk to a workspace daemon: a process of the same user, outside any codeagent sandbox.

The socket file is private to the user (mode 0700 folder), but a command the agent runs is that
user too: without this check a command could ask another workspace's daemon to run tools or to stop.
A sandboxed command is told apart from the CLI by what the kernel reports about the peer, compared
with the daemon's own: NoNewPrivs set, more seccomp filters stacked, or another user, pid or mount
namespace (bubblewrap, the Landlock backend's namespaces). The daemon was started by the CLI, so a
genuine client matches it on every count.

The pid SO_PEERCRED gives is the connecting process at connect time; if it exited and its number was
reused before the check, the check reads the new process and may refuse a genuine client (never the
reverse: a sandboxed process cannot make its pid point to an unsandboxed one).
"""

from __future__ import annotations

import functools
import os
import socket
import struct

_UCRED = struct.Struct("3i")  # pid, uid, gid
_NAMESPACES = ("user", "pid", "mnt")


def _confinement(pid: int | str) -> tuple[int, int]:
    """(NoNewPrivs, Seccomp_filters) of a process from /proc/PID/status (found in its bytes: the
    per-line text decoding cost as much again as the kernel's writing of the file, on every request)."""
    with open(f"/proc/{pid}/status", "rb") as fh:
        status = fh.read()
    return _status_field(status, b"\nNoNewPrivs:"), _status_field(status, b"\nSeccomp_filters:")


def _status_field(status: bytes, key: bytes) -> int:
    """The integer after `key` (a line's start) up to the line's end; 0 when the kernel has no such line."""
    at = status.find(key)
    if at < 0:
        return 0
    end = status.find(b"\n", at + len(key))
    return int(status[at + len(key):end if end >= 0 else len(status)])


@functools.cache  # the daemon's own: read once (it never enters a namespace nor stacks a filter)
def _own() -> tuple[tuple[int, int], tuple[str, ...]]:
    return _confinement("self"), tuple(os.readlink(f"/proc/self/ns/{ns}") for ns in _NAMESPACES)


def refusal(conn: socket.socket) -> str | None:
    """Why the peer of an accepted unix-socket connection must not be served, or None."""
    try:
        pid, uid, _gid = _UCRED.unpack(conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, _UCRED.size))
    except OSError as exc:
        return f"cannot identify the peer: {exc}"
    if uid != os.getuid():
        return f"peer uid {uid} is not ours ({os.getuid()})"
    if pid <= 0:
        return "the peer's pid is not visible here (another pid namespace)"
    try:
        peer_nnp, peer_filters = _confinement(pid)
        (own_nnp, own_filters), own_ns = _own()
        for ns, own in zip(_NAMESPACES, own_ns, strict=True):
            if os.readlink(f"/proc/{pid}/ns/{ns}") != own:
                return f"peer pid {pid} runs in another {ns} namespace (a sandbox)"
    except (OSError, ValueError) as exc:
        return f"cannot inspect peer pid {pid}: {exc}"
    if peer_nnp > own_nnp:
        return f"peer pid {pid} has NoNewPrivs set (a sandboxed command)"
    if peer_filters > own_filters:
        return f"peer pid {pid} has {peer_filters} seccomp filters, we have {own_filters} (a sandboxed command)"
    return None
