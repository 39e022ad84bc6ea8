"""Crash-safe file operations below the workspace: atomic replacement (temp file, fsync, rename,
folder fsync), the temp files a kill -9 may leave behind, and removing folders an operation made."""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import secrets
import stat
from collections.abc import Iterable
from pathlib import Path

TEMP_SUFFIX = ".codeagent-tmp"  # atomic_write's temp files; a kill -9 may leave one behind
_NAME_CUT = 80  # a temp name keeps this much of the target's name (file names are at most 255 bytes)


def temp_name(path: Path) -> Path:
    """A fresh temp file name beside `path`: `.{name}.{8 hex}.codeagent-tmp`."""
    return path.parent / f".{path.name[:_NAME_CUT]}.{secrets.token_hex(4)}{TEMP_SUFFIX}"


def atomic_write(path: Path, data: bytes, *, mode: int | None = None) -> None:
    """Write `data` to `path` so that a crash at any moment leaves the old file or the new one:
    temp file in the same folder, fsync, rename over, folder fsync. An existing file's mode is
    kept; a new file gets the usual 0o666 minus the umask (applied by the kernel, no umask race)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if mode is None and path.exists():
        mode = stat.S_IMODE(path.stat().st_mode)
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOFOLLOW", 0)
    while True:
        tmp = temp_name(path)
        try:
            fd = os.open(tmp, flags, 0o600 if mode is not None else 0o666)
            break
        except FileExistsError:
            continue
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            if mode is not None:
                os.fchmod(fh.fileno(), mode)
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        if os.path.lexists(tmp):
            os.unlink(tmp)
        raise
    fsync_dir(path.parent)


def fsync_dir(folder: Path) -> None:
    """Make a rename or unlink in `folder` durable."""
    dir_fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(dir_fd)
    finally:
        os.close(dir_fd)


def remove_temp_files(targets: Iterable[Path]) -> list[Path]:
    """Remove the temp files atomic_write may have left beside each of `targets` (a crash between
    creating one and renaming it over). Only names of exactly that shape, for exactly those
    targets, are touched: nothing else in the folder can be taken for one."""
    by_folder: dict[Path, set[str]] = {}
    for target in targets:
        by_folder.setdefault(target.parent, set()).add(re.escape(target.name[:_NAME_CUT]))
    removed: list[Path] = []
    for folder, names in by_folder.items():
        pattern = re.compile(rf"\.(?:{'|'.join(sorted(names))})\.[0-9a-f]{{8}}{re.escape(TEMP_SUFFIX)}")
        try:
            listing = list(os.scandir(folder))
        except OSError:  # the folder is gone (or was never made): nothing was left in it
            continue
        for item in listing:
            if pattern.fullmatch(item.name) and not item.is_dir(follow_symlinks=False):
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(item.path)
                    removed.append(Path(item.path))
    return removed


def remove_empty(folders: Iterable[Path]) -> None:
    """Remove folders an operation created, deepest first, if they are still empty."""
    for folder in sorted(folders, key=lambda d: -len(d.parts)):
        with contextlib.suppress(OSError):  # not empty (someone put files there) or gone: leave it
            folder.rmdir()


OTHER = "<not a regular file>"  # disk_hash of a folder, symlink, socket...: equal to no content hash


def disk_hash(path: Path) -> str | None:
    """The content hash of the regular file at `path` now (None: nothing there), without following
    a symlink that was put there since."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOFOLLOW", 0))
    except FileNotFoundError:
        return None
    except OSError:  # ELOOP (a symlink), EACCES, ...: not the file we planned with
        return OTHER
    with os.fdopen(fd, "rb") as fh:
        if not stat.S_ISREG(os.fstat(fh.fileno()).st_mode):
            return OTHER
        digest = hashlib.sha256()
        while chunk := fh.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()


STATE_IGNORE = "# codeagent's own state; never commit it\n*\n"


def ensure_state_dir(folder: Path) -> None:
    """Create codeagent's state folder (`.codeagent/`) with a `.gitignore` that ignores all of it
    (so `git add -A`, in or out of the sandbox, never stages the journal or the shell logs). A
    checked-out repository could make it a symlink to anywhere: never create through one."""
    if folder.is_symlink():
        raise OSError(f"{folder} is a symlink; refusing to use it as codeagent's state folder")
    folder.mkdir(exist_ok=True)
    ignore = folder / ".gitignore"
    if not ignore.exists() and not ignore.is_symlink():
        # best effort: a full disk must not stop a command or an edit over an ignore file
        with contextlib.suppress(OSError):
            ignore.write_text(STATE_IGNORE, encoding="utf-8")

