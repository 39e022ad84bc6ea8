"""`codeagent signature` through the real basedpyright on a fixture package: call sites by
position and by keyword, an override in another module (keeping its own annotations and defaults),
a new parameter with --value; refusals naming the site (`*args`, a reference that is not a call, a
removed parameter the body uses) with the tree unchanged; `codeagent undo` restores every byte."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.timeout(900)

Tree = Callable[[Path], dict[str, bytes]]


def test_method_made_keyword_only_follows_calls_and_override_then_undo(
        shapes: Path, tree: Tree, cli: Callable[..., Any]) -> None:
    before = tree(shapes)
    out = cli("signature", "shapes/geometry.py:6:9", "(self, shape, *, color, width=1)", "--root", str(shapes),
              "--json", cwd=shapes)
    assert out.returncode == 0, out.stdout + out.stderr
    assert out.json["data"]["reasons"] == {"signature": 1, "override": 1, "call": 3}
    geometry = (shapes / "shapes/geometry.py").read_text()
    assert "    def draw(self, shape, *, color, width=1):\n" in geometry
    # the override keeps its own annotations and defaults, in the new kinds
    assert (shapes / "shapes/fancy.py").read_text().splitlines()[4] == \
        "    def draw(self, shape: str, *, color: str = \"red\", width: int = 2) -> str:"
    app = (shapes / "shapes/app.py").read_text()
    assert "canvas.draw(\"box\", color=\"blue\")" in app
    assert "canvas.draw(shape=\"dot\", color=\"green\", width=3)" in app  # already by keyword: unchanged
    assert "FancyCanvas().draw(\"star\", color=\"gold\", width=5)" in app  # the override's call too
    # super().draw(shape, color, width) inside the override is a call of the base method
    assert "super().draw(shape, color=color, width=width)" in (shapes / "shapes/fancy.py").read_text()
    undo = cli("undo", "--root", str(shapes), cwd=shapes)
    assert undo.returncode == 0, undo.stderr
    assert tree(shapes) == before


def test_function_reorder_remove_and_add_with_value(shapes: Path, tree: Tree, cli: Callable[..., Any]) -> None:
    before = tree(shapes)
    out = cli("signature", "shapes/geometry.py:10:5", "(factor, length, unit)", "--value", "unit='cm'",
              "--root", str(shapes), "--json", cwd=shapes)
    assert out.returncode == 1  # the body still uses `offset`: refused, naming it
    assert "shapes/geometry.py:11:30: the body still uses the removed parameter 'offset'" in out.json["error"]
    assert tree(shapes) == before
    (shapes / "shapes/geometry.py").write_text(
        (shapes / "shapes/geometry.py").read_text().replace("length * factor + offset", "length * factor"))
    before = tree(shapes)
    out = cli("signature", "shapes/geometry.py:10:5", "(factor, length, unit)", "--value", "unit='cm'",
              "--root", str(shapes), "--json", cwd=shapes)
    assert out.returncode == 0, out.stdout + out.stderr
    app = (shapes / "shapes/app.py").read_text()
    assert "return [scaled(3, 2, 'cm'), scaled(factor=5, length=4, unit='cm')]" in app
    assert "assert scaled(2, 1, 'cm') == 5" in (shapes / "tests/test_shapes.py").read_text()
    assert "def scaled(factor, length, unit):" in (shapes / "shapes/geometry.py").read_text()
    assert cli("undo", "--root", str(shapes), cwd=shapes).returncode == 0
    assert tree(shapes) == before


def test_star_args_call_site_is_refused_naming_it(shapes: Path, tree: Tree, cli: Callable[..., Any]) -> None:
    (shapes / "shapes/extra.py").write_text("from .geometry import scaled\n\nDIMS = (1, 2)\nTOTAL = scaled(*DIMS)\n")
    before = tree(shapes)
    out = cli("signature", "shapes/geometry.py:10:5", "(length, factor, *, offset=0)", "--root", str(shapes),
              "--json", cwd=shapes)
    assert out.returncode == 1
    assert "shapes/extra.py:4:9: this call cannot be rewritten safely: `*DIMS`" in out.json["error"]
    assert out.json["data"]["refused"] is True
    assert tree(shapes) == before


def test_reference_that_is_not_a_call_is_refused(shapes: Path, tree: Tree, cli: Callable[..., Any]) -> None:
    (shapes / "shapes/handlers.py").write_text(
        "import functools\n\nfrom .geometry import scaled\n\n"
        "HANDLERS = {\"scale\": scaled}\nDOUBLE = functools.partial(scaled, factor=2)\n")
    before = tree(shapes)
    out = cli("signature", "shapes/geometry.py:10:5", "(length, factor, offset=0, *, unit=None)", "--root", str(shapes), "--json",
              cwd=shapes)
    assert out.returncode == 1
    error = out.json["error"]
    assert "shapes/handlers.py:5:22:" in error and "without calling it" in error
    assert "shapes/handlers.py:6:28:" in error
    assert tree(shapes) == before


def test_missing_value_for_a_new_required_parameter_is_refused(shapes: Path, tree: Tree,
                                                               cli: Callable[..., Any]) -> None:
    before = tree(shapes)
    out = cli("signature", "shapes/geometry.py:10:5", "(length, factor, offset=0, unit)", "--root", str(shapes),
              "--json", cwd=shapes)
    assert out.returncode == 1
    assert "--value unit=EXPR" in out.json["error"]
    assert tree(shapes) == before


def test_new_annotated_parameter_reaches_an_override_in_another_module_without_its_annotation(
        shapes: Path, cli: Callable[..., Any]) -> None:
    # fancy.py does not import what the annotation names: a bare `dpi=72` keeps it importable
    out = cli("signature", "shapes/geometry.py:6:9", "(self, shape, color, width=1, *, dpi: Resolution = 72)",
              "--root", str(shapes), "--json", cwd=shapes)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "    def draw(self, shape, color, width=1, *, dpi: Resolution = 72):\n" in \
        (shapes / "shapes/geometry.py").read_text()
    assert "    def draw(self, shape: str, color: str = \"red\", width: int = 2, *, dpi=72) -> str:\n" in \
        (shapes / "shapes/fancy.py").read_text()


def test_call_through_an_untyped_value_that_might_be_the_method_refuses(shapes: Path, tree: Tree,
                                                                         cli: Callable[..., Any]) -> None:
    (shapes / "shapes/loose.py").write_text("def paint_any(thing):\n    return thing.draw(\"box\", \"red\")\n")
    before = tree(shapes)
    out = cli("signature", "shapes/geometry.py:6:9", "(self, shape, *, color, width=1)", "--root", str(shapes),
              "--json", cwd=shapes)
    assert out.returncode == 1
    assert "shapes/loose.py:2:18:" in out.json["error"] and "cannot type" in out.json["error"]
    assert tree(shapes) == before
