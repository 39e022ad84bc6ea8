"""Committing an EditPlan checks every file first: a site whose range does not hold the text the
plan expects is refused (naming path:line:col) and nothing is written; a sound plan is committed
as one journaled operation. Plans are built by hand, as any refactoring would hand one over."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.errors import ToolFailure
from agent.refactor import EditPlan, range_of
from agent.refactor.commit import commit_plan, file_edits
from agent.result import Location
from agent.toolcontext import ToolContext
from lsp_bridge.types import Range

GBK_LINE = "标签 = 面积; 结果 = area_of(2)\n"


def _range(line: int, column: int, old: str) -> Range:
    """The bridge range of `old` at a 1-based line and column."""
    return range_of(Location("", line, column, line, column + len(old)))


def _plan(path: str, line: int, column: int, old: str, new: str) -> EditPlan:
    plan = EditPlan("rename", old, new, "python")
    plan.add(path, _range(line, column, old), new, "lsp", old)
    return plan


def test_a_range_not_holding_the_old_name_is_refused_and_nothing_written(root: Path, ctx: ToolContext) -> None:
    (root / "a.py").write_text("def area_of(x):\n    return x\n", encoding="utf-8")
    (root / "b.py").write_bytes(GBK_LINE.encode("gbk"))
    before = {p: (root / p).read_bytes() for p in ("a.py", "b.py")}
    plan = _plan("a.py", 1, 5, "area_of", "compute_area")
    # the column lsp_bridge's default decoder (UTF-8, replacing) gives on the GBK bytes; decoded as
    # GBK, the name starts at column 15
    plan.add("b.py", _range(1, 18, "area_of"), "compute_area", "lsp", "area_of")
    with pytest.raises(ToolFailure) as info:
        commit_plan(ctx, plan, summary="renamed")
    assert "b.py:1:18" in str(info.value) and "'area_of'" in str(info.value)
    assert "nothing was written" in str(info.value)
    assert {p: (root / p).read_bytes() for p in before} == before
    assert ctx.workspace.journal.entries() == []


def test_a_sound_plan_is_committed_in_the_file_s_encoding(root: Path, ctx: ToolContext) -> None:
    (root / "b.py").write_bytes(GBK_LINE.encode("gbk"))
    plan = _plan("b.py", 1, 15, "area_of", "compute_area")
    result = commit_plan(ctx, plan, summary="renamed")
    assert result.success, result.error
    assert (root / "b.py").read_bytes() == GBK_LINE.replace("area_of", "compute_area").encode("gbk")
    assert len(ctx.workspace.journal.entries()) == 1


def test_a_range_past_the_end_and_a_conflict_are_refused(root: Path, ctx: ToolContext) -> None:
    (root / "a.py").write_text("x = 1\n", encoding="utf-8")
    with pytest.raises(ToolFailure, match=r"a\.py:7:1: the plan expects 'x'"):
        file_edits(ctx.workspace, _plan("a.py", 7, 1, "x", "y"))
    conflicted = _plan("a.py", 1, 1, "x", "y")
    conflicted.conflicts.append("y is already defined in a.py")
    with pytest.raises(ToolFailure, match="refused: y is already defined"):
        file_edits(ctx.workspace, conflicted)
    assert (root / "a.py").read_text(encoding="utf-8") == "x = 1\n"
