"""The workspace: one root folder, safe path resolution, text reads, atomic journaled writes.

Every path a model or a user gives goes through `Workspace.resolve`, which refuses anything whose
real path (symlinks, `..`, `/proc/self/root` all resolved) is not inside the root's real path.
Every write goes through `Workspace.apply`, which checks all edits first, records the previous
bytes in the journal, then writes each file atomically (temp file, fsync, rename, mode kept).
"""

from __future__ import annotations

import contextlib
import os
import secrets
import stat
from dataclasses import dataclass, field
from pathlib import Path

from .configpaths import PROJECT_CONFIG
from .errors import (
    BinaryFileError,
    FileMissingError,
    FileTooLargeError,
    NotAFileError,
    OutsideWorkspaceError,
    ProtectedPathError,
    StaleFileError,
    WorkspaceError,
)
from .journal import Journal, JournalEntry, JournalFile
from .result import FileEdit, content_hash
from .textcodec import DEFAULT_FORMAT, TextFormat, decode, decode_raw, encode, normalise

TOOL_DIR = ".codeagent"
DEFAULT_MAX_READ_BYTES = 10 * 1024 * 1024
_PROTECTED_DIRS = (".git", TOOL_DIR)
TEMP_SUFFIX = ".codeagent-tmp"  # atomic_write's temp files; a kill -9 may leave one behind


@dataclass(frozen=True, slots=True)
class TextDoc:
    """A decoded text file: "\n" text plus what is needed to write it back unchanged."""

    path: str  # workspace-relative, "/"-separated
    text: str
    fmt: TextFormat
    hash: str  # sha256 of the bytes on disk


@dataclass(slots=True)
class Applied:
    """What `Workspace.apply` did: the journal entry and each file's text before and after."""

    entry_id: str
    before: dict[str, str | None] = field(default_factory=dict)
    after: dict[str, str | None] = field(default_factory=dict)

    @property
    def paths(self) -> list[str]:
        return list(self.after)


