"""The references page's per-file lookups (Outlines.in_file: a file's lines and outline looked up
once, not once per reference) give exactly the page the per-reference lookups give, and the
target's line is read from the split the file cache holds only for that very text."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from agent.bootstrap import open_context
from agent.config import Settings
from agent.errors import ToolFailure
from agent.semantic.filecache import file_cache
from agent.semantic.outlines import Outlines
from agent.semantic.reference_page import page
from agent.semantic.target import resolve_target

A = ("def f():\n    return 1\n\n\nclass Café:\n    def m(self):\n        f()  # é\n\n"
     "    class Inner:\n        def n(self):\n            return f()\n\n\nx = f()\nf()\n")
B = "".join(f"def g{i}():\n    f()\n" for i in range(12)) + "f()\n"


def _refs(rng: random.Random) -> dict[str, list[tuple[int, int, int, int]]]:
    refs: dict[str, list[tuple[int, int, int, int]]] = {}
    for rel, text in (("a.py", A), ("b.py", B), ("gone.py", ""), ("c.ts", "")):
        count = len(text.split("\n")) + 3  # lines past the end too
        sites = {(ln, col, ln, col + 1) for ln, col in ((rng.randrange(count), rng.randrange(14)) for _ in range(9))}
        refs[rel] = sorted(sites)
    return refs


def test_the_page_with_per_file_lookups_is_the_page_with_per_reference_ones(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text(A, encoding="utf-8")
    (tmp_path / "b.py").write_text(B, encoding="utf-8")
    ctx = open_context(tmp_path, settings=Settings())
    try:
        rng = random.Random(20)
        for _ in range(40):
            refs = _refs(rng)
            total = sum(len(v) for v in refs.values())
            offset, limit, budget = rng.randrange(total + 2), rng.choice([1, 5, 1000]), rng.choice([0, 80, 300, 10**9])
            one, other = Outlines(ctx), Outlines(ctx)
            want = page(refs, one.lines.line, one.where, offset=offset, limit=limit, budget=budget, whole=True)
            got = page(refs, other.lines.line, other.where, offset=offset, limit=limit, budget=budget, whole=True,
                       in_file=other.in_file)
            assert (got.files, got.text, got.whole_text, got.listed, got.in_page, got.left_text, got.left_files) == \
                   (want.files, want.text, want.whole_text, want.listed, want.in_page, want.left_text, want.left_files)
            assert got.note(total, offset, "refs") == want.note(total, offset, "refs")
        outlines = Outlines(ctx)
        line_of, where = outlines.in_file("a.py")
        assert (line_of(6), where(6, 8)) == ("f()  # é", ("Café.m", "method"))
        assert where(10, 19) == ("Café.Inner.n", "method") and where(14, 0) == ("a", "module")
        assert line_of(400) == "" and outlines.in_file("gone.py")[0](0) == ""
    finally:
        ctx.close()


def test_the_target_line_comes_from_the_cached_split_of_that_very_text(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text(A, encoding="utf-8")
    ctx = open_context(tmp_path, settings=Settings())
    try:
        files = file_cache(ctx)
        assert files.held_lines("a.py", A) is None  # nothing split yet: no read, no stat
        first = resolve_target(ctx, "a.py", 11, 20, None)
        held = files.lines("a.py")
        assert held is not None
        assert files.held_lines("a.py", A) is held  # an equal text (not the same object) has that split
        assert files.held_lines("a.py", A + "\n") is None and files.held_lines("b.py", A) is None
        again = resolve_target(ctx, "a.py", 11, 20, None)
        assert (again.name, again.pos, again.name_start) == (first.name, first.pos, first.name_start) == \
               ("f", first.pos, 19)
        with pytest.raises(ToolFailure, match=r"line 99 is outside the file \(1-16\)"):
            resolve_target(ctx, "a.py", 99, 1, None)
        # The file changes: its new text is not the held one, and the target is read from it.
        (tmp_path / "a.py").write_text("\n" * 10 + "zz = 1\n", encoding="utf-8")
        changed = resolve_target(ctx, "a.py", 11, 1, None)
        assert changed.name == "zz"
        with pytest.raises(ToolFailure, match=r"line 16 is outside the file \(1-12\)"):
            resolve_target(ctx, "a.py", 16, 1, None)
    finally:
        ctx.close()
