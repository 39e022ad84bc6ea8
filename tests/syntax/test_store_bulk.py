"""A whole tree written into an empty index cache builds the cache's lookup by name once, at the
end (store.py `defer_name_lookup`): real files, a real SQLite file, real worker processes."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from agent.config import SyntaxSettings
from agent.syntax import SymbolIndex
from agent.syntax.index import IN_PROCESS_BATCH
from agent.syntax.languages import fingerprint
from agent.syntax.store import IndexStore

FILES = IN_PROCESS_BATCH + 20


def has_name_lookup(db: Path) -> bool:
    with sqlite3.connect(db) as con:
        return con.execute("SELECT 1 FROM sqlite_master WHERE type='index' AND name='names_by_norm'").fetchone() \
            is not None


def write_tree(root: Path, count: int) -> None:
    for i in range(count):
        folder = root / f"p{i % 7}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"m{i}.py").write_text(f"def f{i}():\n    return {i}\n\nclass C{i}:\n    X_{i} = 1\n")


def test_a_cold_build_defers_the_lookup_by_name_and_builds_it_at_the_end(tmp_path: Path) -> None:
    root, db = tmp_path / "ws", tmp_path / "cache.sqlite"
    write_tree(root, FILES)
    seen: list[bool] = []

    @contextmanager
    def watch(_total: int, _wanted: bool | None) -> Iterator[Callable[[int], None]]:
        yield lambda _count: seen.append(has_name_lookup(db))  # called while the parse goes on

    index = SymbolIndex(root, SyntaxSettings(), cache_path=db, show_progress=watch)
    try:
        stats = index.refresh()
        assert (stats.parsed, stats.problem) == (FILES, None)
        assert seen and not any(seen), seen  # no index by name while the rows went in
        assert has_name_lookup(db)
        [hit] = index.find("f123")
        assert (hit.path, hit.line) == ("p4/m123.py", 1)
        (root / "p0" / "m0.py").write_text("def renamed():\n    pass\n")  # a store with rows: no deferral
        seen.clear()
        more = [root / "p1" / f"n{i}.py" for i in range(FILES)]
        for path in more:
            path.write_text("def g():\n    pass\n")
        assert index.refresh().parsed == FILES + 1
        assert seen and all(seen), seen
        assert [h.path for h in index.find("renamed")] == ["p0/m0.py"] and not index.find("f0")
    finally:
        index.close()
    with sqlite3.connect(db) as con:  # every name row is found through the index, as before
        assert con.execute("SELECT count(*) FROM names INDEXED BY names_by_norm WHERE norm = 'g'").fetchone() \
            == (FILES,)


def test_a_store_left_without_its_lookup_gets_it_back_when_opened(tmp_path: Path) -> None:
    db = tmp_path / "cache.sqlite"
    store = IndexStore(db, fingerprint())
    assert store.defer_name_lookup()  # empty: dropped ...
    store.close()  # ... and the process stops before the end
    assert not has_name_lookup(db)
    IndexStore(db, fingerprint()).close()
    assert has_name_lookup(db)


def test_a_store_with_rows_keeps_its_lookup(tmp_path: Path) -> None:
    root, db = tmp_path / "ws", tmp_path / "cache.sqlite"
    write_tree(root, 3)
    index = SymbolIndex(root, SyntaxSettings(), cache_path=db)
    index.refresh()
    assert not index.store.defer_name_lookup()
    assert has_name_lookup(db)
    index.close()
