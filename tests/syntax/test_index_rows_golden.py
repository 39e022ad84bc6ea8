"""The rows a whole index of fixtures/syntax/ stores are exactly what they were when
fixtures/syntax/index_rows.json was written (by main's code before the extraction speed-ups of
issue 20, round 3): every file row (size, digest, language, error count, skip reason, the
outline's JSON text) and every (normalized name, file) row, whether one process or worker
processes parsed them. Any change to how outlines are extracted, encoded or stored must leave
them byte for byte; a deliberate change rewrites the file with the test that explains it."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest

from agent.config import SyntaxSettings
from agent.syntax import SymbolIndex

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "syntax"
GOLDEN = json.loads((FIXTURES / "index_rows.json").read_text(encoding="utf-8"))


def index_rows(db: Path) -> dict[str, list[list[object]]]:
    with sqlite3.connect(db) as con:
        files = con.execute("SELECT path, size, digest, language, errors, skipped, entries FROM files ORDER BY path")
        names = con.execute("SELECT norm, path FROM names ORDER BY norm, path")
        return {"files": [list(r) for r in files], "names": [list(r) for r in names]}


@pytest.mark.parametrize("workers", [1, 2])
def test_the_index_stores_the_rows_it_stored(tmp_path: Path, workers: int) -> None:
    tree = tmp_path / "project"
    for copy in ("a", "b"):  # two copies: several files per worker, and names defined in two files
        shutil.copytree(FIXTURES, tree / copy, ignore=shutil.ignore_patterns("*.json", "*.md"))
    settings = SyntaxSettings(index_workers=workers, parallel_min_files=1)
    index = SymbolIndex(tree, settings, cache_path=tmp_path / "index.sqlite")
    try:
        stats = index.refresh(progress=False)
    finally:
        index.close()
    assert (stats.parsed, stats.workers, stats.problem) == (len(GOLDEN["files"]), workers, None)
    assert index_rows(tmp_path / "index.sqlite") == GOLDEN


def test_the_golden_rows_cover_what_they_are_for() -> None:
    files = {row[0]: row for row in GOLDEN["files"]}
    assert files["a/broken.py"][4] > 0  # syntax errors counted
    assert all(json.loads(row[6]) for row in files.values())  # every fixture has an outline
    assert not files["a/tricky.py"][6].isascii()  # non-ASCII names and signatures, stored as text
    assert ["afteremoji", "a/widgets.ts"] in GOLDEN["names"] and ["afteremoji", "b/widgets.ts"] in GOLDEN["names"]
    assert {row[3] for row in GOLDEN["files"]} == {"python", "typescript", "tsx", "javascript", "go", "rust", "java"}
