"""`codeagent rename` goes through the rename engine: the real command on a copy of
fixtures/renamecases, with a real basedpyright, exactly as the rename benchmark calls it."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "renamecases"

pytestmark = pytest.mark.timeout(600)


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "proj"
    shutil.copytree(FIXTURE, root)
    monkeypatch.setenv("CODEAGENT_LSP_DAEMON", "never")  # one-shot calls; no background process left
    return root.resolve()


def test_rename_json_writes_every_completed_site(project: Path, cli: Callable[..., Any],
                                                snapshot: Callable[[Path], dict[str, Any]]) -> None:
    before = snapshot(project)
    out = cli("rename", "shapes/core.py:30:5", "surface", "--root", str(project), "--json", cwd=project)
    assert out.returncode == 0, out.stderr
    result = out.json
    assert result["success"] is True
    data = result["data"]
    assert sorted(data["files"]) == ["shapes/__init__.py", "shapes/aliases.py", "shapes/core.py",
                                     "shapes/core.pyi", "tests/test_shapes.py"]
    assert data["reasons"] == {"lsp": 1, "stub": 5, "__all__": 1, "embedded-code": 1}
    assert {"path": "tests/test_shapes.py", "line": 12, "column": 19, "end_line": 12, "end_column": 23,
            "reason": "stub"} in data["sites"]
    assert (project / "shapes/__init__.py").read_text().endswith(
        'from .core import surface as surface\n\n__all__ = ["Circle", "Shape", "surface", "make_shape"]\n')
    assert "shapes.surface(Shape(3), precise=True)" in (project / "tests/test_shapes.py").read_text()
    after = snapshot(project)
    changed = {p for p in after if p in before and after[p][0] != before[p][0]}
    assert changed == set(data["files"])

    undo = cli("undo", "--root", str(project), cwd=project)
    assert undo.returncode == 0
    restored = snapshot(project)
    assert all(restored[p][0] == before[p][0] for p in before)


def test_dry_run_shows_reasons_and_review_and_writes_nothing(project: Path, cli: Callable[..., Any],
                                                            snapshot: Callable[[Path], dict[str, Any]]) -> None:
    before = snapshot(project)
    out = cli("rename", "shapes/circle.py:5:9", "resize", "--root", str(project), "--dry-run", cwd=project)
    assert out.returncode == 0, out.stderr
    text = out.stdout
    assert "sites by reason: embedded-code 1, hierarchy 5, lsp 1, stub 1" in text
    assert "  shapes/core.py:15:9 [hierarchy]" in text
    assert "  tests/test_shapes.py:7:9 [hierarchy]" in text
    assert '  tests/test_shapes.py:30:40 [string] assert callable(getattr(Shape(1), "scale"))' in text  # review
    assert "shapes/image.py:8:9" in text  # Image.scale: listed for review, not renamed
    assert "+    def resize(self, factor: float) -> \"Square\":" in text
    out = cli("rename", "shapes/circle.py:5:9", "resize", "--root", str(project), "--dry-run", "--json", cwd=project)
    data = out.json["data"]
    assert data["reasons"] == {"embedded-code": 1, "hierarchy": 5, "lsp": 1, "stub": 1}
    assert {"path": "tests/test_shapes.py", "line": 30, "column": 40} in data["unconfirmed"]  # the string
    assert {"path": "shapes/image.py", "line": 8, "column": 9} in data["unconfirmed"]
    assert snapshot(project) == before
