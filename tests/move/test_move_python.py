"""`codeagent move` on a copy of fixtures/movecases, exactly as the ops benchmark calls it: the
moved code, every import and qualified use, `__all__`, star re-exports and `.pyi` stubs follow;
the tree still imports and its tests pass; a move that would close an import cycle is refused with
the tree byte-identical; `codeagent undo` restores every byte."""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "movecases"

pytestmark = pytest.mark.timeout(600)


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "proj"
    shutil.copytree(FIXTURE, root)
    monkeypatch.setenv("CODEAGENT_LSP_DAEMON", "never")  # one-shot calls; no background process left
    return root.resolve()


def _tree(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and ".codeagent" not in p.parts and "__pycache__" not in p.parts}


def _fixture_tests_pass(root: Path) -> None:
    """The moved tree imports in a fresh interpreter and its own tests pass."""
    code = "import shapes, shapes.core, shapes.extra, shapes.metrics"
    out = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    out = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"], cwd=root,
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and "2 passed" in out.stdout, out.stdout + out.stderr


def _move(cli: Callable[..., Any], root: Path, *args: str) -> Any:
    return cli("move", *args, "--root", str(root), "--json", cwd=root)


def _undo_restores(cli: Callable[..., Any], root: Path, before: dict[str, bytes]) -> None:
    undo = cli("undo", "--root", str(root), cwd=root)
    assert undo.returncode == 0, undo.stderr
    assert _tree(root) == before


def test_move_function_the_source_still_uses(project: Path, cli: Callable[..., Any]) -> None:
    before = _tree(project)
    out = _move(cli, project, "shapes/core.py:15:5", "shapes/geometry.py")
    assert out.returncode == 0, out.stderr
    data = out.json["data"]
    assert data["created"] == ["shapes/geometry.py", "shapes/geometry.pyi"]
    assert "private helpers used only by it move along: _unit" in data["notes"]
    assert {"path": "shapes/core.py", "line": 16, "column": 8, "kind": "string",
            "text": '"""area_of: side squared."""'} in data["review"]  # the docstring: reviewed, not rewritten
    geometry = (project / "shapes/geometry.py").read_text()
    assert geometry.startswith("from __future__ import annotations\n\nimport math\n")
    assert "def _unit(value: float) -> float:" in geometry and "# The area of a square" in geometry
    core = (project / "shapes/core.py").read_text()
    assert "def area_of" not in core and "def _unit" not in core
    assert "from shapes.geometry import area_of\n" in core  # Square.area still calls it
    assert "from .geometry import area_of\n" in (project / "shapes/__init__.py").read_text()
    extra = (project / "shapes/extra.py").read_text()
    assert "return area_of(self.side) / 2" in extra and "from shapes.geometry import area_of\n" in extra
    test = (project / "tests/test_shapes.py").read_text()
    assert "from shapes.core import (\n    Square,\n)\nfrom shapes.geometry import area_of\n" in test
    assert "def area_of" not in (project / "shapes/core.pyi").read_text()
    assert (project / "shapes/geometry.pyi").read_text() == "def area_of(side: float) -> float: ...\n"
    _fixture_tests_pass(project)
    _undo_restores(cli, project, before)


def test_move_class_with_subclasses_elsewhere(project: Path, cli: Callable[..., Any]) -> None:
    before = _tree(project)
    out = _move(cli, project, "shapes/core.py:20:7", "shapes/base.py")
    assert out.returncode == 0, out.stderr
    core = (project / "shapes/core.py").read_text()
    assert "from shapes.base import Shape\n" in core and "class Square(Shape):" in core
    extra = (project / "shapes/extra.py").read_text()
    assert "class Triangle(Shape):" in extra and "from shapes.base import Shape\n" in extra  # was core.Shape
    assert (project / "shapes/metrics.py").read_text().startswith("from .base import Shape\n")
    init = (project / "shapes/__init__.py").read_text()
    assert "from .core import area_of\nfrom .base import Shape as Shape\n" in init
    assert "from shapes.base import Shape" in (project / "shapes/core.pyi").read_text()  # the stub's Square
    assert (project / "shapes/base.pyi").read_text().startswith("class Shape:\n    side: float\n")
    _fixture_tests_pass(project)
    _undo_restores(cli, project, before)


def test_move_through_star_reexport_and_all(project: Path, cli: Callable[..., Any]) -> None:
    before = _tree(project)
    out = _move(cli, project, "shapes/metrics.py:13:5", "shapes/ratios.py")
    assert out.returncode == 0, out.stderr
    assert (project / "shapes/ratios.py").read_text().startswith(
        'from .core import Shape\nfrom .metrics import perimeter\n\n__all__ = ["ratio"]\n')
    assert '"ratio"' not in (project / "shapes/metrics.py").read_text()
    assert "from .metrics import *\nfrom .ratios import *\n" in (project / "shapes/__init__.py").read_text()
    assert "from shapes.ratios import ratio\n" in (project / "tests/test_shapes.py").read_text()
    _fixture_tests_pass(project)
    _undo_restores(cli, project, before)


def test_keep_alias_leaves_a_reexport(project: Path, cli: Callable[..., Any]) -> None:
    out = _move(cli, project, "shapes/core.py:7:1", "shapes/constants.py", "--keep-alias")
    assert out.returncode == 0, out.stderr
    assert "from shapes.constants import DEFAULT_SIDE as DEFAULT_SIDE\n" in (project / "shapes/core.py").read_text()
    assert "DEFAULT_SIDE = 2.0" in (project / "shapes/constants.py").read_text()
    _fixture_tests_pass(project)


def test_import_cycle_is_refused_and_nothing_changes(project: Path, cli: Callable[..., Any]) -> None:
    before = _tree(project)
    out = _move(cli, project, "shapes/core.py:30:7", "shapes/squares.py")  # Square: make_default uses it
    assert out.returncode == 1
    assert "import cycle shapes.core -> shapes.squares -> shapes.core" in out.json["error"]
    assert _tree(project) == before


def test_dest_defining_the_name_is_refused(project: Path, cli: Callable[..., Any]) -> None:
    before = _tree(project)
    (project / "shapes/other.py").write_text("def area_of(x):\n    return x\n")
    before = _tree(project)
    out = _move(cli, project, "shapes/core.py:15:5", "shapes/other.py")
    assert out.returncode == 1
    assert "shapes/other.py already defines 'area_of'" in out.json["error"]
    assert _tree(project) == before
