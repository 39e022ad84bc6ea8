"""WorkspaceEdit -> validated per-file edits, and applying text changes to a text.

The bridge never writes files: it returns `FileEdits` (ranges in code points, every one checked to be
inside the text the server saw and not overlapping another) and the caller applies them, e.g.
atomically through a journal, with `apply_changes`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple, Protocol

if TYPE_CHECKING:  # only converting a server's WorkspaceEdit needs the protocol types (loaded there);
    from lsprotocol import types as lsp  # applying text changes does not

from lsp_bridge.errors import InvalidEdit, StaleFile
from lsp_bridge.positions import Encoding, TextLines, to_units
from lsp_bridge.types import EditKind, FileEdits, Position, Range, TextChange
from lsp_bridge.uris import uri_to_path


class SeenDoc(NamedTuple):
    """A file as the server saw it: its text, the sha256 of its bytes, the version we sent (if open)."""

    lines: TextLines
    hash: str
    version: int | None = None


ReadSeen = Callable[[Path], "SeenDoc | None"]


class Change(Protocol):
    """Anything that replaces a range by a text: a TextChange, or a caller's own site type."""

    @property
    def range(self) -> Range: ...

    @property
    def new_text(self) -> str: ...


def _spans(text: str, changes: Sequence[Change]) -> list[tuple[int, int, str]]:
    lines = TextLines(text)
    spans: list[tuple[int, int, int, str]] = []
    for index, change in enumerate(changes):
        rng = change.range
        start, end = lines.offset(rng.start), lines.offset(rng.end)
        if end < start:
            raise InvalidEdit(f"edit range {rng.shown()} ends before it starts")
        spans.append((start, end, index, change.new_text))
    # Inserts at one point keep their array order (LSP rule); an insert sorts before a replacement
    # starting at the same point.
    spans.sort(key=lambda s: (s[0], s[1], s[2]))
    for before, after in zip(spans, spans[1:], strict=False):
        if after[0] < before[1]:
            raise InvalidEdit(
                f"edits overlap: {changes[before[2]].range.shown()} and {changes[after[2]].range.shown()}"
            )
    return [(start, end, new) for start, end, _, new in spans]


def validate_changes(text: str, changes: Sequence[Change]) -> None:
    """Raise InvalidEdit unless every change lies inside `text` and none overlap."""
    _spans(text, changes)


def apply_changes(text: str, changes: Sequence[Change]) -> str:
    """Validate `changes` against `text` (in range, non-overlapping) and apply them in one pass."""
    pieces: list[str] = []
    cursor = 0
    for start, end, new_text in _spans(text, changes):
        pieces.append(text[cursor:start])
        pieces.append(new_text)
        cursor = end
    pieces.append(text[cursor:])
    return "".join(pieces)


def _convert_range(lines: TextLines, rng: lsp.Range, encoding: Encoding, path: Path) -> Range:
    for pos in (rng.start, rng.end):
        line = lines.line(pos.line)
        if pos.line < len(lines.lines) and pos.character > to_units(line, len(line), encoding):
            raise InvalidEdit(
                f"{path}: edit at {pos.line + 1}:{pos.character + 1} (in the server's units) is past the end of its line "
                "(the server saw different text?)"
            )
    converted = lines.range_from_server(rng, encoding)
    return Range(converted.start, converted.end)


@dataclass
class _Pending:
    path: Path
    kind: EditKind
    lines: TextLines | None = None
    seen_hash: str | None = None
    new_path: Path | None = None
    changes: list[TextChange] = field(default_factory=list)
    has_text_edits: bool = False

    def freeze(self) -> FileEdits:
        if self.lines is not None:
            validate_changes(self.lines.text, self.changes)
        return FileEdits(self.path, list(self.changes), self.kind, self.new_path, self.seen_hash)


