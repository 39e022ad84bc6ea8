"""A real daemon does its own work after a reply (the call's log line, the servers' upkeep, the
listing) only once the client has read the reply and closed the connection, or after a bound when
a client keeps it open: on a machine with two cores that work otherwise takes the CPU the client
needs to wake up and read its reply."""

from __future__ import annotations

import json
import os
import socket
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from semantic_helpers import DAEMON_IDLE, run_cli, served, stop_daemon

from agent.daemon.protocol import CLOSE_WAIT_S, inputs_id, install_id, recv_message, send_message, state_dir

pytestmark = pytest.mark.timeout(300)
ENV = {"CODEAGENT_CONFIG": os.devnull, "CODEAGENT_DAEMON_IDLE_TIMEOUT": DAEMON_IDLE}


@pytest.fixture(scope="module")
def warm(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    root = (tmp_path_factory.mktemp("after") / "proj").resolve()
    root.mkdir()
    (root / "a.py").write_text("def f():\n    return 1\n")
    started = run_cli("daemon", "start", "--root", str(root), "--json")
    assert started.returncode == 0 and started.json["success"], started.stderr + started.stdout
    args = json.dumps({"file_path": "a.py"})
    for _ in range(2):  # (the second is served by the fast path: the daemon knows these inputs)
        call = run_cli("tool", "read_file", "--root", str(root), "--args", args)
        assert call.returncode == 0, call.stderr + call.stdout
    assert served(root, 2) == ["read_file", "read_file"], served(root)
    yield root
    stop_daemon(root)


def _ask(root: Path) -> socket.socket:
    """A fast-path read_file request (as `codeagent tool` sends it) whose reply is read while the
    connection stays open."""
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(60)
    sock.connect(str(state_dir(root) / "sock"))
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1", **ENV}
    send_message(sock, {"op": "tool", "build": install_id(), "inputs": inputs_id(root, env), "name": "read_file",
                        "args": {"file_path": "a.py"}})
    reply = recv_message(sock)
    assert reply.get("ok") and reply["result"]["success"], reply
    return sock


def test_the_after_work_waits_until_the_client_has_closed(warm: Path) -> None:
    before = len(served(warm))
    sock = _ask(warm)
    try:
        time.sleep(min(0.25, CLOSE_WAIT_S / 2))
        assert len(served(warm, timeout=0)) == before  # replied, but nothing done after it yet
    finally:
        sock.close()
    assert len(served(warm, before + 1, timeout=10)) == before + 1  # done once the client closed


def test_a_client_that_keeps_the_connection_open_holds_the_daemon_only_briefly(warm: Path) -> None:
    before = len(served(warm))
    sock = _ask(warm)
    try:
        started = time.monotonic()
        assert len(served(warm, before + 1, timeout=CLOSE_WAIT_S + 10)) == before + 1
        assert time.monotonic() - started < CLOSE_WAIT_S + 5
        follow = run_cli("tool", "read_file", "--root", str(warm), "--args", json.dumps({"file_path": "a.py"}))
        assert follow.returncode == 0 and json.loads(follow.stdout)["success"], follow.stderr + follow.stdout
        assert len(served(warm, before + 2)) == before + 2  # the next client is served as usual
    finally:
        sock.close()