class Workspace:
    """One root folder that every tool works inside."""

    def __init__(self, root: str | os.PathLike[str], *, max_read_bytes: int = DEFAULT_MAX_READ_BYTES):
        real = Path(os.path.realpath(os.fspath(root)))
        if not real.is_dir():
            raise NotAFileError(f"workspace root {os.fspath(root)!r} is not a folder")
        self.root = real
        self.max_read_bytes = max_read_bytes
        self.tool_dir = self.root / TOOL_DIR
        self.journal = Journal(self.tool_dir / "journal")

    # ----------------------------------------------------------------- paths
    def resolve(self, path: str | os.PathLike[str], *, for_write: bool = False) -> Path:
        """The real absolute path of `path` (relative to the root, or absolute), refusing
        anything outside the root. With `for_write`, also refuses .git/, the tool folder and the
        project config file."""
        raw = os.fspath(path)
        if "\x00" in raw:
            raise OutsideWorkspaceError(f"path {raw!r} contains a NUL byte")
        if raw.startswith("~"):
            raise OutsideWorkspaceError(f"path {raw!r}: '~' is not expanded; give a path inside the workspace")
        if raw.strip() == "":
            raw = "."
        candidate = Path(raw)
        if not candidate.is_absolute():
            candidate = self.root / candidate
        try:
            real = Path(os.path.realpath(candidate))
        except (OSError, ValueError) as exc:
            raise OutsideWorkspaceError(f"path {raw!r} cannot be resolved: {exc}") from exc
        if real != self.root and self.root not in real.parents:
            raise OutsideWorkspaceError(
                f"path {raw!r} resolves to {str(real)!r}, outside the workspace {str(self.root)!r}"
            )
        if for_write:
            rel_parts = real.relative_to(self.root).parts
            for i, part in enumerate(rel_parts):
                if part == ".git" or (i == 0 and part in _PROTECTED_DIRS):
                    inside = "/".join(rel_parts[: i + 1])
                    raise ProtectedPathError(f"path {raw!r} is inside {inside}/, which tools never write")
            # A tool that wrote the project config would change the settings of every later command.
            if rel_parts and rel_parts[0] == PROJECT_CONFIG:
                raise ProtectedPathError(f"path {raw!r} is the project config {PROJECT_CONFIG}, which tools "
                                         "never write (only you edit it; its security settings need `codeagent trust`)")
        return real

    def rel(self, path: str | os.PathLike[str]) -> str:
        """The workspace-relative, "/"-separated form of a path inside the root."""
        return self.display(self.resolve(path))

    def display(self, real: Path) -> str:
        """The workspace-relative form of an already resolved path."""
        return real.relative_to(self.root).as_posix() or "."

    # ----------------------------------------------------------------- reads
    def read_bytes(self, path: str | os.PathLike[str]) -> bytes:
        """The bytes of a regular file inside the root, up to the read cap."""
        real = self.resolve(path)
        name = self.display(real)
        if not real.exists():
            raise FileMissingError(f"{name}: no such file")
        if real.is_dir():
            raise NotAFileError(f"{name}: not a regular file but a folder (list it with list_directory)")
        if not real.is_file():
            raise NotAFileError(f"{name}: not a regular file")
        try:
            with open(real, "rb") as fh:
                data = fh.read(self.max_read_bytes + 1)
        except OSError as exc:
            raise WorkspaceError(f"{name}: cannot read: {exc.strerror or exc}") from exc
        if len(data) > self.max_read_bytes:
            size = real.stat().st_size
            raise FileTooLargeError(
                f"{name}: {size} bytes is over the read limit of {self.max_read_bytes} bytes "
                "(setting workspace.max_read_bytes); search it with search_in_files instead"
            )
        return data

    def read(self, path: str | os.PathLike[str]) -> TextDoc:
        """Read and decode a text file."""
        real = self.resolve(path)
        data = self.read_bytes(real)
        name = self.display(real)
        text, fmt = decode(data, name=name)
        return TextDoc(name, text, fmt, content_hash(data))

    def read_text(self, path: str | os.PathLike[str]) -> str:
        return self.read(path).text

    def exists(self, path: str | os.PathLike[str]) -> bool:
        return self.resolve(path).exists()

    # ----------------------------------------------------------------- writes
    def edit_for(self, doc: TextDoc, new_text: str) -> FileEdit:
        """A FileEdit that replaces `doc` with `new_text`, guarded by the hash it was read with."""
        return FileEdit(doc.path, new_text, doc.hash)

    def apply(self, edits: list[FileEdit], *, operation: str, run_id: str | None = None) -> Applied:
        """Apply all edits or none: every edit is checked (paths, staleness, encodability) before
        the first byte is written; the journal records the old bytes; a failure mid-way restores
        the files already written."""
        plans = [self._plan(edit) for edit in edits]
        seen: set[Path] = set()
        for plan in plans:
            if plan.real in seen:
                raise StaleFileError(f"{plan.name}: more than one edit for the same file in one operation")
            seen.add(plan.real)
        applied = Applied(entry_id="")
        if not plans:
            return applied
        new_dirs = sorted({d for plan in plans for d in plan.new_dirs}, key=lambda d: (-len(d.parts), str(d)))
        entry = JournalEntry.new(operation=operation, run_id=run_id)
        entry.created_dirs = [self.display(d) for d in new_dirs]
        for plan in plans:
            entry.files.append(JournalFile(plan.name, plan.old_bytes, plan.new_hash, plan.mode))
            applied.before[plan.name] = plan.old_text
            applied.after[plan.name] = plan.new_text
        self.journal.record(entry)

        done: list[_Plan] = []
        try:
            for plan in plans:
                self._write_or_delete(plan.real, plan.new_bytes)
                done.append(plan)
        except BaseException:
            for plan in reversed(done):
                self._write_or_delete(plan.real, plan.old_bytes, mode=plan.mode)
            _remove_empty(new_dirs)
            self.journal.drop(entry.id)
            raise
        applied.entry_id = entry.id
        return applied

    def _plan(self, edit: FileEdit) -> _Plan:
        real = self.resolve(edit.path, for_write=True)
        name = self.display(real)
        if real == self.root or (real.exists() and not real.is_file()):
            raise NotAFileError(f"{name}: not a regular file")
        old_bytes = self.read_bytes(real) if real.exists() else None
        if edit.check_old:
            current = None if old_bytes is None else content_hash(old_bytes)
            if current != edit.old_hash:
                what = "was created" if edit.old_hash is None else ("was deleted" if current is None else "changed")
                raise StaleFileError(f"{name}: the file {what} since it was read; read it again")
        if edit.new_text is None and old_bytes is None:
            raise FileMissingError(f"{name}: cannot delete, no such file")
        fmt, old_raw, old_text = DEFAULT_FORMAT, None, None
        if old_bytes is not None:
            try:
                old_raw, fmt = decode_raw(old_bytes, name=name)
                old_text = normalise(old_raw)
            except BinaryFileError:  # a binary file being replaced or deleted: no text to show
                pass
        new_bytes = None if edit.new_text is None else encode(edit.new_text, fmt, name=name, original=old_raw)
        new_dirs: list[Path] = []
        if old_bytes is None:
            folder = real.parent
            while not folder.exists():
                new_dirs.append(folder)
                folder = folder.parent
            if not folder.is_dir():
                raise NotAFileError(f"{name}: {self.display(folder)} is a file, not a folder")
        mode = stat.S_IMODE(real.stat().st_mode) if old_bytes is not None else None
        return _Plan(real, name, old_bytes, new_bytes, old_text, edit.new_text, mode, new_dirs)

    def undo(self, entry_id: str | None = None, *, force: bool = False) -> JournalEntry:
        """Restore the files of one journal entry (the last one by default)."""
        entry = self.journal.get(entry_id) if entry_id else self.journal.last()
        self.undo_many([entry], force=force)
        return entry

    def undo_many(self, entries: list[JournalEntry], *, force: bool = False) -> None:
        """Undo several entries, newest first, as one: unless `force`, every file must still be
        what the entries left (counting the entries undone before it), or nothing is restored."""
        if not force:
            state: dict[str, str | None] = {}
            for entry in entries:
                for jf in entry.files:
                    if jf.path not in state:
                        real = self.resolve(jf.path, for_write=True)
                        state[jf.path] = content_hash(real.read_bytes()) if real.is_file() else None
                    if state[jf.path] != jf.new_hash:
                        raise StaleFileError(
                            f"{jf.path}: changed since operation {entry.id} ({entry.operation}); "
                            "undo refused so that later work is not lost (use --force to override)"
                        )
                    state[jf.path] = None if jf.old is None else content_hash(jf.old)
        for entry in entries:
            targets = [(self.resolve(jf.path, for_write=True), jf) for jf in entry.files]
            for real, jf in reversed(targets):
                self._write_or_delete(real, jf.old, mode=jf.mode)
            _remove_empty([self.resolve(d, for_write=True) for d in entry.created_dirs])
            self.journal.drop(entry.id)

    # ----------------------------------------------------------------- internals
    def _write_or_delete(self, real: Path, data: bytes | None, *, mode: int | None = None) -> None:
        if data is None:
            if real.exists() or real.is_symlink():
                real.unlink()
            return
        atomic_write(real, data, mode=mode)


