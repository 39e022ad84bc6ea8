"""The repo symbol index: find by name / name path with tolerance, exact invalidation of the
on-disk cache (modified, deleted, added files; same-size changes; racy timestamps), gitignore,
parallel parsing, and a cache that survives sessions but not a change of queries."""

from __future__ import annotations

import os
import sqlite3
import time
from pathlib import Path

import pytest

from agent.bootstrap import open_context
from agent.config import Settings, SyntaxSettings
from agent.errors import OutsideWorkspaceError
from agent.services import get_index
from agent.syntax import SymbolIndex
from agent.syntax.index import INDEX_FILE
from agent.syntax.store import IndexStore
from agent.workspace import Workspace

MODELS = '''class Model:
    def save(self, force=False):
        pass

    class Meta:
        ordering = []


def get_user_model():
    return Model
'''
VIEWS = '''from .models import Model


class ModelView:
    def save(self):
        pass


def render_page(request):
    return None
'''
UI = '''export interface Props { id: string }
export function renderPage(props: Props): string { return props.id; }
export class Widget { save(): void {} }
'''


def make_tree(root: Path) -> None:
    (root / "app").mkdir()
    (root / "app" / "__init__.py").write_text("")
    (root / "app" / "models.py").write_text(MODELS)
    (root / "app" / "views.py").write_text(VIEWS)
    (root / "web").mkdir()
    (root / "web" / "ui.ts").write_text(UI)
    (root / "notes.txt").write_text("class NotCode: pass\n")


def new_index(root: Path, **settings: object) -> SymbolIndex:
    """The index of the workspace at `root`, cached in its .codeagent/ folder."""
    return SymbolIndex.for_workspace(Workspace(root), SyntaxSettings.model_validate(settings))


def bump_mtime(path: Path, seconds: float = 10.0) -> None:
    st = path.stat()
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + int(seconds * 1e9)))


@pytest.fixture
def tree(root: Path) -> Path:
    make_tree(root)
    return root


def test_find_by_name_and_name_path(tree: Path) -> None:
    index = new_index(tree)
    [model] = index.find("Model", limit=1)
    assert (model.path, model.kind, model.name_path) == ("app/models.py", "class", "Model")
    assert (model.line, model.column) == (1, 7)  # the name token
    assert (model.start_line, model.start_column, model.end_line, model.end_column) == (1, 1, 6, 22)
    assert model.signature == "class Model" and model.score == 1.0 and model.language == "python"
    assert model.location.path == "app/models.py" and model.location.end_column == 12

    saves = index.find("save")
    assert [m.name_path for m in saves] == ["Model.save", "ModelView.save", "Widget.save"]
    [qualified] = index.find("ModelView.save")
    assert (qualified.path, qualified.line, qualified.column) == ("app/views.py", 5, 9)
    [by_module] = index.find("models.get_user_model")
    assert by_module.path == "app/models.py" and by_module.score > 0.95
    [package_path] = index.find("app.models.Model.save")
    assert package_path.name_path == "Model.save"
    [nested] = index.find("Model.Meta")
    assert nested.kind == "class"


def test_find_tolerates_case_missing_qualifiers_and_typos(tree: Path) -> None:
    index = new_index(tree)
    assert index.find("model.SAVE")[0].name_path == "Model.save"
    assert index.find("getusermodel")[0].name == "get_user_model"
    assert index.find("get_usr_model")[0].name == "get_user_model"  # one letter missing
    assert index.find("Modle.save")[0].name_path == "Model.save"  # a transposition in the qualifier
    wrong_class = index.find("Nothing.render_page")  # unknown qualifier: the name alone, at half score
    assert wrong_class[0].name == "render_page" and wrong_class[0].score <= 0.5
    assert index.find("render_page()")[0].name == "render_page"
    # JS/TS camelCase and Python snake_case match each other only as "normalized" (lower score)
    both = index.find("render_page")
    assert [(m.name, m.score) for m in both][:2] == [("render_page", 1.0), ("renderPage", 0.85)]
    assert index.find("zzzz") == []
    assert index.find("   ") == []


def test_find_filters_kind_and_folder(tree: Path) -> None:
    index = new_index(tree)
    assert [m.path for m in index.find("save", kind="method", under="web")] == ["web/ui.ts"]
    assert index.find("Props", kind="interface")[0].path == "web/ui.ts"
    assert index.find("Props", kind="class") == []
    assert [m.path for m in index.find("save", under="app/views.py")] == ["app/views.py"]


