"""Namespaces that strengthen the Landlock backend where the kernel allows them.

Landlock only grants access: it cannot make part of a writable folder read-only, hide other
processes in /proc or give a command its own /dev/shm. A mount + pid + IPC namespace can:
`enter` unshares them (as root directly; otherwise inside a new user namespace that maps only our
own uid and gid), and `build_view`, run by the first process of the new pid namespace, mounts a
private /dev/shm, a /proc showing only the sandbox's processes, and read-only binds of the
protected workspace paths. Every mount is private: nothing propagates to the host.

Nothing here may import agent.config or pydantic: the launcher must start fast.
"""

from __future__ import annotations

import ctypes
import os
from dataclasses import dataclass, field

CLONE_NEWNS = 0x00020000
CLONE_NEWIPC = 0x08000000
CLONE_NEWUSER = 0x10000000
CLONE_NEWPID = 0x20000000
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC = 1, 2, 4, 8
MS_REMOUNT, MS_BIND, MS_REC, MS_PRIVATE = 32, 4096, 16384, 1 << 18
MS_NOATIME, MS_NODIRATIME, MS_RELATIME = 1024, 2048, 1 << 21
# statvfs f_flag bits → the mount flags a read-only remount must keep (a user namespace may not
# clear the flags of a mount it inherited: the remount fails with EPERM)
_KEEP_FLAGS = {os.ST_NOSUID: MS_NOSUID, os.ST_NODEV: MS_NODEV, os.ST_NOEXEC: MS_NOEXEC,
               os.ST_NOATIME: MS_NOATIME, os.ST_NODIRATIME: MS_NODIRATIME, os.ST_RELATIME: MS_RELATIME}

_libc = ctypes.CDLL(None, use_errno=True)
_libc.unshare.argtypes = (ctypes.c_int,)
_libc.mount.argtypes = (ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_ulong, ctypes.c_char_p)


def _oserror(what: str) -> OSError:
    err = ctypes.get_errno()
    return OSError(err, f"{what}: {os.strerror(err)}")


def _mount(source: str | None, target: str, fstype: str | None, flags: int, data: str | None = None) -> None:
    def enc(s: str | None) -> bytes | None:
        return None if s is None else os.fsencode(s)

    ctypes.set_errno(0)
    if _libc.mount(enc(source), enc(target), enc(fstype), flags, enc(data)) != 0:
        raise _oserror(f"mount {fstype or 'bind'} on {target}")


def enter(uid: int, gid: int) -> str | None:
    """Unshare the mount, pid and IPC namespaces (and, unless root, the user namespace, mapping
    only `uid` and `gid` to themselves). None on success, else why not (the caller falls back)."""
    flags = CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWIPC
    if os.geteuid() != 0:
        flags |= CLONE_NEWUSER
    ctypes.set_errno(0)
    if _libc.unshare(flags) != 0:
        err = ctypes.get_errno()
        what = "an unprivileged user namespace" if flags & CLONE_NEWUSER else "mount/pid/IPC namespaces"
        return f"the kernel refused {what}: {os.strerror(err)}"
    if flags & CLONE_NEWUSER:
        try:
            for name, text in (("setgroups", "deny"), ("uid_map", f"{uid} {uid} 1"), ("gid_map", f"{gid} {gid} 1")):
                with open(f"/proc/self/{name}", "w") as fh:
                    fh.write(text)
        except OSError as exc:
            # the namespaces exist but this process has no usable ids in them: unusable
            raise OSError(exc.errno, f"cannot map our ids into the new user namespace: {exc}") from exc
    return None


@dataclass
class View:
    """What build_view managed: `placeholders` are files or folders it created (host side) to
    hold a no_create path read-only; the launcher removes them after the call."""

    private_proc: bool = False
    private_shm: bool = False
    problems: list[str] = field(default_factory=list)
    placeholders: list[str] = field(default_factory=list)


def _read_only_bind(path: str) -> None:
    _mount(path, path, None, MS_BIND | MS_REC)
    flags = MS_REMOUNT | MS_BIND | MS_RDONLY
    kept = os.statvfs(path).f_flag
    for st_bit, ms_bit in _KEEP_FLAGS.items():
        if kept & st_bit:
            flags |= ms_bit
    _mount(None, path, None, flags)


def _pin(path: str) -> None:
    """Bind a folder onto itself: a mount point cannot be renamed or removed, so a command cannot
    move `.git` aside (protected config and hooks with it) and put a folder of its own there."""
    _mount(path, path, None, MS_BIND | MS_REC)


def build_view(*, root: str, protected: list[str], no_create: list[str], shm_size: int) -> View:
    """In the new namespaces, before Landlock: private mounts, /dev/shm, /proc, read-only paths.
    A failure to protect a workspace path raises (the command must not run unprotected)."""
    view = View()
    _mount(None, "/", None, MS_REC | MS_PRIVATE)
    if os.path.isdir("/dev/shm"):
        try:
            _mount("tmpfs", "/dev/shm", "tmpfs", MS_NOSUID | MS_NODEV, f"mode=1777,size={shm_size}")
            view.private_shm = True
        except OSError as exc:
            view.problems.append(f"no private /dev/shm ({exc.strerror})")
    try:
        _mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)
        view.private_proc = True
    except OSError as exc:
        view.problems.append(f"host /proc shown ({exc.strerror})")
    try:
        _protect(root, protected, no_create, view)
    except BaseException:
        remove_placeholders(view.placeholders)
        raise
    return view


def _protect(root: str, protected: list[str], no_create: list[str], view: View) -> None:
    for path in no_create:
        if os.path.lexists(path):  # created between the plan and now: protect what is there
            protected = [*protected, path]
            continue
        # An empty folder under a read-only mount holds the name: a mount point cannot be
        # replaced or removed, nothing can be written into it, and git lists no empty folder
        # (so `git add -A` inside neither fails nor commits a placeholder). Host processes that
        # read the project file during the call find a folder: a clear error, never other settings.
        os.mkdir(path, 0o755)
        view.placeholders.append(path)
        protected = [*protected, path]
    # a link is not bound (the mount would follow it, and the link itself stays replaceable): the
    # launcher's guard puts it back after the call
    protected = [p for p in protected if not os.path.islink(p)]
    pinned: set[str] = set()
    for path in protected:
        parent = os.path.dirname(path)
        if parent != root and parent not in pinned and os.path.isdir(parent) and not os.path.islink(parent):
            _pin(parent)
            pinned.add(parent)
    for path in protected:
        _read_only_bind(path)


def remove_placeholders(paths: list[str]) -> None:
    """Remove the placeholders build_view made, if they are still empty (run on the host side)."""
    for path in paths:
        try:
            if os.path.isdir(path) and not os.path.islink(path):
                os.rmdir(path)  # fails, and keeps it, when someone put something in it
            elif os.path.isfile(path) and not os.path.islink(path) and os.path.getsize(path) == 0:
                os.unlink(path)
        except OSError:
            pass
