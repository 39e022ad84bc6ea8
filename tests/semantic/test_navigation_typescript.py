"""The navigation tools and symbol edits against the real TypeScript server (tsc --lsp by default)
on fixtures/navts. Tests that write files undo their change before they end."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from semantic_helpers import Caller, line_col, refs_of, run_cli

from agent.semantic.sessions import notify_changed
from agent.toolcontext import ToolContext

pytestmark = pytest.mark.timeout(600)


FIXTURE = "navts"  # the project the shared fixtures (conftest.py) copy, one per module


def test_type_through_an_inferred_generic(call: Caller, proj: Path) -> None:
    # first = wrap(new Circle(1))[0]: wrap<T> solved to Circle
    line, col = line_col(proj, "src/main.ts", 6, "first")
    r = call("type_info", file_path="src/main.ts", line=line, column=col)
    assert r.success, r.error
    assert r.data["type"] == "Circle"
    assert r.data["kind"] == "const"
    assert r.data["qualified_name"] == "src/main.ts::total.first"


def test_references_grouped_by_enclosing_symbol(call: Caller, proj: Path) -> None:
    line, col = line_col(proj, "src/shape.ts", 6, "area")  # Base's abstract area()
    r = call("find_references", file_path="src/shape.ts", line=line, column=col)
    assert r.success, r.error
    where = {(path, e["line"]): e["in"] for path, e in refs_of(r.data)}
    assert where[("src/shape.ts", 8)] == "Base.describe"  # `this.area()` inside a method
    assert "src/shape.ts\n" in r.output and "\n  in Base.describe\n    8:" in r.output
    line, col = line_col(proj, "src/circle.ts", 3, "Circle")
    r = call("find_references", file_path="src/circle.ts", line=line, column=col)
    assert r.success, r.error
    where = {(path, e["line"]): (e["in"], g_kind) for path, e, g_kind in _with_kind(r.data)}
    assert where[("src/main.ts", 1)] == ("src/main", "module")  # the import
    assert where[("src/main.ts", 5)][0] == "total"  # `new Circle(1)` inside total()
    assert "src/main.ts\n  in module src/main\n    1:10  import { Circle, wrap }" in r.output


def _with_kind(data: dict[str, Any]) -> list[tuple[str, dict[str, Any], str]]:
    return [(f["path"], {**h, "in": g["in"]}, g["kind"]) for f in data["files"] for g in f["groups"] for h in g["hits"]]


def test_implementations_of_an_interface(call: Caller, proj: Path) -> None:
    line, col = line_col(proj, "src/shape.ts", 1, "Shape")
    r = call("find_implementations", file_path="src/shape.ts", line=line, column=col)
    assert r.success, r.error
    found = {(f["path"], g["in"]) for f in r.data["files"] for g in f["groups"]}
    assert {("src/circle.ts", "Circle"), ("src/shape.ts", "Base")} <= found
    line, col = line_col(proj, "src/shape.ts", 2, "area")
    r = call("find_implementations", file_path="src/shape.ts", line=line, column=col)
    assert {(f["path"], g["in"]) for f in r.data["files"] for g in f["groups"]} >= {
        ("src/circle.ts", "Circle.area"), ("src/square.ts", "Square.area")}


def test_callers_and_callees(call: Caller, proj: Path) -> None:
    line, col = line_col(proj, "src/shape.ts", 2, "area")
    r = call("call_hierarchy", file_path="src/shape.ts", line=line, column=col)
    assert r.success, r.error
    callers = {n["qualified_name"]: [c["text"] for c in n["calls_at"]] for n in r.data["calls"]}
    assert callers["src/shape.ts::Base.describe"] == ["return `area ${this.area()}`;"]
    line, col = line_col(proj, "src/main.ts", 4, "total")
    r = call("call_hierarchy", file_path="src/main.ts", line=line, column=col, direction="outgoing")
    assert {"src/circle.ts::wrap", "src/circle.ts::Circle.area", "src/square.ts::Square.area"} <= {
        n["qualified_name"] for n in r.data["calls"]}


def test_type_hierarchy_of_a_class(call: Caller, proj: Path) -> None:
    line, col = line_col(proj, "src/shape.ts", 5, "Base")
    r = call("type_hierarchy", file_path="src/shape.ts", line=line, column=col, direction="subtypes")
    assert r.success, r.error
    assert [n["qualified_name"] for n in r.data["types"]] == ["src/square.ts::Square"]
    r = call("type_hierarchy", file_path="src/shape.ts", line=line, column=col)
    assert [n["qualified_name"] for n in r.data["types"]] == ["src/shape.ts::Shape"]


def test_quick_fix_adds_a_missing_import_and_undo_restores(env: tuple[ToolContext, Caller], proj: Path) -> None:
    call = env[1]
    missing = proj / "src" / "missing.ts"
    original = "export const q = new Square(3);\n"
    missing.write_text(original)
    try:
        r = call("code_actions", file_path="src/missing.ts", line=1, column=22)
        assert r.success, r.error
        assert 'Add import from "./square"' in [a["title"] for a in r.data["actions"]]
        r = call("apply_code_action", file_path="src/missing.ts", line=1, column=22, title='Add import from "./square"')
        assert r.success, r.error
        assert missing.read_text() == 'import { Square } from "./square";\n\n' + original
        undo = run_cli("undo", "--root", str(proj))
        assert undo.returncode == 0, undo.stderr
        assert missing.read_text() == original
    finally:
        missing.unlink()
        notify_changed(env[0], [missing])


def test_replace_and_insert_a_method(call: Caller, proj: Path) -> None:
    path = proj / "src" / "circle.ts"
    before = path.read_text()
    r = call("replace_symbol", name_path="Circle.area", new_text="area(): number {\n  return Math.PI * this.r ** 2;\n}")
    assert r.success, r.error
    assert "  area(): number {\n    return Math.PI * this.r ** 2;\n  }\n}\n" in path.read_text()
    call.ctx.workspace.undo(r.data["journal_id"])
    r = call("insert_after_symbol", name_path="Circle.area", text="perimeter(): number {\n  return 2 * this.r;\n}")
    assert r.success, r.error
    # The file puts no blank line between Circle's members: neither does the insert.
    assert "    return 3.14 * this.r * this.r;\n  }\n  perimeter(): number {\n    return 2 * this.r;\n  }\n}" \
        in path.read_text()
    call.ctx.workspace.undo(r.data["journal_id"])
    r = call("replace_symbol", name_path="Circle.area", new_text="size(): number { return 1; }")
    assert not r.success and "defines size, not 'area'" in (r.error or "")
    assert path.read_text() == before
