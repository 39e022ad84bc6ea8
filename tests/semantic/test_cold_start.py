"""A semantic command with no daemon running (agent/commands/cold_start.py): the CLI forks the
daemon right after loading the settings, so the language server starts before the tools and the
protocol layer are imported, and this process never imports them at all; the answer is the one
the in-process path gives."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from semantic_helpers import DAEMON_IDLE, copy_fixture, run_cli, stop_daemon

pytestmark = pytest.mark.timeout(600)

# Runs the real CLI entry point, then says which heavy modules this (the calling) process loaded.
_PROBE = """
import json, sys
from agent.cli import main
code = main(sys.argv[1:])
heavy = [m for m in ("lsprotocol", "agent.bootstrap", "agent.registry", "lsp_bridge.session") if m in sys.modules]
print(json.dumps({"code": code, "heavy": heavy}), file=sys.stderr)
"""


def _probe(*args: str, env: dict[str, str] | None = None) -> tuple[dict[str, object], dict[str, object]]:
    full_env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1", "CODEAGENT_CONFIG": os.devnull,
                "CODEAGENT_DAEMON_IDLE_TIMEOUT": DAEMON_IDLE, **(env or {})}
    proc = subprocess.run([sys.executable, "-c", _PROBE, *args], capture_output=True, text=True,
                          timeout=300, env=full_env)
    probe = json.loads(proc.stderr.strip().splitlines()[-1])
    return json.loads(proc.stdout), probe


def test_cold_refs_forks_the_daemon_before_the_tools_load(tmp_path: Path) -> None:
    root = copy_fixture("pyproj", tmp_path)
    try:
        out, probe = _probe("refs", "shapes/geometry.py:30:5", "--root", str(root), "--json")
        assert probe == {"code": 0, "heavy": []}  # the answer came from the daemon, nothing else loaded here
        assert out["success"] is True and out["data"]["count"] == 11
        status = run_cli("daemon", "status", "--root", str(root), "--json")
        assert status.json["running"] is True
        in_process = run_cli("refs", "shapes/geometry.py:30:5", "--root", str(root), "--json", "--no-daemon")
        assert in_process.returncode == 0, in_process.stderr
        assert json.loads(in_process.stdout) == out
    finally:
        stop_daemon(root)


def test_cold_start_leaves_unusual_cases_to_the_normal_path(tmp_path: Path) -> None:
    """A project config the settings ignore part of: the normal path runs (it prints the warning),
    and so it loads the tools; the answer is still right."""
    root = copy_fixture("pyproj", tmp_path)
    # a user-only setting in an untrusted project file: ignored, with a warning
    (root / ".codeagent.toml").write_text('[llm]\nbase_url = "http://127.0.0.1:9"\n', encoding="utf-8")
    try:
        out, probe = _probe("refs", "shapes/geometry.py:30:5", "--root", str(root), "--json")
        assert probe["code"] == 0 and "agent.bootstrap" in probe["heavy"]
        assert out["data"]["count"] == 11
    finally:
        stop_daemon(root)
