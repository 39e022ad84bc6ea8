"""The semantic tools against a real basedpyright on fixtures/pyproj (one server for the module).
Tests that write files undo their change before they end, so the module's copy stays pristine."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from semantic_helpers import Caller, line_col, refs_of, tree

from agent.refactor import EditPlan
from agent.refactor.rename import rename_passes
from agent.semantic.sessions import running_sessions, session_for
from agent.toolcontext import ToolContext
from lsp_bridge import LspSession

pytestmark = pytest.mark.timeout(600)

GEOMETRY = "shapes/geometry.py"


FIXTURE = "pyproj"  # the project the shared fixtures (conftest.py) copy, one per module


def changed_lines(proj: Path, pristine: dict[str, bytes]) -> dict[str, list[tuple[str, str]]]:
    """file → [(old line, new line)] for every line that differs from the pristine copy."""
    out: dict[str, list[tuple[str, str]]] = {}
    for rel, data in tree(proj).items():
        old = pristine[rel].decode().split("\n")
        new = data.decode().split("\n")
        assert len(old) == len(new), rel
        diffs = [(a, b) for a, b in zip(old, new, strict=True) if a != b]
        if diffs:
            out[rel] = diffs
    return out


def diff_lines(result_diff: str) -> tuple[list[str], list[str]]:
    minus = [ln[1:] for ln in result_diff.splitlines() if ln.startswith("-") and not ln.startswith("---")]
    plus = [ln[1:] for ln in result_diff.splitlines() if ln.startswith("+") and not ln.startswith("+++")]
    return minus, plus


def test_references_grouped_with_line_text_and_unconfirmed(call: Caller) -> None:
    r = call("find_references", file_path=GEOMETRY, line=30, column=5)
    assert r.success, r.error
    assert r.data["complete"] is True and r.data["source"] == "lsp"
    by_file: dict[str, list[dict[str, Any]]] = {}
    for path, ref in refs_of(r.data):
        by_file.setdefault(path, []).append(ref)
    assert set(by_file) == {"shapes/__init__.py", GEOMETRY, "shapes/labels.py", "shapes/registry.py",
                            "tests/test_shapes.py"}
    assert [(e["line"], e["column"]) for e in by_file[GEOMETRY]] == [(30, 5)]
    assert by_file["shapes/labels.py"][1]["text"].startswith('naïve = "été 🎉"; return')
    # The shadowing local in total_area is the same name in code but not this symbol: listed for review.
    assert {(u["path"], u["line"]) for u in r.data["unconfirmed"]} == {(GEOMETRY, 38), (GEOMETRY, 39)}
    assert "not confirmed" in r.output


def test_references_grouped_by_enclosing_symbol(call: Caller) -> None:
    r = call("find_references", file_path=GEOMETRY, line=30, column=5)
    assert r.success, r.error
    where = {(path, e["line"]): e["in"] for path, e in refs_of(r.data)}
    assert where[("shapes/registry.py", 21)] == "Registry.report"  # inside a method
    assert where[("shapes/registry.py", 5)] == "shapes.registry"  # the import: module level
    assert where[("shapes/__init__.py", 3)] == "shapes"  # a package's module
    assert "shapes/registry.py\n  in module shapes.registry\n    5:45  from shapes.geometry import" in r.output
    assert "\n  in Registry.report\n    21:" in r.output


def test_references_by_symbol_and_ambiguity(call: Caller) -> None:
    r = call("find_references", symbol="Circle.scale")
    assert r.success, r.error
    assert r.data["target"] == f"{GEOMETRY}:12:9"
    paths = {f["path"] for f in r.data["files"]}
    assert "shapes/labels.py" in paths and "tests/test_shapes.py" in paths
    registry_lines = [e["line"] for path, e in refs_of(r.data) if path == "shapes/registry.py"]
    assert 16 not in registry_lines  # Registry.scale's own definition is another symbol
    ambiguous = call("find_references", symbol="scale")
    assert not ambiguous.success and "ambiguous" in (ambiguous.error or "")
    assert "Registry.scale" in (ambiguous.error or "")


def test_definition_from_a_use_site_in_another_module(call: Caller) -> None:
    r = call("find_definition", file_path="tests/test_shapes.py", line=7, column=12)
    assert r.success, r.error
    defs = r.data["definitions"]
    assert [(d["path"], d["line"], d["column"]) for d in defs] == [(GEOMETRY, 30, 5)]
    assert defs[0]["text"].startswith("def area_of(")


def test_bad_positions_and_names_are_clear_errors(call: Caller) -> None:
    r = call("find_references", file_path=GEOMETRY, line=999, column=1)
    assert not r.success and "outside the file" in (r.error or "")
    r = call("find_references", file_path=GEOMETRY, line=31, column=1)  # indentation before a comment
    assert not r.success and "not on an identifier" in (r.error or "")
    r = call("find_references", file_path="../outside.py", line=1, column=1)
    assert not r.success and "outside the workspace" in (r.error or "")
    for bad in ("class", "1st", "two words", "None"):
        r = call("rename_symbol", file_path=GEOMETRY, line=30, column=5, new_name=bad)
        assert not r.success and "new_name" in (r.error or ""), bad
    r = call("rename_symbol", file_path=GEOMETRY, line=30, column=5, new_name="area_of")
    assert not r.success and "current name" in (r.error or "")
    r = call("rename_symbol", file_path=GEOMETRY, new_name="x")
    assert not r.success and r.data.get("usage_error")


def test_cross_file_rename_dry_run_covers_imports_all_and_leaves_text_alone(call: Caller) -> None:
    r = call("rename_symbol", file_path=GEOMETRY, line=30, column=5, new_name="compute_area", dry_run=True)
    assert r.success, r.error
    assert r.data["dry_run"] is True and r.data["method"] == "lsp"
    assert r.data["files"] == ["shapes/__init__.py", GEOMETRY, "shapes/labels.py", "shapes/registry.py",
                               "tests/test_shapes.py"]
    minus, plus = diff_lines(r.data["diff"])
    assert '__all__ = ["Circle", "Square", "compute_area", "Registry"]' in plus
    assert "from shapes.geometry import Circle, Square, compute_area" in plus
    assert all("area_of rounds" not in line for line in minus)  # the comment
    assert all('label = "area_of"' not in line for line in minus)  # the string
    assert all("area_of = shape.area()" not in line for line in minus)  # the shadowing local
    # Left alone but listed for review: the shadowing local (code); rename passes may add strings.
    assert {(GEOMETRY, 38), (GEOMETRY, 39)} <= {(u["path"], u["line"]) for u in r.data["unconfirmed"]}


def test_rename_from_use_site_applies_everywhere_then_undo_restores_all(
        env: tuple[ToolContext, Caller], call: Caller, proj: Path, pristine: dict[str, bytes]) -> None:
    ctx, _ = env
    line, col = line_col(proj, "shapes/labels.py", 7, "area_of")  # after "été 🎉" on the same line
    r = call("rename_symbol", file_path="shapes/labels.py", line=line, column=col, new_name="compute_area")
    assert r.success, r.error
    try:
        changed = changed_lines(proj, pristine)
        assert set(changed) == {"shapes/__init__.py", GEOMETRY, "shapes/labels.py", "shapes/registry.py",
                                "tests/test_shapes.py"}
        assert changed["shapes/labels.py"] == [
            ("from shapes.geometry import Circle, area_of", "from shapes.geometry import Circle, compute_area"),
            ('    naïve = "été 🎉"; return f"{naïve} {area_of(circle)}"',
             '    naïve = "été 🎉"; return f"{naïve} {compute_area(circle)}"'),
            ('    emoji = "🎉🎉"; size = Circle(2.0).scale(0.5); return f"{emoji} {area_of(size, precision=3)}"',
             '    emoji = "🎉🎉"; size = Circle(2.0).scale(0.5); return f"{emoji} {compute_area(size, precision=3)}"'),
        ]
        assert [new for _, new in changed[GEOMETRY]] == [
            "def compute_area(shape: Circle | Square, *, precision: int = 2) -> float:"]
        # The renamed project still passes its own tests.
        run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"], cwd=proj,
                             capture_output=True, text=True, timeout=120,
                             env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"})
        assert run.returncode == 0, run.stdout[-2000:]
        assert r.data["journal_id"]
    finally:
        ctx.workspace.undo()
    assert tree(proj) == pristine


def test_method_rename_through_instances_leaves_unrelated_same_name(call: Caller, proj: Path) -> None:
    r = call("rename_symbol", file_path=GEOMETRY, line=12, column=9, new_name="resized", dry_run=True)
    assert r.success, r.error
    sites = {(s["path"], s["line"]) for s in r.data["sites"]}
    assert (GEOMETRY, 12) in sites
    assert ("shapes/labels.py", 11) in sites  # Circle(2.0).scale(0.5) in another module
    assert ("tests/test_shapes.py", 15) in sites  # Circle(1.0).scale(2.0)
    assert ("shapes/registry.py", 16) not in sites  # Registry.scale: another class's method
    assert (GEOMETRY, 23) not in sites  # Square.scale


def test_parameter_rename_updates_keyword_arguments(call: Caller) -> None:
    line, col = 30, 41
    r = call("rename_symbol", file_path=GEOMETRY, line=line, column=col, new_name="digits", dry_run=True)
    assert r.success, r.error
    sites = {(s["path"], s["line"]) for s in r.data["sites"]}
    assert {(GEOMETRY, 30), (GEOMETRY, 32), ("shapes/labels.py", 11), ("shapes/registry.py", 21),
            ("tests/test_shapes.py", 11)} <= sites
    assert (GEOMETRY, 35) not in sites  # total_area's own `precision` parameter


def test_shadowed_local_renames_only_its_scope(call: Caller) -> None:
    r = call("rename_symbol", file_path=GEOMETRY, line=38, column=9, new_name="piece", dry_run=True)
    assert r.success, r.error
    assert {(s["path"], s["line"]) for s in r.data["sites"]} == {(GEOMETRY, 38), (GEOMETRY, 39)}


class TouchFile:
    """A rename pass that changes a file on disk after the plan was made (a concurrent editor)."""

    name = "touch"

    def __init__(self, path: Path):
        self.path = path

    def complete(self, ctx: ToolContext, plan: EditPlan, session: LspSession | None) -> None:
        self.path.write_text(self.path.read_text(encoding="utf-8") + "# edited meanwhile\n", encoding="utf-8")


def test_stale_file_is_rejected_and_nothing_written(env: tuple[ToolContext, Caller], proj: Path,
                                                     pristine: dict[str, bytes]) -> None:
    ctx, call = env
    target = proj / "shapes/registry.py"
    passes = rename_passes(ctx)
    passes.append(TouchFile(target))
    try:
        r = call("rename_symbol", file_path=GEOMETRY, line=30, column=5, new_name="compute_area")
    finally:
        passes.clear()
    edited = target.read_bytes()
    target.write_bytes(pristine["shapes/registry.py"])
    assert not r.success and "changed since" in (r.error or "")
    assert edited == pristine["shapes/registry.py"] + b"# edited meanwhile\n"
    assert tree(proj) == pristine


def test_diagnostics_and_the_delta_after_a_breaking_edit(env: tuple[ToolContext, Caller], proj: Path,
                                                         pristine: dict[str, bytes]) -> None:
    ctx, call = env
    r = call("get_diagnostics", file_path="shapes/labels.py")
    assert r.success, r.error
    assert r.data["errors"] == 0
    broken = pristine["shapes/labels.py"].decode().replace("area_of(circle)", "area_off(circle)")
    w = call("write_file", file_path="shapes/labels.py", content=broken)
    try:
        assert w.success, w.error
        introduced = w.data["diagnostics"]["introduced"]
        assert any(d["severity"] == "error" and "area_off" in d["message"] and d["line"] == 7 for d in introduced)
        assert "diagnostics the edit introduced" in w.output
        after = call("get_diagnostics", file_path="shapes/labels.py")
        assert after.data["errors"] >= 1
    finally:
        ctx.workspace.undo()
    assert tree(proj) == pristine


def test_server_killed_mid_session_is_restarted(env: tuple[ToolContext, Caller], call: Caller) -> None:
    ctx, _ = env
    session = session_for(ctx, "python")
    assert call("find_references", file_path=GEOMETRY, line=30, column=5).success
    pid = session.pid
    assert pid is not None and session in running_sessions(ctx)
    os.kill(pid, signal.SIGKILL)
    r = call("find_references", file_path=GEOMETRY, line=30, column=5)
    assert r.success, r.error
    assert r.data["count"] == 11 and r.data["complete"] is True
    assert session.pid not in (None, pid) and session.restarts >= 1