def test_only_supported_files_and_gitignore(tree: Path) -> None:
    (tree / ".gitignore").write_text("build/\n*.gen.py\n")
    (tree / "build").mkdir()
    (tree / "build" / "out.py").write_text("def built(): pass\n")
    (tree / "app" / "schema.gen.py").write_text("def generated(): pass\n")
    (tree / "node_modules" / "lib").mkdir(parents=True)
    (tree / "node_modules" / "lib" / "index.js").write_text("function vendored() {}\n")
    index = new_index(tree)
    stats = index.refresh()
    assert index.files() == ["app/__init__.py", "app/models.py", "app/views.py", "web/ui.ts"]
    assert stats.files == 4 and stats.parsed == 4
    assert index.find("built") == [] and index.find("generated") == [] and index.find("vendored") == []
    assert index.find("NotCode") == []


def test_cache_persists_and_warm_refresh_parses_nothing(tree: Path) -> None:
    first = new_index(tree)
    assert first.refresh().parsed == 4
    assert first.refresh().parsed == 0
    first.close()
    assert (tree / ".codeagent" / INDEX_FILE).is_file()
    assert (tree / ".codeagent" / ".gitignore").read_text().strip().endswith("*")
    second = new_index(tree)
    stats = second.refresh()
    assert (stats.parsed, stats.removed, stats.files) == (0, 0, 4)
    assert second.find("ModelView")[0].path == "app/views.py"  # symbols come from the cache


def test_modified_deleted_and_added_files(tree: Path) -> None:
    index = new_index(tree)
    index.refresh()
    assert index.find("render_page")
    views = tree / "app" / "views.py"
    views.write_text(VIEWS.replace("render_page", "show_page"))
    (tree / "app" / "models.py").unlink()
    (tree / "app" / "forms.py").write_text("class ModelForm:\n    pass\n")
    stats = index.refresh()
    assert (stats.parsed, stats.removed) == (2, 1)
    assert [m.name for m in index.find("render_page")] == ["renderPage"]  # only the TS one is left
    assert index.find("show_page")[0].path == "app/views.py"
    assert index.find("get_user_model") == []
    assert index.find("ModelForm")[0].path == "app/forms.py"
    index.close()
    again = new_index(tree)  # the cache on disk says the same
    assert again.refresh().parsed == 0
    assert again.find("get_user_model") == [] and again.find("show_page")


def test_same_size_change_with_new_mtime_is_reparsed(tree: Path) -> None:
    index = new_index(tree)
    index.refresh()
    models = tree / "app" / "models.py"
    models.write_text(MODELS.replace("get_user_model", "get_item_model"))  # same length
    bump_mtime(models)
    assert index.refresh().parsed == 1
    assert index.find("get_item_model")[0].path == "app/models.py"


