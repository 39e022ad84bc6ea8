"""convert._location builds a FileLocation without its dataclass __init__ (half the time; an answer
builds thousands): what it builds must be indistinguishable from the dataclass's own."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from lsp_bridge.convert import _location
from lsp_bridge.types import FileLocation, Position, Range

CASES = [(0, 0, 0, 0), (3, 4, 3, 9), (2**31 - 1, 7, 2**31 - 1, 8), (5, 0, 6, 1)]


@pytest.mark.parametrize("sl,sc,el,ec", CASES)
def test_a_built_location_is_the_dataclass_one(sl: int, sc: int, el: int, ec: int) -> None:
    path = Path("/w/src/a.py")
    built, made = _location(path, sl, sc, el, ec), FileLocation(path, Range(Position(sl, sc), Position(el, ec)))
    assert type(built) is FileLocation and type(built.range) is Range and type(built.range.start) is Position
    assert built == made and hash(built) == hash(made) and repr(built) == repr(made) and str(built) == str(made)
    assert dataclasses.astuple(built) == dataclasses.astuple(made)
    assert built.range.shown() == made.range.shown()
    assert (built.range.start < built.range.end) == (made.range.start < made.range.end)
    with pytest.raises(dataclasses.FrozenInstanceError):
        built.range.start.line = 1  # type: ignore[misc]
    assert dataclasses.replace(built, path=Path("/w/b.py")) == FileLocation(Path("/w/b.py"), made.range)


def test_built_and_made_locations_mix_in_sets_and_sorts() -> None:
    path = Path("/w/a.py")
    built = [_location(path, *c) for c in CASES]
    made = [FileLocation(path, Range(Position(a, b), Position(c, d))) for a, b, c, d in CASES]
    assert set(built) == set(made) and len(set(built) | set(made)) == len(CASES)
    assert sorted(x.range for x in built + made) == sorted(x.range for x in made + made)
