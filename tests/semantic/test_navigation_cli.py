"""`codeagent type|calls|impls|hierarchy|fix` as a user runs them: the real command, through the
workspace's daemon (a warm one answers on the CLI's stdlib-only fast path), on a copy of
fixtures/navpy."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from semantic_helpers import DAEMON_IDLE, copy_fixture, run_cli, served, stop_daemon

from agent.commands.via_daemon import try_fast

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


def _uncached(out: str) -> dict[str, object]:
    """A --json result without the daemon's `cached` mark (a repeated query is answered from memory)."""
    result: dict[str, Any] = json.loads(out)
    result["data"].pop("cached", None)
    return result


def test_warm_navigation_commands_take_the_fast_path_and_print_as_in_process(
        proj: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    commands = {("type", "app/report.py:7:5"): "type_info",
                ("calls", "app/report.py:5:5", "--outgoing", "--depth", "2"): "call_hierarchy",
                ("impls", "shapes/base.py:29:9"): "find_implementations",
                ("hierarchy", "shapes/base.py:28:7", "--down"): "type_hierarchy"}
    # in-process first: these take longer than a test daemon's idle timeout
    here = {argv: (run_cli(*argv, "--no-daemon", cwd=proj), run_cli(*argv, "--no-daemon", "--json", cwd=proj))
            for argv in commands}
    for text, as_json in here.values():
        assert text.returncode == 0 and as_json.returncode == 0, text.stderr + as_json.stderr
    first = run_cli("type", "app/report.py:7:5", cwd=proj)  # starts the daemon; teaches it the settings
    assert first.returncode == 0, first.stderr
    assert served(proj, 1) == ["type_info"]  # (its line is written after the reply: counted before the loop)
    monkeypatch.chdir(proj)
    monkeypatch.setenv("CODEAGENT_CONFIG", os.devnull)  # the environment run_cli gives the CLI
    monkeypatch.setenv("CODEAGENT_DAEMON_IDLE_TIMEOUT", DAEMON_IDLE)
    for argv, tool in commands.items():
        before = len(served(proj))
        capsys.readouterr()
        assert try_fast(list(argv)) == 0, argv
        assert capsys.readouterr().out == here[argv][0].stdout
        assert try_fast([*argv, "--json"]) == 0, argv
        assert _uncached(capsys.readouterr().out) == _uncached(here[argv][1].stdout)
        assert served(proj, before + 2)[before:] == [tool, tool]  # the daemon answered both
    # a quick fix applied on the fast path: journaled (undo restores it), the undo hint on stderr
    missing = proj / "app" / "missing.py"
    before = len(served(proj))
    missing.write_text("def f():\n    return make_box(1)\n")
    assert try_fast(["fix", "app/missing.py:2:12"]) == 0
    assert "1. from shapes.base import make_box" in capsys.readouterr().out
    assert try_fast(["fix", "app/missing.py:2:12", "--apply", "from shapes.base import make_box"]) == 0
    assert "codeagent undo" in capsys.readouterr().err
    assert served(proj, before + 2)[-2:] == ["code_actions", "apply_code_action"]
    assert missing.read_text() == "from shapes.base import make_box\n\n\ndef f():\n    return make_box(1)\n"
    assert run_cli("undo", cwd=proj).returncode == 0
    assert missing.read_text() == "def f():\n    return make_box(1)\n"
    # what the fast path leaves to the normal one (which explains it)
    assert try_fast(["type", "app/report.py:7"]) is None
    assert try_fast(["hierarchy", "shapes/base.py:28:7", "--up", "--down"]) is None
    assert try_fast(["type", "app/report.py:7:5", "--no-daemon"]) is None
    r = run_cli("hierarchy", "shapes/base.py:28:7", "--up", "--down", cwd=proj)
    assert r.returncode == 2 and "not allowed with argument" in r.stderr
