"""WorkspaceEdit conversion and validation, and apply_changes."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from lsprotocol import types as lsp

from lsp_bridge import InvalidEdit, Position, Range, StaleFile, TextChange, apply_changes, validate_changes
from lsp_bridge.documents import read_file
from lsp_bridge.edits import SeenDoc, workspace_edit_to_file_edits
from lsp_bridge.uris import path_to_uri


def change(line: int, start: int, end: int, text: str, end_line: int | None = None) -> TextChange:
    return TextChange(Range(Position(line, start), Position(line if end_line is None else end_line, end)), text)


def lsp_edit(line: int, start: int, end: int, text: str) -> lsp.TextEdit:
    return lsp.TextEdit(range=lsp.Range(start=lsp.Position(line=line, character=start),
                                        end=lsp.Position(line=line, character=end)), new_text=text)


def disk_reader(path: Path) -> SeenDoc | None:
    disk = read_file(path)
    return None if disk is None else SeenDoc(disk.lines, disk.hash)


def test_apply_changes_in_one_pass_any_order() -> None:
    text = "alpha beta\ngamma beta\n"
    changes = [change(1, 6, 10, "delta"), change(0, 6, 10, "delta"), change(0, 0, 0, "# ")]
    assert apply_changes(text, changes) == "# alpha delta\ngamma delta\n"


def test_inserts_at_one_point_keep_their_order() -> None:
    assert apply_changes("x", [change(0, 0, 0, "a"), change(0, 0, 0, "b")]) == "abx"


def test_multi_line_replacement_and_touching_edits() -> None:
    text = "one\ntwo\nthree\n"
    assert apply_changes(text, [change(0, 1, 1, "", end_line=2), change(2, 1, 5, "X")]) == "oX\n"


def test_overlapping_edits_are_rejected() -> None:
    with pytest.raises(InvalidEdit, match="overlap"):
        apply_changes("abcdef", [change(0, 0, 3, "x"), change(0, 2, 4, "y")])
    with pytest.raises(InvalidEdit, match="overlap"):
        validate_changes("abcdef", [change(0, 1, 5, "x"), change(0, 2, 2, "y")])  # insert inside a replacement


def test_out_of_range_and_reversed_edits_are_rejected() -> None:
    with pytest.raises(InvalidEdit, match="past the end"):
        apply_changes("one\ntwo", [change(5, 0, 1, "x")])
    with pytest.raises(InvalidEdit, match="ends before"):
        apply_changes("abcdef", [change(0, 4, 2, "x")])


def test_changes_map_with_emoji_uses_the_server_encoding(tmp_path: Path) -> None:
    target = tmp_path / "m.py"
    target.write_text('s = "🎉"; area_of(1)\n', encoding="utf-8")
    col16 = len('s = "🎉"; '.encode("utf-16-le")) // 2
    col8 = len('s = "🎉"; '.encode())
    for encoding, col in (("utf-16", col16), ("utf-8", col8)):
        edit = lsp.WorkspaceEdit(changes={path_to_uri(target): [lsp_edit(0, col, col + 7, "area")]})
        [result] = workspace_edit_to_file_edits(edit, read=disk_reader, encoding=encoding)  # type: ignore[arg-type]
        assert result.kind == "edit"
        assert result.seen_hash == hashlib.sha256(target.read_bytes()).hexdigest()
        assert apply_changes(target.read_text(), result.changes) == 's = "🎉"; area(1)\n'


def test_column_past_the_end_of_its_line_means_the_server_saw_other_text(tmp_path: Path) -> None:
    target = tmp_path / "m.py"
    target.write_text("short\n")
    edit = lsp.WorkspaceEdit(changes={path_to_uri(target): [lsp_edit(0, 3, 9, "x")]})
    with pytest.raises(InvalidEdit, match="past the end of its line"):
        workspace_edit_to_file_edits(edit, read=disk_reader)


def test_document_changes_with_create_rename_delete(tmp_path: Path) -> None:
    (tmp_path / "old.py").write_text("import gone\nvalue = 1\n")
    (tmp_path / "gone.py").write_text("x = 1\n")
    (tmp_path / "user.py").write_text("from old import value\n")
    uri = lambda name: path_to_uri(tmp_path / name)  # noqa: E731
    edit = lsp.WorkspaceEdit(document_changes=[
        lsp.TextDocumentEdit(text_document=lsp.OptionalVersionedTextDocumentIdentifier(uri=uri("user.py"), version=None),
                             edits=[lsp_edit(0, 5, 8, "new")]),
        lsp.RenameFile(old_uri=uri("old.py"), new_uri=uri("new.py")),
        lsp.TextDocumentEdit(text_document=lsp.OptionalVersionedTextDocumentIdentifier(uri=uri("new.py"), version=None),
                             edits=[lsp_edit(0, 0, 11, "")]),
        lsp.CreateFile(uri=uri("fresh.py")),
        lsp.TextDocumentEdit(text_document=lsp.OptionalVersionedTextDocumentIdentifier(uri=uri("fresh.py"), version=None),
                             edits=[lsp_edit(0, 0, 0, "fresh = True\n")]),
        lsp.DeleteFile(uri=uri("gone.py")),
    ])
    user, renamed, fresh, gone = workspace_edit_to_file_edits(edit, read=disk_reader)
    assert (user.kind, apply_changes("from old import value\n", user.changes)) == ("edit", "from new import value\n")
    assert renamed.kind == "rename" and renamed.path == tmp_path / "old.py" and renamed.new_path == tmp_path / "new.py"
    assert apply_changes("import gone\nvalue = 1\n", renamed.changes) == "\nvalue = 1\n"
    assert renamed.seen_hash == hashlib.sha256(b"import gone\nvalue = 1\n").hexdigest()
    assert (fresh.kind, fresh.seen_hash, apply_changes("", fresh.changes)) == ("create", None, "fresh = True\n")
    assert gone.kind == "delete" and gone.seen_hash == hashlib.sha256(b"x = 1\n").hexdigest()


def test_resource_operation_conflicts(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("a\n")
    (tmp_path / "b.py").write_text("b\n")
    uri = lambda name: path_to_uri(tmp_path / name)  # noqa: E731
    cases = [
        (lsp.CreateFile(uri=uri("a.py")), "already exists"),
        (lsp.RenameFile(old_uri=uri("a.py"), new_uri=uri("b.py")), "already exists"),
        (lsp.RenameFile(old_uri=uri("missing.py"), new_uri=uri("c.py")), "does not exist"),
        (lsp.DeleteFile(uri=uri("missing.py")), "does not exist"),
        (lsp.DeleteFile(uri=path_to_uri(tmp_path)), "folders"),
    ]
    for operation, message in cases:
        with pytest.raises(InvalidEdit, match=message):
            workspace_edit_to_file_edits(lsp.WorkspaceEdit(document_changes=[operation]), read=disk_reader)
    ignored = lsp.WorkspaceEdit(document_changes=[
        lsp.CreateFile(uri=uri("a.py"), options=lsp.CreateFileOptions(ignore_if_exists=True)),
        lsp.DeleteFile(uri=uri("missing.py"), options=lsp.DeleteFileOptions(ignore_if_not_exists=True)),
    ])
    assert workspace_edit_to_file_edits(ignored, read=disk_reader) == []


def test_edits_to_a_missing_file_and_non_file_uris_are_rejected(tmp_path: Path) -> None:
    with pytest.raises(InvalidEdit, match="does not exist"):
        workspace_edit_to_file_edits(lsp.WorkspaceEdit(changes={path_to_uri(tmp_path / "no.py"): []}),
                                     read=disk_reader)
    with pytest.raises(InvalidEdit, match="not a local file"):
        workspace_edit_to_file_edits(lsp.WorkspaceEdit(changes={"untitled:1": []}), read=disk_reader)


def test_version_mismatch_is_stale(tmp_path: Path) -> None:
    target = tmp_path / "m.py"
    target.write_text("abc\n")
    disk = read_file(target)
    assert disk is not None
    edit = lsp.WorkspaceEdit(document_changes=[lsp.TextDocumentEdit(
        text_document=lsp.OptionalVersionedTextDocumentIdentifier(uri=path_to_uri(target), version=3),
        edits=[lsp_edit(0, 0, 1, "x")])])
    with pytest.raises(StaleFile, match="version 3"):
        workspace_edit_to_file_edits(edit, read=lambda _p: SeenDoc(disk.lines, disk.hash, 4))
    [ok] = workspace_edit_to_file_edits(edit, read=lambda _p: SeenDoc(disk.lines, disk.hash, 3))
    assert ok.changes == [change(0, 0, 1, "x")]


def test_overlap_inside_a_workspace_edit_is_caught_before_anything_is_returned(tmp_path: Path) -> None:
    target = tmp_path / "m.py"
    target.write_text("abcdef\n")
    edit = lsp.WorkspaceEdit(changes={path_to_uri(target): [lsp_edit(0, 0, 4, "x"), lsp_edit(0, 3, 5, "y")]})
    with pytest.raises(InvalidEdit, match="overlap"):
        workspace_edit_to_file_edits(edit, read=disk_reader)
