"""`codeagent signature` on a constructor (`__init__`), through the real basedpyright: the class's
calls `C(...)` follow, and so do the calls of subclasses inheriting that `__init__` (transitively),
`super().__init__(...)` in an overriding subclass, and the override itself; a class passed around
as a value (`factory=Point`) refuses the change, naming the site. `codeagent undo` restores it all."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.timeout(900)

POINTS = (
    "class Point:\n"
    "    def __init__(self, x, y, label=\"\"):\n"
    "        self.x = x\n"
    "        self.y = y\n"
    "        self.label = label\n"
    "\n"
    "\n"
    "class Labelled(Point):\n"
    "    def __init__(self, x, y, label: str = \"none\", color=\"red\"):\n"
    "        super().__init__(x, y, label)\n"
    "        self.color = color\n"
    "\n"
    "\n"
    "class Plain(Point):\n"
    "    pass\n"
    "\n"
    "\n"
    "class Grand(Plain):\n"
    "    def shifted(self) -> \"Grand\":\n"
    "        return Grand(self.x + 1, self.y, self.label)\n"
    "\n"
    "\n"
    "def build() -> list[Point]:\n"
    "    return [Point(1, 2), Point(x=3, y=4, label=\"a\"), Labelled(1, 2, \"b\"), Plain(5, 6, \"p\")]\n"
)
USES = (
    "from shapes.points import Grand, Point\n"
    "\n"
    "\n"
    "def test_points() -> None:\n"
    "    first: Point = Point(1, 2, \"t\")\n"
    "    assert isinstance(first, Point)\n"
    "    assert Grand(0, 0, \"g\").shifted().x == 1\n"
)


Tree = Callable[[Path], dict[str, bytes]]


@pytest.fixture
def points(shapes: Path) -> Path:
    """The shapes package (conftest.py) with the classes above and a test using them."""
    (shapes / "shapes/points.py").write_text(POINTS, encoding="utf-8")
    (shapes / "tests/test_points.py").write_text(USES, encoding="utf-8")
    return shapes


def test_constructor_calls_of_the_class_and_its_subclasses_follow_then_undo(
        points: Path, tree: Tree, cli: Callable[..., Any]) -> None:
    before = tree(points)
    out = cli("signature", "shapes/points.py:2:9", "(self, x, y, *, label=\"\", z=0)", "--root", str(points),
              "--json", cwd=points)
    assert out.returncode == 0, out.stdout + out.stderr
    src = (points / "shapes/points.py").read_text()
    assert "    def __init__(self, x, y, *, label=\"\", z=0):\n" in src
    # the override keeps its annotation, default and own extra parameter (params.merged); its
    # super() call follows
    assert "    def __init__(self, x, y, color=\"red\", *, label: str = \"none\", z=0):\n" in src, src
    assert "super().__init__(x, y, label=label)" in src
    assert "Labelled(1, 2, label=\"b\")" in src
    assert "Plain(5, 6, label=\"p\")" in src  # inherits Point.__init__
    assert "Grand(self.x + 1, self.y, label=self.label)" in src  # inherits it through Plain
    assert "Point(1, 2), Point(x=3, y=4, label=\"a\")" in src  # already fit the new signature
    uses = (points / "tests/test_points.py").read_text()
    assert "first: Point = Point(1, 2, label=\"t\")" in uses
    assert "Grand(0, 0, label=\"g\")" in uses
    assert "isinstance(first, Point)" in uses
    assert cli("undo", "--root", str(points), cwd=points).returncode == 0
    assert tree(points) == before


def test_class_passed_as_a_value_refuses_naming_the_site(points: Path, tree: Tree, cli: Callable[..., Any]) -> None:
    (points / "shapes/registry.py").write_text(
        "from .points import Plain\n\n\ndef make(factory=Plain):\n    return factory(1, 2)\n")
    before = tree(points)
    out = cli("signature", "shapes/points.py:2:9", "(self, x, y, *, label=\"\")", "--root", str(points),
              "--json", cwd=points)
    assert out.returncode == 1, out.stdout + out.stderr
    assert "shapes/registry.py:4:18: 'def make(factory=Plain):' uses the class Plain without calling it" \
        in out.json["error"], out.json["error"]
    assert tree(points) == before
