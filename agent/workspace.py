"""The workspace: one root folder, safe path resolution, text reads, atomic journaled writes.

Every path a model or a user gives goes through `Workspace.resolve`, which refuses anything whose
real path (symlinks, `..`, `/proc/self/root` all resolved) is not inside the root's real path.
Every write goes through `Workspace.apply`, which checks all edits first, records the previous
bytes in the journal, then writes each file atomically (temp file, fsync, rename, mode kept).
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from .atomic import TEMP_SUFFIX, atomic_write, disk_hash, remove_empty
from .configpaths import PROJECT_CONFIG
from .errors import (
    BinaryFileError,
    FileMissingError,
    FileTooLargeError,
    JournalError,
    NotAFileError,
    OutsideWorkspaceError,
    ProtectedPathError,
    StaleFileError,
    UnauthenticatedEntryError,
    WorkspaceError,
)
from .journal import Journal, JournalEntry, JournalFile
from .journal_auth import JournalKey
from .recovery import recover
from .result import FileEdit, content_hash
from .textcodec import DEFAULT_FORMAT, TextFormat, decode, decode_raw, encode, normalise

TOOL_DIR = ".codeagent"
DEFAULT_MAX_READ_BYTES = 10 * 1024 * 1024
_PROTECTED_DIRS = (".git", TOOL_DIR)
__all__ = ["TEMP_SUFFIX", "Applied", "TextDoc", "Workspace", "atomic_write"]


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

    def __init__(self, root: str | os.PathLike[str], *, max_read_bytes: int = DEFAULT_MAX_READ_BYTES,
                 journal_key: Path | None = None):
        real = Path(os.path.realpath(os.fspath(root)))
        if not real.is_dir():
            raise NotAFileError(f"workspace root {os.fspath(root)!r} is not a folder")
        self.root = real
        self.max_read_bytes = max_read_bytes
        self.tool_dir = self.root / TOOL_DIR
        self.journal = Journal(self.tool_dir / "journal", root=self.root, key=JournalKey(journal_key))
        self.recovered: list[str] = []  # notes on interrupted operations this workspace settled

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

    def apply(self, edits: list[FileEdit], *, operation: str, run_id: str | None = None,
              on_file_written: Callable[[str, int], None] | None = None) -> Applied:
        """Apply all edits or none: every edit is checked (paths, staleness, encodability) before
        the first byte is written; the journal records the old bytes, then each file is re-checked
        just before it is replaced and marked in the journal once it is; a failure (or a file
        someone else changed meanwhile) restores the files already written.

        `on_file_written(path, count)` is called after each file is in place (a progress seam)."""
        plans = [self._plan(edit) for edit in edits]
        seen: set[Path] = set()
        for plan in plans:
            if plan.real in seen:
                raise StaleFileError(f"{plan.name}: more than one edit for the same file in one operation")
            seen.add(plan.real)
        if not plans:
            return Applied(entry_id="")
        # planned without the lock (a refused edit leaves no trace, not even .codeagent/); each file
        # is re-checked under it just before it is replaced, so another writer meanwhile is caught
        with self.journal.locked():  # no other codeagent process writes meanwhile
            self.recover()
            return self._write_plans(plans, operation=operation, run_id=run_id, on_file_written=on_file_written)

    def _write_plans(self, plans: list[_Plan], *, operation: str, run_id: str | None,
                     on_file_written: Callable[[str, int], None] | None) -> Applied:
        applied = Applied(entry_id="")
        new_dirs = sorted({d for plan in plans for d in plan.new_dirs}, key=lambda d: (-len(d.parts), str(d)))
        entry = JournalEntry.new(operation=operation, run_id=run_id)
        entry.created_dirs = [self.display(d) for d in new_dirs]
        for plan in plans:
            entry.files.append(JournalFile(plan.name, plan.old_bytes, plan.new_hash, plan.mode))
            applied.before[plan.name] = plan.old_text
            applied.after[plan.name] = plan.new_text
        self.journal.begin(entry)

        done: list[_Plan] = []
        try:
            for plan in plans:
                # the plan's staleness check ran before the journal was written; an editor or a
                # command may have changed the file since: never overwrite that silently
                if disk_hash(plan.real) != plan.old_hash:
                    raise StaleFileError(f"{plan.name}: changed by someone else while this operation was being "
                                         "written; nothing was changed (read it again)")
                self._write_or_delete(plan.real, plan.new_bytes)
                self.journal.mark(entry.id, "w", plan.name)
                done.append(plan)
                if on_file_written is not None:
                    on_file_written(plan.name, len(done))
        except BaseException as exc:
            kept = self._roll_back(entry.id, done)
            remove_empty(new_dirs)
            self.journal.drop(entry.id)
            if kept and isinstance(exc, Exception):
                raise StaleFileError(f"{exc}; also changed by someone else since written, so kept as they are: "
                                     f"{', '.join(kept)}") from exc
            raise
        self.journal.finish(entry.id)
        applied.entry_id = entry.id
        return applied

    def _roll_back(self, entry_id: str, done: list[_Plan]) -> list[str]:
        """Restore the files an aborted operation wrote (newest first); a file someone changed after
        we wrote it is left as they made it. Returns those."""
        kept: list[str] = []
        for plan in reversed(done):
            if disk_hash(plan.real) != plan.new_hash:
                kept.append(plan.name)
                continue
            self._write_or_delete(plan.real, plan.old_bytes, mode=plan.mode)
            self.journal.mark(entry_id, "r", plan.name)
        return kept

    def recover(self) -> list[str]:
        """Settle operations a crash interrupted (see recovery.py); notes on what was found.
        Runs before every apply and undo; call it yourself to recover without writing."""
        if not self.journal.folder.is_dir():
            return []  # nothing was ever journaled here (and a read-only use creates nothing)
        with self.journal.locked():
            if not self.journal.interrupted() and not self.journal.leftover_temps():
                return []
            notes = recover(self.journal, lambda p: self.resolve(p, for_write=True))
            self.recovered.extend(notes)
            return notes

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
        if not self.journal.folder.is_dir():
            raise JournalError("nothing to undo: the edit journal is empty")
        with self.journal.locked():
            self.recover()
            entry = self.journal.get(entry_id) if entry_id else self.journal.last()
            self.undo_many([entry], force=force)
            return entry

    def undo_run(self, run_id: str, *, force: bool = False) -> list[JournalEntry]:
        """Undo every entry of one agent run, newest first, as one."""
        if not self.journal.folder.is_dir():
            return []
        with self.journal.locked():
            self.recover()
            refused = self.journal.unauthenticated_for(run_id)
            if refused:  # a forged entry claiming this run: refuse the whole undo, and say which
                last = refused[-1]
                raise UnauthenticatedEntryError(last.problem or f"journal entry {last.id} is unreadable")
            entries = self.journal.for_run(run_id)
            if entries:
                self.undo_many(entries, force=force)
            return entries

    def undo_many(self, entries: list[JournalEntry], *, force: bool = False) -> None:
        """Undo several entries, newest first, as one: unless `force`, every file must still be
        what the entries left (counting the entries undone before it), or nothing is restored.
        Each entry is re-read and verified from disk (its MAC) and every path re-validated before
        anything is written; a file already back to its old bytes is left alone."""
        with self.journal.locked():
            self.recover()
            verified = [self.journal.get(e.id) for e in entries]  # never the caller's objects
            plans = [_UndoPlan(entry, [(self.resolve(jf.path, for_write=True), jf) for jf in entry.files],
                               [self.resolve(d, for_write=True) for d in entry.created_dirs]) for entry in verified]
            state: dict[Path, str | None] = {}
            for plan in plans:
                for real, jf in plan.targets:
                    current = state[real] if real in state else disk_hash(real)
                    old_hash = None if jf.old is None else content_hash(jf.old)
                    if current == old_hash:
                        plan.skip.add(real)  # already restored (an interrupted undo or rollback)
                    elif current != jf.new_hash and not force:
                        raise StaleFileError(
                            f"{jf.path}: changed since operation {plan.entry.id} ({plan.entry.operation}); "
                            "undo refused so that later work is not lost (use --force to override)"
                        )
                    state[real] = old_hash
            for plan in plans:
                self.journal.mark(plan.entry.id, "u")  # a crash from here on is an interrupted undo
                for real, jf in reversed(plan.targets):
                    if real not in plan.skip:
                        self._write_or_delete(real, jf.old, mode=None if jf.mode is None else jf.mode & 0o777)
                remove_empty(plan.dirs)
                self.journal.drop(plan.entry.id)

    # ----------------------------------------------------------------- internals
    def _write_or_delete(self, real: Path, data: bytes | None, *, mode: int | None = None) -> None:
        if data is None:
            if real.exists() or real.is_symlink():
                real.unlink()
            return
        atomic_write(real, data, mode=mode)


@dataclass(slots=True)
class _UndoPlan:
    """One verified entry to undo: its files resolved, the folders it made, the files to leave."""

    entry: JournalEntry
    targets: list[tuple[Path, JournalFile]]
    dirs: list[Path]
    skip: set[Path] = field(default_factory=set)


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

    @property
    def old_hash(self) -> str | None:
        return None if self.old_bytes is None else content_hash(self.old_bytes)
