"""A cold semantic command that its new daemon answered ends the moment its answer is printed
(agent/entry.py): the process loaded only the settings and the daemon client, and the
interpreter's orderly teardown of them would only delay the end of the command. A command that
did its work in this process (here `--no-daemon`) still ends in order (its atexit handlers run)."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from clikit import codeagent_command
from semantic_helpers import DAEMON_IDLE, copy_fixture, stop_daemon

pytestmark = pytest.mark.timeout(600)

# Imported by every Python process started with this PYTHONPATH: an orderly exit leaves a file
# named by its pid (os._exit runs no atexit handler, so leaves none).
_SITECUSTOMIZE = """
import atexit, os

def _ended_in_order():
    folder = os.environ.get("CODEAGENT_TEST_EXIT_MARKERS")
    if folder:
        open(os.path.join(folder, str(os.getpid())), "w").close()

atexit.register(_ended_in_order)
"""


def _run(args: list[str], env: dict[str, str]) -> tuple[int, str]:
    proc = subprocess.Popen([*codeagent_command(), *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=env)
    out, err = proc.communicate(timeout=300)
    assert proc.returncode == 0, err
    return proc.pid, out


def test_a_cold_command_answered_by_its_daemon_ends_without_the_teardown(tmp_path: Path) -> None:
    root = copy_fixture("pyproj", tmp_path / "proj")
    site, markers = tmp_path / "site", tmp_path / "markers"
    site.mkdir()
    markers.mkdir()
    (site / "sitecustomize.py").write_text(_SITECUSTOMIZE, encoding="utf-8")
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1", "CODEAGENT_CONFIG": os.devnull,
           "CODEAGENT_DAEMON_IDLE_TIMEOUT": DAEMON_IDLE, "CODEAGENT_TEST_EXIT_MARKERS": str(markers),
           "PYTHONPATH": os.pathsep.join(p for p in (str(site), os.environ.get("PYTHONPATH")) if p)}
    query = ["refs", "shapes/geometry.py:30:5", "--root", str(root), "--json"]
    try:
        cold, out = _run(query, env)
        answer = json.loads(out)  # all of it, flushed before the end
        assert answer["success"] is True and answer["data"]["count"] == 11
        assert not (markers / str(cold)).exists(), "the cold command went through the interpreter's teardown"
        local, local_out = _run([*query, "--no-daemon"], env)
        assert json.loads(local_out) == answer
        assert (markers / str(local)).exists(), "a command that worked in-process must end in order"
    finally:
        stop_daemon(root)
