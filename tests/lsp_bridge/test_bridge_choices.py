"""The choices agent passes into the bridge (it keeps defaults of its own, since it never imports
agent): the folders never synced and the languageId of each suffix."""

from __future__ import annotations

from pathlib import Path

from lsp_bridge.documents import SKIP_DIRS, DocumentStore
from lsp_bridge.pool import SessionPool


def test_the_callers_skip_list_decides_which_folders_are_synced(tmp_path: Path) -> None:
    for folder in ("src", "gen", "build"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "m.py").write_text("x = 1\n")
    default = DocumentStore()
    default.take_snapshot(tmp_path, {".py": "python"}, 100)
    assert "build" in SKIP_DIRS and {p.parent.name for p in default.snapshot} == {"src", "gen"}
    chosen = DocumentStore(skip_dirs=frozenset({"gen"}))
    chosen.take_snapshot(tmp_path, {".py": "python"}, 100)
    assert {p.parent.name for p in chosen.snapshot} == {"src", "build"}


def test_the_pool_hands_its_languageids_and_skip_list_to_each_session(tmp_path: Path) -> None:
    pool = SessionPool(language_ids={"python": {".py": "python", ".pyw": "python"}}, skip_dirs=frozenset({"gen"}))
    try:
        session = pool.get(tmp_path, "python")  # nothing starts before the first request
        assert session.spec.language_id(Path("a.pyw")) == "python"
        assert session._files.skip_dirs == frozenset({"gen"})
        other = pool.get(tmp_path, "typescript")
        assert other.spec.language_id(Path("a.tsx")) == "typescriptreact"  # the spec's own table
    finally:
        pool.close_all()
