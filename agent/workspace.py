"""The workspace: one root folder, safe path resolution, text reads, atomic journaled writes.

Every path a model or a user gives goes through `Workspace.resolve`, which refuses anything whose
real path (symlinks, `..`, `/proc/self/root` all resolved) is not inside the root's real path.
Every write goes through `Workspace.apply`, which checks all edits first, records the previous
bytes in the journal, then writes each file atomically (temp file, fsync, rename, mode kept).
"""

from __future__ import annotations

import os
import stat
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from .errors import (
    FileMissingError,
    FileTooLargeError,
    NotAFileError,
    OutsideWorkspaceError,
    ProtectedPathError,
    StaleFileError,
)
from .journal import Journal, JournalEntry, JournalFile
from .result import FileEdit, content_hash
from .textcodec import DEFAULT_FORMAT, TextFormat, decode, encode

TOOL_DIR = ".codeagent"
DEFAULT_MAX_READ_BYTES = 10 * 1024 * 1024
_PROTECTED_DIRS = (".git", TOOL_DIR)


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
        anything outside the root. With `for_write`, also refuses .git/ and the tool folder."""
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
        real = Path(os.path.realpath(candidate))
        if real != self.root and self.root not in real.parents:
            raise OutsideWorkspaceError(
                f"path {raw!r} resolves to {str(real)!r}, outside the workspace {str(self.root)!r}"
            )
        if for_write:
            rel_parts = real.relative_to(self.root).parts
            if rel_parts and rel_parts[0] in _PROTECTED_DIRS or ".git" in rel_parts:
                raise ProtectedPathError(f"path {raw!r} is inside {rel_parts[0]}/, which tools never write")
        return real

    def rel(self, path: str | os.PathLike[str]) -> str:
        """The workspace-relative, "/"-separated form of a path inside the root."""
        real = self.resolve(path)
        rel = real.relative_to(self.root).as_posix()
        return rel or "."

    # ----------------------------------------------------------------- reads
    def read_bytes(self, path: str | os.PathLike[str]) -> bytes:
        real = self.resolve(path)
        name = self._display(real)
        if not real.exists():
            raise FileMissingError(f"{name}: no such file")
        if not real.is_file():
            raise NotAFileError(f"{name}: not a regular file")
        size = real.stat().st_size
        if size > self.max_read_bytes:
            raise FileTooLargeError(
                f"{name}: {size} bytes is over the read limit of {self.max_read_bytes} bytes"
            )
        return real.read_bytes()

    def read(self, path: str | os.PathLike[str]) -> TextDoc:
        """Read and decode a text file."""
        real = self.resolve(path)
        data = self.read_bytes(real)
        name = self._display(real)
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
        plans: list[tuple[Path, FileEdit, bytes | None, bytes | None, TextFormat]] = []
        seen: set[Path] = set()
        applied = Applied(entry_id="")
        for edit in edits:
            real = self.resolve(edit.path, for_write=True)
            name = self._display(real)
            if real in seen:
                raise StaleFileError(f"{name}: more than one edit for the same file in one operation")
            seen.add(real)
            if real.exists() and not real.is_file():
                raise NotAFileError(f"{name}: not a regular file")
            old_bytes = self.read_bytes(real) if real.exists() else None
            if edit.check_old:
                current = None if old_bytes is None else content_hash(old_bytes)
                if current != edit.old_hash:
                    what = "was created" if edit.old_hash is None else (
                        "was deleted" if current is None else "changed")
                    raise StaleFileError(f"{name}: the file {what} since it was read; read it again")
            fmt = DEFAULT_FORMAT
            old_text: str | None = None
            if old_bytes is not None:
                try:
                    old_text, fmt = decode(old_bytes, name=name)
                except Exception:  # a binary file being replaced or deleted: no text to show
                    old_text = None
            new_bytes = None if edit.new_text is None else encode(edit.new_text, fmt, name=name)
            if edit.new_text is None and old_bytes is None:
                raise FileMissingError(f"{name}: cannot delete, no such file")
            plans.append((real, edit, old_bytes, new_bytes, fmt))
            applied.before[name] = old_text
            applied.after[name] = edit.new_text

        entry = JournalEntry.new(operation=operation, run_id=run_id)
        for real, _edit, old_bytes, new_bytes, _fmt in plans:
            entry.files.append(
                JournalFile(
                    path=self._display(real),
                    old=old_bytes,
                    new_hash=None if new_bytes is None else content_hash(new_bytes),
                    mode=stat.S_IMODE(real.stat().st_mode) if old_bytes is not None else None,
                )
            )
        self.journal.record(entry)

        done: list[tuple[Path, bytes | None]] = []
        try:
            for real, _edit, old_bytes, new_bytes, _fmt in plans:
                self._write_or_delete(real, new_bytes)
                done.append((real, old_bytes))
        except BaseException:
            for real, old_bytes in reversed(done):
                self._write_or_delete(real, old_bytes)
            self.journal.drop(entry.id)
            raise
        applied.entry_id = entry.id
        return applied

    def undo(self, entry_id: str | None = None, *, force: bool = False) -> JournalEntry:
        """Restore the files of one journal entry (the last one by default)."""
        entry = self.journal.get(entry_id) if entry_id else self.journal.last()
        for jf in entry.files:
            real = self.resolve(jf.path, for_write=True)
            if not force:
                current = content_hash(real.read_bytes()) if real.is_file() else None
                if current != jf.new_hash:
                    raise StaleFileError(
                        f"{jf.path}: changed since operation {entry.id} ({entry.operation}); "
                        "undo refused so that later work is not lost (use --force to override)"
                    )
        for jf in reversed(entry.files):
            self._write_or_delete(self.resolve(jf.path, for_write=True), jf.old, mode=jf.mode)
        self.journal.drop(entry.id)
        return entry

    # ----------------------------------------------------------------- internals
    def _display(self, real: Path) -> str:
        return real.relative_to(self.root).as_posix() or "."

    def _write_or_delete(self, real: Path, data: bytes | None, *, mode: int | None = None) -> None:
        if data is None:
            if real.exists():
                real.unlink()
            return
        atomic_write(real, data, mode=mode)


def atomic_write(path: Path, data: bytes, *, mode: int | None = None) -> None:
    """Write `data` to `path` so that a crash at any moment leaves the old file or the new one:
    temp file in the same folder, fsync, rename over, folder fsync. The file's mode is kept."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if mode is None:
        mode = stat.S_IMODE(path.stat().st_mode) if path.exists() else 0o666 & ~_umask()
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    dir_fd = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(dir_fd)
    finally:
        os.close(dir_fd)


def _umask() -> int:
    current = os.umask(0)
    os.umask(current)
    return current
