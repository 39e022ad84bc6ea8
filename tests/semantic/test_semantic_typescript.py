"""The semantic tools against TypeScript's own server on fixtures/tsproj (one server for the module)."""

from __future__ import annotations

from pathlib import Path

import pytest
from semantic_helpers import Caller, line_col, refs_of, tree

from agent.toolcontext import ToolContext

pytestmark = pytest.mark.timeout(600)


FIXTURE = "tsproj"  # the project the shared fixtures (conftest.py) copy, one per module


def test_tsx_component_references(call: Caller) -> None:
    r = call("find_references", file_path="src/components/Badge.tsx", line=3, column=17)
    assert r.success, r.error
    assert r.data["complete"] is True
    sites = {(path, e["line"]) for path, e in refs_of(r.data)}
    assert sites == {("src/components/Badge.tsx", 3), ("src/components/Panel.tsx", 1), ("src/components/Panel.tsx", 8)}


def test_rename_tsx_usage(call: Caller) -> None:
    r = call("rename_symbol", file_path="src/components/Badge.tsx", line=3, column=17, new_name="ShapeBadge",
             dry_run=True)
    assert r.success, r.error
    plus = [ln for ln in r.data["diff"].splitlines() if ln.startswith("+") and not ln.startswith("+++")]
    assert '+import { ShapeBadge } from "./Badge";' in plus
    assert any("<ShapeBadge shape={shape} />" in ln for ln in plus)


def test_rename_from_a_use_site_after_emoji_applies_and_undoes(env: tuple[ToolContext, Caller], call: Caller,
                                                                proj: Path, pristine: dict[str, bytes]) -> None:
    ctx, _ = env
    line, col = line_col(proj, "src/index.ts", 6, "totalArea")
    r = call("rename_symbol", file_path="src/index.ts", line=line, column=col, new_name="sumOfAreas")
    assert r.success, r.error
    try:
        index = (proj / "src/index.ts").read_text(encoding="utf-8")
        geometry = (proj / "src/geometry.ts").read_text(encoding="utf-8")
        assert 'const mood = "été 🎉"; const sum = sumOfAreas(shapes);' in index
        assert 'import { makeCircle, sumOfAreas } from "./geometry";' in index
        assert 'const label = "totalArea";' in index  # a string
        assert "export function sumOfAreas(shapes: Shape[])" in geometry
        assert "// totalArea sums areas: this comment mentions totalArea" in geometry  # a comment
        assert sorted(r.data["files"]) == ["src/geometry.ts", "src/index.ts"]
    finally:
        ctx.workspace.undo()
    assert tree(proj) == pristine


def test_interface_method_rename_reaches_implementations(call: Caller) -> None:
    r = call("rename_symbol", file_path="src/models.ts", line=3, column=3, new_name="surface", dry_run=True)
    assert r.success, r.error
    sites = {(s["path"], s["line"]) for s in r.data["sites"]}
    assert {("src/models.ts", 3), ("src/models.ts", 10), ("src/models.ts", 19), ("src/geometry.ts", 5)} <= sites


def test_reserved_word_is_refused(call: Caller) -> None:
    r = call("rename_symbol", file_path="src/geometry.ts", line=4, column=17, new_name="delete")
    assert not r.success and "reserved word" in (r.error or "")


def test_typescript_diagnostics(call: Caller) -> None:
    r = call("get_diagnostics", file_path="src/components/Panel.tsx")
    assert r.success, r.error
    assert r.data["errors"] == 0
