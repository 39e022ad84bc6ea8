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


# As _PROBE, and whether this process imported pydantic (the settings models) at all.
_PROBE_SETTINGS = _PROBE.replace('"lsp_bridge.session")', '"lsp_bridge.session", "pydantic")')


def _probe_env() -> dict[str, str]:
    return {**os.environ, "PYTHONDONTWRITEBYTECODE": "1", "CODEAGENT_CONFIG": os.devnull,
            "CODEAGENT_DAEMON_IDLE_TIMEOUT": DAEMON_IDLE}


def _probe_settings(root: Path) -> tuple[dict[str, object], dict[str, object]]:
    proc = subprocess.run([sys.executable, "-c", _PROBE_SETTINGS, "refs", "shapes/geometry.py:30:5", "--root",
                           str(root), "--json"], capture_output=True, text=True, timeout=300, env=_probe_env())
    return json.loads(proc.stdout), json.loads(proc.stderr.strip().splitlines()[-1])


def test_a_second_cold_start_forks_before_the_settings_models_load(tmp_path: Path) -> None:
    """The first cold start loads the settings and stores their snapshot; the next one (the
    settings' sources unchanged) forks the daemon from it without importing pydantic, and the
    daemon, which loads and compares the settings itself, gives the same answer."""
    from agent.configsnapshot import forget, snapshot_file

    root = copy_fixture("pyproj", tmp_path)
    try:
        first, probe = _probe_settings(root)
        assert probe == {"code": 0, "heavy": ["pydantic"]}
        assert snapshot_file(root).is_file()
        stop_daemon(root)
        second, probe = _probe_settings(root)
        assert probe == {"code": 0, "heavy": []}
        assert second == first and first["data"]["count"] == 11
    finally:
        stop_daemon(root)
        forget(snapshot_file(root))


def test_a_snapshot_other_than_the_settings_is_never_served(tmp_path: Path) -> None:
    """A snapshot under the right key holding other settings (as if stale or written by someone
    else): the forked daemon finds the settings differ, kills the server it spawned and does not
    serve; the snapshot is deleted and the normal path gives the right answer."""
    from agent.config import load_settings
    from agent.configsnapshot import forget, settings_key, snapshot_file, store_snapshot
    from agent.daemon.protocol import state_dir

    root = copy_fixture("pyproj", tmp_path)
    env = _probe_env()
    other = json.loads(load_settings(root, env=env).model_dump_json())
    other["lsp"]["max_results"] = 10  # 11 references: a daemon serving these would cut the list
    assert store_snapshot(root, settings_key(root, env), json.dumps(other), [])
    try:
        out, probe = _probe_settings(root)
        assert probe["code"] == 0 and "pydantic" in probe["heavy"]  # (the normal path answered)
        assert out["success"] is True and out["data"]["count"] == 11
        assert not snapshot_file(root).exists()
        assert "StaleSnapshot" in (state_dir(root) / "daemon.log").read_text(encoding="utf-8")
        in_process = run_cli("refs", "shapes/geometry.py:30:5", "--root", str(root), "--json", "--no-daemon")
        assert json.loads(in_process.stdout) == out
    finally:
        stop_daemon(root)
        forget(snapshot_file(root))


def test_the_daemon_forked_from_a_snapshot_spawns_the_server_before_loading_pydantic(tmp_path: Path) -> None:
    """The server's parent (the forked daemon) has not loaded pydantic when it spawns the server
    on a cold start from a snapshot; it had on the cold start that stored the snapshot. Seen by
    the server command itself (a user setting): it reads its parent's memory map, then runs the
    real server."""
    from agent.configsnapshot import forget, snapshot_file
    from lsp_bridge.servers import get_spec, resolve_command

    root = copy_fixture("pyproj", tmp_path)
    real, _folder = resolve_command(get_spec("basedpyright"), auto_install=False)
    marks = tmp_path / "spawns.txt"
    server = tmp_path / "server.sh"
    server.write_text(f"#!/bin/sh\ngrep -c _pydantic_core /proc/$PPID/maps >> {marks}\nexec {' '.join(real)}\n",
                      encoding="utf-8")
    server.chmod(0o755)
    user = tmp_path / "user.toml"
    user.write_text(f'[lsp]\nserver_commands = {{python = ["{server}"]}}\n', encoding="utf-8")
    env = {**_probe_env(), "CODEAGENT_CONFIG": str(user)}

    def cold_refs() -> dict[str, object]:
        proc = subprocess.run([sys.executable, "-m", "agent.cli", "refs", "shapes/geometry.py:30:5", "--root",
                               str(root), "--json"], capture_output=True, text=True, timeout=300, env=env)
        assert proc.returncode == 0, proc.stderr
        out: dict[str, object] = json.loads(proc.stdout)
        return out

    try:
        first = cold_refs()
        assert snapshot_file(root).is_file()
        subprocess.run([sys.executable, "-m", "agent.cli", "daemon", "stop", "--root", str(root)], env=env,
                       capture_output=True, timeout=60, check=True)
        second = cold_refs()
        assert second == first and first["success"] is True
        counts = [int(n) for n in marks.read_text(encoding="utf-8").split()]
        assert counts[0] > 0 and counts[-1] == 0 and len(counts) == 2  # one spawn each, adopted by the session
    finally:
        subprocess.run([sys.executable, "-m", "agent.cli", "daemon", "stop", "--root", str(root)], env=env,
                       capture_output=True, timeout=60)
        forget(snapshot_file(root))
