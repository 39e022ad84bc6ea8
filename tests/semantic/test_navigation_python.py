"""The navigation tools and symbol edits against a real basedpyright on fixtures/navpy (one server
for the module). Tests that write files undo their change before they end."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from semantic_helpers import Caller, line_col, run_cli

from agent.semantic.sessions import notify_changed
from agent.toolcontext import ToolContext

pytestmark = pytest.mark.timeout(600)


FIXTURE = "navpy"  # the project the shared fixtures (conftest.py) copy, one per module


def hits(files: list[dict[str, Any]]) -> list[tuple[str, str, str]]:
    """(path, enclosing symbol, line text) of every hit in a grouped answer."""
    return [(f["path"], g["in"], h["text"]) for f in files for g in f["groups"] for h in g["hits"]]


def test_type_through_an_inferred_generic(call: Caller, proj: Path) -> None:
    # sq = box.get(), box = make_box(Square(2.0)): Box[T] solved to Box[Square]
    r = call("type_info", file_path="app/report.py", line=7, column=5)
    assert r.success, r.error
    assert r.data["type"] == "Square"
    assert r.data["kind"] == "variable"
    assert r.data["qualified_name"] == "app/report.py::report.sq"
    line, col = line_col(proj, "app/report.py", 7, "get")
    r = call("type_info", file_path="app/report.py", line=line, column=col)
    assert r.success, r.error
    assert r.data["kind"] == "method" and "-> Square" in r.data["signature"]
    assert r.data["qualified_name"] == "shapes/base.py::Box.get"
    assert r.data["doc"] == "Return the item."  # the first paragraph only


def test_callers_across_three_files_including_through_an_instance(call: Caller, proj: Path) -> None:
    line, col = line_col(proj, "shapes/kinds.py", 15, "scaled")
    r = call("call_hierarchy", file_path="shapes/kinds.py", line=line, column=col)
    assert r.success, r.error
    assert r.data["root"]["qualified_name"] == "shapes/kinds.py::Square.scaled"
    callers = {n["qualified_name"]: [c["text"] for c in n["calls_at"]] for n in r.data["calls"]}
    assert callers == {
        "app/main.py::main": ["print(report(), Square(1.0).scaled(4).area())"],
        "app/report.py::report": ["big = sq.scaled(3)"],  # sq: Square only through the generic
        "shapes/ops.py::double": ["return s.scaled(2)"],
    }
    assert all(n.get("cut") for n in r.data["calls"])  # depth 1: their own callers were not asked
    assert "big = sq.scaled(3)" in r.output


def test_callers_depth_two_and_callees_of_a_function(call: Caller, proj: Path) -> None:
    line, col = line_col(proj, "shapes/kinds.py", 15, "scaled")
    r = call("call_hierarchy", file_path="shapes/kinds.py", line=line, column=col, depth=2)
    assert r.success, r.error
    report = next(n for n in r.data["calls"] if n["name"] == "report")
    assert [c["qualified_name"] for c in report["children"]] == ["app/main.py::main"]
    r = call("call_hierarchy", file_path="app/report.py", line=5, column=5, direction="outgoing")
    assert r.success, r.error
    callees = {n["qualified_name"] for n in r.data["calls"]}
    assert {"shapes/base.py::make_box", "shapes/base.py::Box.get", "shapes/kinds.py::Square.scaled",
            "shapes/kinds.py::total_area"} <= callees


def test_overrides_of_a_method_in_two_subclasses(call: Caller, proj: Path) -> None:
    line, col = line_col(proj, "shapes/base.py", 29, "area")
    r = call("find_implementations", file_path="shapes/base.py", line=line, column=col)
    assert r.success, r.error
    assert hits(r.data["files"]) == [("shapes/kinds.py", "Square.area", "def area(self) -> float:"),
                                     ("shapes/kinds.py", "Circle.area", "def area(self) -> float:")]
    assert "in Square.area" in r.output


def test_protocol_implementers_are_structural(call: Caller, proj: Path) -> None:
    line, col = line_col(proj, "shapes/base.py", 33, "Drawable")
    r = call("find_implementations", file_path="shapes/base.py", line=line, column=col)
    assert r.success, r.error
    found = {(f["path"], g["in"]) for f in r.data["files"] for g in f["groups"]}
    # Square and Label define draw(); Circle does not; none of them names Drawable as a base.
    assert found == {("shapes/kinds.py", "Square"), ("shapes/kinds.py", "Label")}
    line, col = line_col(proj, "shapes/base.py", 34, "draw")
    r = call("find_implementations", file_path="shapes/base.py", line=line, column=col)
    assert {g["in"] for f in r.data["files"] for g in f["groups"]} == {"Square.draw", "Label.draw"}


def test_type_hierarchy_up_and_down(call: Caller, proj: Path) -> None:
    line, col = line_col(proj, "shapes/base.py", 28, "Shape")
    r = call("type_hierarchy", file_path="shapes/base.py", line=line, column=col, direction="subtypes")
    assert r.success, r.error
    assert sorted(n["qualified_name"] for n in r.data["types"]) == ["shapes/kinds.py::Circle",
                                                                   "shapes/kinds.py::Square"]
    line, col = line_col(proj, "shapes/kinds.py", 8, "Square")
    r = call("type_hierarchy", file_path="shapes/kinds.py", line=line, column=col)
    assert [n["qualified_name"] for n in r.data["types"]] == ["shapes/base.py::Shape"]


def test_quick_fix_adds_a_missing_import_and_undo_restores(env: tuple[ToolContext, Caller], proj: Path) -> None:
    call = env[1]
    missing = proj / "app" / "missing.py"
    missing.write_text("def f():\n    return make_box(1)\n")
    try:
        r = call("code_actions", file_path="app/missing.py", line=2, column=12)
        assert r.success, r.error
        titles = [a["title"] for a in r.data["actions"]]
        assert "from shapes.base import make_box" in titles
        r = call("apply_code_action", file_path="app/missing.py", line=2, column=12,
                 title="from shapes.base import make_box")
        assert r.success, r.error
        assert missing.read_text().startswith("from shapes.base import make_box\n")
        assert r.data["journal_id"]
        undo = run_cli("undo", "--root", str(proj))
        assert undo.returncode == 0, undo.stderr
        assert missing.read_text() == "def f():\n    return make_box(1)\n"
    finally:
        missing.unlink()
        notify_changed(env[0], [missing])


def test_replace_one_method_leaves_the_rest_byte_identical(call: Caller, proj: Path) -> None:
    path = proj / "shapes" / "kinds.py"
    before = path.read_bytes()
    r = call("replace_symbol", name_path="Circle.area", new_text="def area(self) -> float:\n"
             "    return 3.14159 * self.r ** 2\n")
    assert r.success, r.error
    after = path.read_bytes()
    old, new = before.split(b"\n"), after.split(b"\n")
    at = old.index(b"    def area(self) -> float:", old.index(b"class Circle(Shape):"))
    assert new[:at] == old[:at] and new[at + 2:] == old[at + 2:]
    assert new[at:at + 2] == [b"    def area(self) -> float:", b"        return 3.14159 * self.r ** 2"]
    call.ctx.workspace.undo(r.data["journal_id"])
    assert path.read_bytes() == before


def test_insert_after_a_decorated_function(call: Caller, proj: Path) -> None:
    path = proj / "shapes" / "kinds.py"
    before = path.read_text()
    r = call("insert_after_symbol", name_path="unit", file_path="shapes/kinds.py",
             text="    def pair() -> tuple[Square, Square]:\n        return unit(), unit()\n")
    assert r.success, r.error
    text = path.read_text()
    assert ("@functools.lru_cache(maxsize=None)\ndef unit() -> Square:\n    return Square(1.0)\n\n\n"
            "def pair() -> tuple[Square, Square]:\n    return unit(), unit()\n\n\ndef total_area(") in text
    call.ctx.workspace.undo(r.data["journal_id"])
    assert path.read_text() == before
    r = call("insert_before_symbol", name_path="unit", file_path="shapes/kinds.py", text="X = 1\n")
    assert r.success, r.error
    assert '\n\n\nX = 1\n\n\n@functools.lru_cache(maxsize=None)\ndef unit()' in path.read_text()
    call.ctx.workspace.undo(r.data["journal_id"])


def test_replace_refused_when_the_text_defines_another_name(call: Caller, proj: Path) -> None:
    before = (proj / "shapes" / "kinds.py").read_bytes()
    r = call("replace_symbol", name_path="Square.area", new_text="def volume(self) -> float:\n    return 0.0\n")
    assert not r.success
    assert "defines volume, not 'area'" in (r.error or "")
    r = call("replace_symbol", name_path="Square.area", new_text="def area(self) -> float:\n    return (\n")
    assert not r.success and "syntax error" in (r.error or "")
    assert (proj / "shapes" / "kinds.py").read_bytes() == before
