"""A workspace daemon serves only processes of its own user outside any sandbox: a real daemon,
reached from a plain process (served), from processes that look sandboxed (NoNewPrivs, another
user namespace: refused and logged) and from commands in the real Landlock and bubblewrap
sandboxes (they cannot even reach the socket)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from semantic_helpers import codeagent_command, run_cli, stop_daemon

from agent.config import ShellSettings
from agent.daemon.client import process_alive
from agent.daemon.protocol import state_dir
from agent.shell.runner import run_command
from agent.shell.sandbox import probe_bwrap, probe_landlock
from agent.workspace import Workspace

pytestmark = pytest.mark.timeout(600)


@pytest.fixture
def daemon(tmp_path: Path) -> Iterator[tuple[Path, int]]:
    root = (tmp_path / "proj").resolve()
    root.mkdir()
    (root / "a.py").write_text("def f():\n    return 1\n")
    started = run_cli("daemon", "start", "--root", str(root), "--json")
    assert started.returncode == 0 and started.json["success"], started.stderr + started.stdout
    yield root, int(started.json["pid"])
    stop_daemon(root)


def _status(root: Path, *wrapper: str) -> bool:
    """Whether `codeagent daemon status`, run under `wrapper` (a plain subprocess without one),
    was answered by the daemon."""
    env = {**os.environ, "CODEAGENT_CONFIG": os.devnull, "CODEAGENT_DAEMON_IDLE_TIMEOUT": "30"}
    proc = subprocess.run([*wrapper, *codeagent_command(), "daemon", "status", "--root", str(root), "--json"],
                          capture_output=True, text=True, timeout=120, env=env)
    assert proc.returncode == 0, proc.stderr
    return bool(json.loads(proc.stdout)["running"])


def _log(root: Path) -> str:
    return (state_dir(root) / "daemon.log").read_text(errors="replace")


def test_only_a_plain_process_of_the_same_user_is_served(daemon: tuple[Path, int], tmp_path: Path) -> None:
    root, pid = daemon
    assert _status(root)  # a plain subprocess of the same user
    if shutil.which("setpriv") is None or shutil.which("unshare") is None:
        pytest.skip("needs setpriv and unshare (util-linux)")
    assert not _status(root, "setpriv", "--no-new-privs")
    assert "refused a connection" in _log(root) and "NoNewPrivs" in _log(root)
    userns = subprocess.run(["unshare", "--user", "--map-root-user", "true"], capture_output=True)
    if userns.returncode == 0:
        assert not _status(root, "unshare", "--user", "--map-root-user")
        assert "another user namespace" in _log(root)
    sock = state_dir(root) / "sock"
    attack = (f"python3 -c \"import socket; s = socket.socket(socket.AF_UNIX); s.connect('{sock}'); "
              "s.sendall(b'{\\\"op\\\": \\\"stop\\\"}\\n'); print('REPLY', s.recv(200))\"; echo end")
    ws = tmp_path / "ws"
    ws.mkdir()
    tried = []
    for backend, problem in (("landlock", probe_landlock()), ("bwrap", probe_bwrap(shutil.which("bwrap")))):
        if problem is not None:
            continue
        res = run_command(ShellSettings(sandbox=backend), Workspace(ws), ["bash", "-c", attack], cwd=ws, timeout=60,
                          base_env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}, home=str(tmp_path))
        assert "end" in res.output and "REPLY" not in res.output, (backend, res.output)
        tried.append(backend)
    assert process_alive(pid) and _status(root)  # nobody above could stop it; the plain client still can
    if not tried:
        pytest.skip("no sandbox can start here")