class _Builder:
    def __init__(self, read: ReadSeen, encoding: Encoding) -> None:
        self.read = read
        self.encoding = encoding
        self.order: list[_Pending] = []
        self.by_path: dict[Path, _Pending] = {}  # current path of a file -> its pending entry

    def _seen(self, path: Path) -> SeenDoc | None:
        return self.read(path)

    def text_edits(self, path: Path, edits: Sequence[lsp.TextEdit | lsp.AnnotatedTextEdit | lsp.SnippetTextEdit],
                   version: int | None) -> None:
        entry = self.by_path.get(path)
        if entry is None:
            seen = self._seen(path)
            if seen is None:
                raise InvalidEdit(f"{path}: the edit targets a file that does not exist")
            if version is not None and seen.version is not None and version != seen.version:
                raise StaleFile(f"{path}: the server edited version {version}, the current one is {seen.version}")
            entry = _Pending(path, "edit", seen.lines, seen.hash)
            self.order.append(entry)
            self.by_path[path] = entry
        if entry.kind == "delete":
            raise InvalidEdit(f"{path}: text edits for a file deleted by the same edit")
        if entry.has_text_edits:
            raise InvalidEdit(f"{path}: two separate groups of text edits for one file are not supported")
        assert entry.lines is not None
        entry.has_text_edits = True
        from lsprotocol import types as lsp

        for edit in edits:
            if isinstance(edit, lsp.SnippetTextEdit):
                raise InvalidEdit(f"{path}: snippet edits are not supported")
            rng = _convert_range(entry.lines, edit.range, self.encoding, path)
            entry.changes.append(TextChange(rng, edit.new_text))

    def _exists(self, path: Path) -> bool:
        entry = self.by_path.get(path)
        return entry.kind != "delete" if entry is not None else path.exists()

    def create(self, op: lsp.CreateFile) -> None:
        from lsprotocol import types as lsp

        path = uri_to_path(op.uri)
        options = op.options or lsp.CreateFileOptions()
        if self._exists(path) and not options.overwrite:
            if options.ignore_if_exists:
                return
            raise InvalidEdit(f"{path}: the edit creates a file that already exists")
        if path in self.by_path:
            raise InvalidEdit(f"{path}: creating a file touched earlier in the same edit is not supported")
        seen = self._seen(path)
        entry = _Pending(path, "create", TextLines(""), seen.hash if seen is not None else None)
        self.order.append(entry)
        self.by_path[path] = entry

    def rename(self, op: lsp.RenameFile) -> None:
        from lsprotocol import types as lsp

        old, new = uri_to_path(op.old_uri), uri_to_path(op.new_uri)
        options = op.options or lsp.RenameFileOptions()
        if self._exists(new) and not options.overwrite:
            if options.ignore_if_exists:
                return
            raise InvalidEdit(f"{new}: the edit renames a file onto one that already exists")
        entry = self.by_path.pop(old, None)
        if entry is None:
            seen = self._seen(old)
            if seen is None:
                raise InvalidEdit(f"{old}: the edit renames a file that does not exist")
            entry = _Pending(old, "rename", seen.lines, seen.hash, new_path=new)
            self.order.append(entry)
        elif entry.kind == "edit":
            entry.kind, entry.new_path = "rename", new
        elif entry.kind == "rename":
            entry.new_path = new
        else:
            raise InvalidEdit(f"{old}: renaming a file created or deleted by the same edit is not supported")
        self.by_path[new] = entry

    def delete(self, op: lsp.DeleteFile) -> None:
        path = uri_to_path(op.uri)
        if path.is_dir():
            raise InvalidEdit(f"{path}: deleting folders is not supported")
        seen = self._seen(path) if path not in self.by_path else None
        if path not in self.by_path and seen is None:
            if op.options is not None and op.options.ignore_if_not_exists:
                return
            raise InvalidEdit(f"{path}: the edit deletes a file that does not exist")
        if path in self.by_path:
            raise InvalidEdit(f"{path}: deleting a file edited by the same edit is not supported")
        assert seen is not None
        entry = _Pending(path, "delete", None, seen.hash)
        self.order.append(entry)
        self.by_path[path] = entry


def workspace_edit_to_file_edits(edit: lsp.WorkspaceEdit, *, read: ReadSeen,
                                 encoding: Encoding = "utf-16") -> list[FileEdits]:
    """Convert and validate a WorkspaceEdit (`changes` or `documentChanges`). `read(path)` gives the
    file as the server saw it, or None if it does not exist. Raises InvalidEdit / StaleFile."""
    from lsprotocol import types as lsp

    builder = _Builder(read, encoding)
    if edit.document_changes is not None:
        for change in edit.document_changes:
            if isinstance(change, lsp.TextDocumentEdit):
                builder.text_edits(uri_to_path(change.text_document.uri), change.edits,
                                   change.text_document.version)
            elif isinstance(change, lsp.CreateFile):
                builder.create(change)
            elif isinstance(change, lsp.RenameFile):
                builder.rename(change)
            elif isinstance(change, lsp.DeleteFile):
                builder.delete(change)
            else:  # pragma: no cover - lsprotocol's union is closed
                raise InvalidEdit(f"unsupported document change {type(change).__name__}")
    elif edit.changes:
        for uri, text_edits in edit.changes.items():
            builder.text_edits(uri_to_path(uri), text_edits, None)
    return [entry.freeze() for entry in builder.order]


def edit_range(line: int, start: int, end: int) -> Range:
    """A one-line range (handy in tests and callers)."""
    return Range(Position(line, start), Position(line, end))
