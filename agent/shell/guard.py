"""Plain Landlock (no namespaces) cannot keep a command from changing `.codeagent.toml`,
`.git/config` or `.git/hooks` inside the writable workspace: the launcher takes a snapshot of them
before the command and, after it, puts back what changed (the bytes and mode of each file, or where
a link pointed; a file that did not exist is removed). `.codeagent/` itself is not restored: the
journal authenticates its entries instead. With namespaces the same restore is the safety net for
what a mount cannot hold: a protected path that is a symbolic link (a mount would follow it).

Nothing here may import agent.config or pydantic: the launcher must start fast.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import stat
from dataclasses import dataclass

MAX_FILE_BYTES = 1 << 20
MAX_ENTRIES = 256
GUARDED = (".codeagent.toml", ".git/config", ".git/hooks")


@dataclass(frozen=True)
class _Entry:
    data: bytes  # a file's bytes, or where a symbolic link points
    mode: int
    link: bool = False


Snapshot = dict[str, "_Entry | None"]  # path → its bytes, or None when it did not exist


def _read(path: str) -> _Entry | None:
    """A regular file's bytes or a link's target (never followed); None when missing. ValueError
    for anything else (a folder, a device, a file over MAX_FILE_BYTES)."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return None
    if stat.S_ISLNK(st.st_mode):
        return _Entry(os.fsencode(os.readlink(path)), 0, link=True)
    if not stat.S_ISREG(st.st_mode) or st.st_size > MAX_FILE_BYTES:
        raise ValueError(path)
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    with os.fdopen(fd, "rb") as fh:
        return _Entry(fh.read(MAX_FILE_BYTES + 1), stat.S_IMODE(st.st_mode))


def take(root: str) -> tuple[Snapshot, list[str]]:
    """The guarded files under `root`, and the paths that could not be snapshotted (not guarded)."""
    snap: Snapshot = {}
    skipped: list[str] = []
    for name in GUARDED:
        path = os.path.join(root, name)
        if name == ".git/hooks":
            if os.path.isdir(path) and not os.path.islink(path):
                try:
                    entries = sorted(os.listdir(path))
                except OSError:
                    entries = ["?"] * (MAX_ENTRIES + 1)
                if len(entries) > MAX_ENTRIES:
                    skipped.append(path)
                    continue
                snap[path + "/"] = None  # the folder itself: new entries are removed
                for entry in entries:
                    try:
                        snap[os.path.join(path, entry)] = _read(os.path.join(path, entry))
                    except (ValueError, OSError):
                        skipped.append(os.path.join(path, entry))
            continue
        try:
            snap[path] = _read(path)
        except (ValueError, OSError):
            skipped.append(path)
    return snap, skipped


def links_only(snap: Snapshot) -> Snapshot:
    """The part of a snapshot a mount cannot protect: the symbolic links."""
    return {path: entry for path, entry in snap.items() if entry is not None and entry.link}


def _remove(path: str) -> None:
    if os.path.isdir(path) and not os.path.islink(path):
        shutil.rmtree(path)
    else:
        os.unlink(path)


def _write(path: str, entry: _Entry) -> None:
    with contextlib.suppress(FileNotFoundError):
        if os.path.islink(path) or os.path.isdir(path):
            _remove(path)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    if entry.link:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(path)
        os.symlink(os.fsdecode(entry.data), path)
        return
    tmp = f"{path}.codeagent-restore"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, entry.mode)
    with os.fdopen(fd, "wb") as fh:
        fh.write(entry.data)
    os.chmod(tmp, entry.mode)
    os.replace(tmp, path)


def restore(snap: Snapshot) -> list[str]:
    """Undo every change to the snapshotted paths; returns the paths put back (or removed)."""
    restored: list[str] = []
    for key, before in snap.items():
        if key.endswith("/"):  # a guarded folder: remove what appeared in it
            folder = key[:-1]
            if os.path.islink(folder) or (os.path.lexists(folder) and not os.path.isdir(folder)):
                with contextlib.suppress(OSError):  # replaced by a link or a file: put a folder back
                    _remove(folder)
                    os.mkdir(folder, 0o755)
                    restored.append(folder)
            if os.path.isdir(folder) and not os.path.islink(folder):
                for entry in os.listdir(folder):
                    path = os.path.join(folder, entry)
                    if path not in snap:
                        with contextlib.suppress(OSError):
                            _remove(path)
                            restored.append(path)
            continue
        try:
            now = _read(key)
        except (ValueError, OSError):
            now = _Entry(b"", -1)  # a folder or a huge file now: not what was there
        if now == before:
            continue
        try:
            if before is None:
                _remove(key)
            else:
                _write(key, before)
            restored.append(key)
        except OSError:
            continue
    return restored
