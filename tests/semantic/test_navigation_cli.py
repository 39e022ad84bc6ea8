"""`codeagent type|calls|impls|hierarchy|fix` as a user runs them: the real command, through the
workspace's daemon, on a copy of fixtures/navpy."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from semantic_helpers import copy_fixture, run_cli, stop_daemon

pytestmark = pytest.mark.timeout(900)


@pytest.fixture
def proj(tmp_path: Path) -> Iterator[Path]:
    root = copy_fixture("navpy", tmp_path)
    yield root
    stop_daemon(root)


def test_navigation_commands_through_the_daemon(proj: Path) -> None:
    r = run_cli("calls", "shapes/kinds.py:15:9", "--json", cwd=proj)
    assert r.returncode == 0, r.stderr
    assert sorted(n["qualified_name"] for n in r.json["data"]["calls"]) == [
        "app/main.py::main", "app/report.py::report", "shapes/ops.py::double"]
    r = run_cli("calls", "app/report.py:5:5", "--outgoing", "--depth", "2", cwd=proj)
    assert r.returncode == 0, r.stderr
    assert "callees of app/report.py::report" in r.stdout and "shapes/base.py::make_box" in r.stdout
    r = run_cli("type", "app/report.py:7:5", cwd=proj)
    assert r.returncode == 0 and "type: Square" in r.stdout, r.stderr
    r = run_cli("impls", "shapes/base.py:29:9", cwd=proj)
    assert r.returncode == 0 and "in Circle.area" in r.stdout, r.stderr
    r = run_cli("hierarchy", "shapes/kinds.py:8:7", "--up", cwd=proj)
    assert r.returncode == 0 and "shapes/base.py::Shape" in r.stdout, r.stderr
    r = run_cli("type", "app/report.py:7", cwd=proj)
    assert r.returncode == 2 and "PATH:LINE:COL" in r.stderr


def test_fix_applies_a_quick_fix_and_undo_restores(proj: Path) -> None:
    missing = proj / "app" / "missing.py"
    missing.write_text("def f():\n    return make_box(1)\n")
    r = run_cli("fix", "app/missing.py:2:12", cwd=proj)
    assert r.returncode == 0, r.stderr
    assert "1. from shapes.base import make_box" in r.stdout
    r = run_cli("fix", "app/missing.py:2:12", "--apply", "from shapes.base import make_box", cwd=proj)
    assert r.returncode == 0, r.stderr
    assert missing.read_text() == "from shapes.base import make_box\n\n\ndef f():\n    return make_box(1)\n"
    r = run_cli("undo", cwd=proj)
    assert r.returncode == 0, r.stderr
    assert missing.read_text() == "def f():\n    return make_box(1)\n"
    r = run_cli("fix", "app/missing.py:2:12", "--apply", "no such fix", cwd=proj)
    assert r.returncode == 1 and "no code action titled 'no such fix'" in r.stderr