@dataclass(slots=True)
class _Plan:
    """One checked edit, ready to write."""

    real: Path
    name: str
    old_bytes: bytes | None
    new_bytes: bytes | None
    old_text: str | None
    new_text: str | None
    mode: int | None
    new_dirs: list[Path]

    @property
    def new_hash(self) -> str | None:
        return None if self.new_bytes is None else content_hash(self.new_bytes)


def _remove_empty(folders: list[Path]) -> None:
    """Remove folders an operation created, deepest first, if they are still empty."""
    for folder in sorted(folders, key=lambda d: -len(d.parts)):
        with contextlib.suppress(OSError):  # not empty (someone put files there) or gone: leave it
            folder.rmdir()


def atomic_write(path: Path, data: bytes, *, mode: int | None = None) -> None:
    """Write `data` to `path` so that a crash at any moment leaves the old file or the new one:
    temp file in the same folder, fsync, rename over, folder fsync. An existing file's mode is
    kept; a new file gets the usual 0o666 minus the umask (applied by the kernel, no umask race)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if mode is None and path.exists():
        mode = stat.S_IMODE(path.stat().st_mode)
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOFOLLOW", 0)
    while True:
        tmp = path.parent / f".{path.name[:80]}.{secrets.token_hex(4)}{TEMP_SUFFIX}"
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
    dir_fd = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(dir_fd)
    finally:
        os.close(dir_fd)
