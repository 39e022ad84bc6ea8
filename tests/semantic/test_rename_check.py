"""`--check` is a real signal (issue 15, point 6): "no new errors in N checked file(s)" when clean,
a wait for the server's re-check bounded by lsp.check_timeout (a 30-file rename is checked whole,
not "server busy after 5 s"), and a rename that introduces errors (or cannot be checked in time) is
undone and exits 1 unless `--force`. The agent's rename_symbol does the same. Real basedpyright
and TypeScript servers on generated projects."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from semantic_helpers import module_context, tree

from agent.config import Settings

pytestmark = pytest.mark.timeout(900)

SHAPES = '''from typing import Protocol


class Shape:
    def area(self) -> float:
        return 1.0

    def perimeter(self) -> float:
        return 2.0


def total(s: Shape) -> float:
    return s.area() + s.perimeter()


class HasPerimeter(Protocol):
    def perimeter(self) -> float: ...


def outline(x: HasPerimeter) -> float:
    return x.perimeter()


def shape_outline() -> float:
    return outline(Shape())
'''
# Renaming Shape.perimeter breaks Shape's structural match with HasPerimeter: a new type error that no
# name conflict explains (the rename's conflict check refuses clashing names before writing, so an
# error only the server's re-check can find is what these tests need).
OTHER = "from shapes import Shape\n\n\ndef helper(s: Shape) -> float:\n    return s.area()\n"
USERS = 30


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = (tmp_path / "proj").resolve()
    root.mkdir()
    (root / "shapes.py").write_text(SHAPES)
    (root / "other.py").write_text(OTHER)
    for i in range(USERS):
        (root / f"user_{i:02d}.py").write_text(
            f"from shapes import Shape, total\n\n\ndef use_{i}(s: Shape) -> float:\n    return total(s) + s.area()\n")
    monkeypatch.setenv("CODEAGENT_LSP_DAEMON", "never")
    return root


def test_a_clean_30_file_rename_is_checked_whole(project: Path, cli: Callable[..., Any]) -> None:
    out = cli("rename", "shapes.py:5:9", "surface", "--check", "--root", str(project), cwd=project)
    assert out.returncode == 0, out.stderr
    assert f"no new errors in {USERS + 2} checked file(s)" in out.stdout
    assert "not checked" not in out.stdout and "busy" not in out.stdout
    assert "def surface(self)" in (project / "shapes.py").read_text()


def test_new_errors_undo_the_rename_and_exit_1_unless_forced(project: Path, cli: Callable[..., Any]) -> None:
    before = tree(project)
    out = cli("rename", "shapes.py:8:9", "girth", "--check", "--root", str(project), cwd=project)
    assert out.returncode == 1, out.stdout
    assert "the check found 1 new error(s)" in out.stderr
    assert 'shapes.py:25:20: error: Argument of type "Shape" cannot be assigned to parameter "x"' in out.stderr
    assert "The rename was undone; nothing changed" in out.stderr
    assert tree(project) == before
    forced = cli("rename", "shapes.py:8:9", "girth", "--check", "--force", "--json", "--root", str(project),
                 cwd=project)
    assert forced.returncode == 0, forced.stderr
    assert forced.json["data"]["diagnostics"]["failed"] is True
    assert "kept anyway (force)" in forced.json["output"]
    assert "def girth(self)" in (project / "shapes.py").read_text()


def test_the_tool_checks_by_default_and_a_check_that_cannot_finish_fails(project: Path) -> None:
    before = tree(project)
    for ctx, call in module_context(project, Settings(lsp={"check_timeout": 0.001})):  # type: ignore[arg-type]
        res = call("rename_symbol", file_path="shapes.py", line=5, column=9, new_name="surface")
        assert res.success is False
        assert "had not answered after 0.001 s (lsp.check_timeout)" in (res.error or "")
        assert "raise lsp.check_timeout" in (res.error or "")
        assert tree(project) == before
        ctx.settings.lsp.check_timeout = 120.0
        res = call("rename_symbol", file_path="shapes.py", line=8, column=9, new_name="girth")
        assert res.success is False and 'cannot be assigned to parameter "x"' in (res.error or "")
        assert tree(project) == before
        res = call("rename_symbol", file_path="shapes.py", line=5, column=9, new_name="surface")
        assert res.success is True, res.error
        assert f"no new errors in {USERS + 2} checked file(s)" in res.output


def test_typescript_rename_that_breaks_a_structural_match_is_refused_by_the_check(tmp_path: Path) -> None:
    root = (tmp_path / "ts").resolve()
    root.mkdir()
    (root / "tsconfig.json").write_text('{"compilerOptions": {"strict": true}, "include": ["*.ts"]}\n')
    (root / "main.ts").write_text("interface HasSize { size(): number }\nclass Box { size(): number { return 1; } }\n"
                                  "function measure(x: HasSize): number { return x.size(); }\n"
                                  "export function f(): number { return measure(new Box()); }\n")
    before = tree(root)
    for _ctx, call in module_context(root, Settings()):
        res = call("rename_symbol", file_path="main.ts", line=2, column=13, new_name="volume")
        assert res.success is False
        assert "main.ts:4:46: error: Property 'size' is missing" in (res.error or "")
        assert tree(root) == before
        ok = call("rename_symbol", file_path="main.ts", line=3, column=10, new_name="gauge")
        assert ok.success is True, ok.error
        assert "no new errors in 1 checked file(s)" in ok.output
