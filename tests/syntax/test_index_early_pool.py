"""The worker processes of a large refresh start while the walk goes on (index.py `_walk`): the
first files found parse before the walk ends, the rest is dealt out by size when it ends, and
every file is parsed once, with the outline one process finds. Real files, real processes."""

from __future__ import annotations

import time
from pathlib import Path

from agent.config import SyntaxSettings
from agent.syntax import SymbolIndex
from agent.syntax.index import EARLY_CHUNK

COUNT = 700


def write_tree(root: Path) -> None:
    for i in range(COUNT):
        folder = root / f"pkg{i % 9}" / f"sub{i % 4}"
        folder.mkdir(parents=True, exist_ok=True)
        body = "".join(f"    def m{j}(self, x: int) -> int:\n        return x + {j}\n" for j in range(i % 5))
        (folder / f"mod{i}.py").write_text(f"LIMIT_{i} = {i}\n\n\nclass K{i}:\n{body or '    pass'}\n")


def test_the_first_files_are_given_to_the_workers_during_the_walk(tmp_path: Path) -> None:
    write_tree(tmp_path)
    index = SymbolIndex(tmp_path, SyntaxSettings(index_workers=2), cache_path=None)
    seen: set[str] = set()
    todo, racy, pool, early = index._walk(tmp_path, seen, None, time.time_ns())
    try:
        assert (len(todo), racy, len(seen)) == (COUNT, [], COUNT)
        assert pool is not None and pool.workers == 2
        minimum = index.settings.parallel_min_files
        assert minimum <= early < minimum + EARLY_CHUNK  # started as soon as there were enough files
        done = {rec.path for _chunk, records in pool.results() for rec in records}
        assert done == {rel for _a, rel, _s in todo[:early]} and not pool.pending
    finally:
        pool.close() if pool is not None else None
        index.close()


def test_a_parallel_refresh_stores_what_one_process_finds(tmp_path: Path) -> None:
    write_tree(tmp_path)
    outlines = []
    for workers in (2, 1):
        index = SymbolIndex(tmp_path, SyntaxSettings(index_workers=workers), cache_path=tmp_path / f"c{workers}.db")
        try:
            stats = index.refresh(progress=False)
            assert (stats.files, stats.parsed, stats.workers, stats.problem) == (COUNT, COUNT, workers, None)
            outlines.append({rel: index.file_entries(rel) for rel in index.files()})
        finally:
            index.close()
    assert len(outlines[0]) == COUNT and outlines[0] == outlines[1]
    assert [e.name_path for e in outlines[0]["pkg3/sub0/mod12.py"]] == ["LIMIT_12", "K12", "K12.m0", "K12.m1"]


def test_a_small_refresh_starts_no_pool_during_the_walk(tmp_path: Path) -> None:
    for i in range(20):
        (tmp_path / f"m{i}.py").write_text("def f():\n    pass\n")
    index = SymbolIndex(tmp_path, SyntaxSettings(index_workers=2), cache_path=None)
    try:
        todo, _racy, pool, early = index._walk(tmp_path, set(), None, time.time_ns())
        assert (len(todo), pool, early) == (20, None, 0)
    finally:
        index.close()
