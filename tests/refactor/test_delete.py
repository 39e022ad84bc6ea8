"""`codeagent delete` through the real basedpyright: refused (listing every reference, tree
unchanged) while a test still uses the symbol; an unused function whose only reference is its
package re-export is deleted with its docstring, its `__all__` entry, the re-export and the import
only it used; `codeagent undo` restores every byte."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from agent.bootstrap import load_all_tools
from agent.commands.context import make_context

pytestmark = pytest.mark.timeout(900)

Tree = Callable[[Path], dict[str, bytes]]


def test_delete_refused_by_a_use_in_tests(shapes: Path, tree: Tree, cli: Callable[..., Any]) -> None:
    before = tree(shapes)
    out = cli("delete", "shapes/geometry.py:19:5", "--root", str(shapes), "--json", cwd=shapes)
    assert out.returncode == 1
    error = out.json["error"]
    assert "tests/test_shapes.py:1:29: from shapes.geometry import circle_area, scaled" in error
    assert "tests/test_shapes.py:6:12: assert circle_area(1) > 3" in error
    assert out.json["data"]["conflict_count"] == 2
    assert tree(shapes) == before


def test_delete_removes_all_entry_reexport_and_unused_import_then_undo(
        shapes: Path, tree: Tree, cli: Callable[..., Any]) -> None:
    before = tree(shapes)
    out = cli("delete", "shapes/geometry.py:14:5", "--root", str(shapes), "--json", cwd=shapes)
    assert out.returncode == 0, out.stdout + out.stderr
    assert (shapes / "shapes/__init__.py").read_text() == (
        "from .geometry import Canvas, scaled\n\n__all__ = [\"Canvas\", \"scaled\"]\n")
    geometry = (shapes / "shapes/geometry.py").read_text()
    assert geometry == (
        "import math\n\n\nclass Canvas:\n    def draw(self, shape, color, width=1):\n"
        "        return f\"{shape}:{color}:{width}\"\n\n\ndef scaled(length, factor, offset=0):\n"
        "    return length * factor + offset\n\n\ndef circle_area(radius):\n    return math.pi * radius * radius\n")
    assert cli("undo", "--root", str(shapes), cwd=shapes).returncode == 0
    assert tree(shapes) == before


def test_delete_dry_run_writes_nothing(shapes: Path, tree: Tree, cli: Callable[..., Any]) -> None:
    before = tree(shapes)
    out = cli("delete", "shapes/geometry.py:14:5", "--root", str(shapes), "--dry-run", "--json", cwd=shapes)
    assert out.returncode == 0, out.stderr
    assert "-def spare_helper(name):" in out.json["data"]["diff"]
    assert tree(shapes) == before


STUB = ("import os\n\nclass Canvas:\n    def draw(self, shape, color, width: int = ...) -> str: ...\n\n"
        "def scaled(length, factor, offset: int = ...) -> float: ...\n"
        "def spare_helper(name: str) -> str: ...\n"
        "def circle_area(radius: float) -> float: ...\n")


def test_uses_resolved_through_a_stub_refuse_and_the_stub_declaration_goes_with_the_definition(
        shapes: Path, tree: Tree, cli: Callable[..., Any]) -> None:
    # with geometry.pyi beside it, the server resolves the test's import to the stub's declaration
    (shapes / "shapes/geometry.pyi").write_text(STUB)
    before = tree(shapes)
    out = cli("delete", "shapes/geometry.py:19:5", "--root", str(shapes), "--json", cwd=shapes)
    assert out.returncode == 1
    assert "tests/test_shapes.py:6:12: assert circle_area(1) > 3" in out.json["error"]
    assert tree(shapes) == before
    out = cli("delete", "shapes/geometry.py:14:5", "--root", str(shapes), "--json", cwd=shapes)
    assert out.returncode == 0, out.stdout + out.stderr
    assert (shapes / "shapes/geometry.pyi").read_text() == STUB.replace("def spare_helper(name: str) -> str: ...\n", "")
    assert "spare_helper" not in (shapes / "shapes/geometry.py").read_text()


def test_agent_tools_give_the_cli_results(shapes: Path, tree: Tree, cli: Callable[..., Any]) -> None:
    # the agent's (and so MCP's) tools are the same code as the commands: same refusal, same edit
    before = tree(shapes)
    registry = load_all_tools()
    with make_context(str(shapes)) as ctx:
        refused = registry.call(ctx, "safe_delete", {"file_path": "shapes/geometry.py", "line": 19, "column": 5})
        signature = registry.call(ctx, "change_signature", {
            "file_path": "shapes/geometry.py", "line": 10, "column": 5, "new_params": "(length, factor, *, offset=0)",
            "dry_run": True})
    assert not refused.success and refused.data["conflict_count"] == 2
    assert "tests/test_shapes.py:6:12: assert circle_area(1) > 3" in (refused.error or "")
    assert signature.success, signature.error
    assert "+    return [scaled(2, 3), scaled(length=4, factor=5, offset=1)]" not in signature.data["diff"]
    assert "-    assert scaled(1, 2, 3) == 5\n+    assert scaled(1, 2, offset=3) == 5" in signature.data["diff"]
    assert tree(shapes) == before
    cli_out = cli("delete", "shapes/geometry.py:19:5", "--root", str(shapes), "--json", cwd=shapes)
    assert cli_out.json["error"] == refused.error
