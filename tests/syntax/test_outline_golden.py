"""The outline of every fixture in fixtures/syntax/ is exactly what it was when
fixtures/syntax/outlines.json was written (by the outline code before the index's speed-ups of
issue 20): names, name paths, kinds, 1-based ranges, signatures and depths, in order. A faster
walk or extraction must not change one entry; a deliberate change to an outline rewrites the
file together with the test that explains it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent.syntax import language_for
from agent.syntax.extract import extract
from agent.syntax.languages import parse_bytes
from agent.syntax.symbols import outline_entries

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "syntax"
GOLDEN: dict[str, list[list[object]]] = json.loads((FIXTURES / "outlines.json").read_text(encoding="utf-8"))


def test_the_golden_file_covers_every_fixture_and_the_cases_it_is_for() -> None:
    assert sorted(GOLDEN) == sorted(p.name for p in FIXTURES.iterdir() if language_for(p))
    kinds = {(name, entry[2]) for name, entries in GOLDEN.items() for entry in entries}
    for case in [("tricky.py", "class"), ("tricky.py", "method"), ("nesting.py", "function"),
                 ("widgets.ts", "interface"), ("widgets.ts", "class"), ("widgets.ts", "method")]:
        assert case in kinds
    assert any(entry[10] >= 2 for entry in GOLDEN["nesting.py"])  # nested two levels deep at least
    assert any(str(entry[9]).startswith("async def") for entry in GOLDEN["tricky.py"])
    assert any(str(entry[9]).startswith("@") or entry[3] < entry[7] for entry in GOLDEN["tricky.py"])  # decorated


@pytest.mark.parametrize("name", sorted(GOLDEN))
def test_outline_is_what_it_was(name: str) -> None:
    path = FIXTURES / name
    language = language_for(path)
    assert language is not None
    source = path.read_bytes()
    assert [list(e) for e in outline_entries(parse_bytes(source, language), source, language)] == GOLDEN[name]


@pytest.mark.parametrize("name", sorted(GOLDEN))
def test_the_index_record_holds_the_same_outline(name: str) -> None:
    path = FIXTURES / name
    record = extract(str(path), name, 1 << 20)
    assert record is not None and record.skipped is None
    assert [list(e) for e in record.entries()] == GOLDEN[name]