def test_racy_same_stat_change_is_caught_by_content(tree: Path) -> None:
    """An in-place rewrite within the same timestamp and size: only the bytes tell."""
    models = tree / "app" / "models.py"
    future = time.time_ns() + 60 * 10**9  # a timestamp not yet in the past cannot be trusted, whatever the load
    os.utime(models, ns=(future, future))
    index = new_index(tree)
    index.refresh()
    st = models.stat()
    with open(models, "r+b") as fh:  # same inode, same size
        fh.write(MODELS.replace("get_user_model", "get_item_model").encode())
    os.utime(models, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert models.stat().st_mtime_ns == st.st_mtime_ns and models.stat().st_size == st.st_size
    stats = index.refresh()
    assert stats.parsed == 1
    assert index.find("get_item_model") and not index.find("get_user_model")


def test_old_unchanged_files_are_not_reread(tree: Path) -> None:
    old = time.time() - 3600
    for path in tree.rglob("*.*"):
        os.utime(path, (old, old))
    index = new_index(tree)
    index.refresh()
    stats = index.refresh()
    assert (stats.parsed, stats.verified) == (0, 0)  # trusted by stat alone


def test_refresh_of_a_subfolder_keeps_the_rest(tree: Path) -> None:
    index = new_index(tree)
    index.refresh()
    (tree / "web" / "ui.ts").unlink()
    stats = index.refresh("app")
    assert stats.removed == 0 and "web/ui.ts" in index.files()
    assert index.refresh("web").removed == 1


def test_refresh_outside_the_tree_is_refused(tree: Path) -> None:
    with pytest.raises(OutsideWorkspaceError):
        new_index(tree).refresh("../elsewhere")


def test_query_or_grammar_change_drops_the_cache(tree: Path) -> None:
    db = tree / ".codeagent" / INDEX_FILE
    index = new_index(tree)
    index.refresh()
    index.close()
    store = IndexStore(db, "other-fingerprint")
    assert list(store.load_keys()) == []
    store.close()
    assert new_index(tree).refresh().parsed == 4


def test_corrupt_cache_is_rebuilt(tree: Path) -> None:
    db = tree / ".codeagent" / INDEX_FILE
    db.parent.mkdir(parents=True)
    db.write_bytes(b"this is not a database" * 100)
    index = new_index(tree)
    stats = index.refresh()
    assert stats.parsed == 4 and index.store.path == db
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT count(*) FROM files").fetchone()[0] == 4


def test_unwritable_cache_folder_keeps_the_index_in_memory(tree: Path) -> None:
    blocker = tree / "blocked"
    blocker.write_text("a file where a folder should be")
    index = SymbolIndex(tree, SyntaxSettings(), cache_path=blocker / "symbols.sqlite")
    stats = index.refresh()
    assert stats.parsed == 4 and index.store.path is None
    assert stats.problem is not None and "in memory" in stats.problem
    assert index.find("Model")


def test_a_locked_cache_degrades_to_memory_without_losing_symbols(tree: Path, tmp_path: Path) -> None:
    db = tmp_path / "locked.sqlite"
    index = SymbolIndex(tree, SyntaxSettings(), cache_path=db, lock_timeout=0.2)
    index.refresh()
    other = sqlite3.connect(db, isolation_level=None)
    other.execute("BEGIN EXCLUSIVE")  # another process holds the write lock
    try:
        (tree / "app" / "views.py").write_text(VIEWS.replace("render_page", "show_page"))
        (tree / "app" / "extra.py").write_text("class Extra:\n    pass\n")
        stats = index.refresh()
        assert stats.parsed == 2 and stats.problem is not None and "could not write the index cache" in stats.problem
        assert index.find("show_page")[0].path == "app/views.py"  # from memory
        assert index.find("Extra")[0].path == "app/extra.py"
        assert [m.name for m in index.find("render_page")] == ["renderPage"]  # the stale row is not believed
    finally:
        other.execute("ROLLBACK")
        other.close()
    (tree / "app" / "extra.py").write_text("class Extra2:\n    pass\n")
    bump_mtime(tree / "app" / "extra.py")
    index.refresh()
    assert index.find("Extra2") and index.find("show_page")


def test_parallel_parsing_matches_sequential(tree: Path, tmp_path: Path) -> None:
    for i in range(12):
        (tree / "app" / f"gen_{i}.py").write_text(f"class Gen{i}:\n    def run_{i}(self):\n        pass\n")
    sequential = SymbolIndex(tree, SyntaxSettings(index_workers=1), cache_path=tmp_path / "seq.sqlite")
    parallel = SymbolIndex(tree, SyntaxSettings(index_workers=2, parallel_min_files=2),
                           cache_path=tmp_path / "par.sqlite")
    seq_stats, par_stats = sequential.refresh(), parallel.refresh()
    assert seq_stats.workers == 1 and par_stats.workers == 2 and par_stats.problem is None
    assert par_stats.parsed == seq_stats.parsed == 16
    for path in sequential.files():
        assert parallel.file_entries(path) == sequential.file_entries(path)
    assert parallel.find("Gen7.run_7")[0].path == "app/gen_7.py"


def test_large_binary_and_non_utf8_files(tree: Path) -> None:
    (tree / "big.py").write_text("x = 1\n" * 400)
    (tree / "blob.py").write_bytes(b"\x00\x01\x02binary\xff\xfe")
    (tree / "latin.py").write_bytes("def café():\n    return 'é'\n".encode("latin-1"))
    index = new_index(tree, max_file_bytes=1024)
    index.refresh()
    assert index.record("big.py") is not None and index.record("big.py").skipped == "larger than 1024 bytes"  # type: ignore[union-attr]
    assert index.record("blob.py").skipped == "not text"  # type: ignore[union-attr]
    [cafe] = index.find("café")
    assert (cafe.path, cafe.line, cafe.column) == ("latin.py", 1, 5)


def test_get_index_is_a_shared_service(root: Path) -> None:
    make_tree(root)
    with open_context(root, settings=Settings()) as ctx:
        index = get_index(ctx)
        assert get_index(ctx) is index
        assert index.find("Model")[0].path == "app/models.py"
        assert index.store.path == root / ".codeagent" / INDEX_FILE
    with open_context(root, settings=Settings(syntax=SyntaxSettings(index_cache=False))) as ctx:
        assert get_index(ctx).store.path is None
