"""`codeagent tool NAME` through the workspace's warm daemon (issue 15, point 9), with the real
CLI, daemon and basedpyright: read-only tools are answered by the daemon (its log names each
call it served), and give the same result as in-process; edits and shell commands still run in
the calling process, journaled and undoable."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from clikit import codeagent_command
from semantic_helpers import DAEMON_IDLE, run_cli, served, stop_daemon

SOURCE = "def greet(name):\n    return 'hi ' + name\n\n\nprint(greet('x'))\n"


@pytest.fixture
def ws(root: Path) -> Iterator[Path]:
    (root / "app.py").write_text(SOURCE, encoding="utf-8")
    yield root
    stop_daemon(root)


def test_read_only_tools_are_answered_by_the_warm_daemon(ws: Path) -> None:
    refs = {"file_path": "app.py", "line": 1, "column": 5}
    first = run_cli("tool", "find_references", "--root", str(ws), "--args", json.dumps(refs))
    assert first.returncode == 0, first.stderr
    assert first.json["data"]["count"] == 2
    assert served(ws, 1) == ["find_references"]  # it started the daemon, as `codeagent refs` does
    args = json.dumps({"file_path": "app.py"})
    warm = run_cli("tool", "read_file", "--root", str(ws), "--args", args)
    again = run_cli("tool", "find_references", "--root", str(ws), "--args", json.dumps(refs))
    assert served(ws, 3) == ["find_references", "read_file", "find_references"]
    cold = run_cli("tool", "read_file", "--root", str(ws), "--args", args, "--no-daemon")
    assert warm.returncode == cold.returncode == 0
    assert warm.stdout == cold.stdout  # the same JSON either way
    assert again.stdout == first.stdout
    # --args - (stdin) reaches the daemon too
    proc = subprocess.run([*codeagent_command(), "tool", "read_file", "--root", str(ws), "--args", "-"],
                          input=args, capture_output=True, text=True, timeout=240,
                          env={**os.environ, "CODEAGENT_CONFIG": "/dev/null",
                               "CODEAGENT_DAEMON_IDLE_TIMEOUT": DAEMON_IDLE})
    assert proc.returncode == 0 and proc.stdout == cold.stdout
    assert served(ws, 4)[-1] == "read_file"
    # a usage error says so, exit 2, from the daemon as from the process
    bad = run_cli("tool", "read_file", "--root", str(ws), "--args", '{"path": "app.py"}')
    assert bad.returncode == 2 and "unknown parameter(s) path" in bad.stderr


def test_edits_run_in_the_calling_process_journaled_and_undoable(ws: Path) -> None:
    started = run_cli("daemon", "start", "--root", str(ws))
    assert started.returncode == 0, started.stderr
    before = served(ws)
    edit = {"file_path": "app.py", "old_text": "'hi '", "new_text": "'hello '"}
    res = run_cli("tool", "replace_in_file", "--root", str(ws), "--args", json.dumps(edit))
    assert res.returncode == 0, res.stderr
    assert res.json["data"]["journal_id"]
    assert "'hello '" in (ws / "app.py").read_text(encoding="utf-8")
    shell = run_cli("tool", "run_command", "--root", str(ws), "--stream", "--args",
                    json.dumps({"argv": ["echo", "streamed-line"]}))
    assert "streamed-line" in shell.stderr  # --stream: live on this terminal's stderr
    assert served(ws) == before  # neither reached the daemon
    undone = run_cli("undo", "--root", str(ws))
    assert undone.returncode == 0, undone.stderr
    assert (ws / "app.py").read_text(encoding="utf-8") == SOURCE
