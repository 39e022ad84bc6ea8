"""`codeagent mcp` as a real subprocess spoken to in raw JSON-RPC lines: a command ends at its
timeout or as soon as the client cancels the call (or leaves), never at the end of the session;
a line that is not JSON gets JSON-RPC's parse error, and the session goes on."""

from __future__ import annotations

import json
import os
import secrets
import select
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

COMMAND = shutil.which("codeagent", path=str(Path(sys.executable).parent)) or "codeagent"
WAIT = 60.0


class Session:
    """One `codeagent mcp` process, initialized."""

    def __init__(self, root: Path):
        # unbuffered: select() then sees every byte not yet read (no line hidden in a buffer)
        self.proc = subprocess.Popen([COMMAND, "mcp", "--root", str(root)], cwd=root, stdin=subprocess.PIPE, bufsize=0,
                                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                     env={**os.environ, "CODEAGENT_CONFIG": os.devnull})
        self.send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "test", "version": "0"}}})
        assert self.response(1)["result"]["serverInfo"]["name"] == "codeagent"
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def send_raw(self, data: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def send(self, message: dict[str, Any]) -> None:
        self.send_raw((json.dumps(message) + "\n").encode())

    def line(self, timeout: float = WAIT) -> dict[str, Any]:
        assert self.proc.stdout is not None
        ready, _, _ = select.select([self.proc.stdout], [], [], timeout)
        assert ready, f"no message from the server within {timeout:g} s"
        raw = self.proc.stdout.readline()
        assert raw, "the server closed stdout"
        return dict(json.loads(raw))

    def response(self, request_id: int | None) -> dict[str, Any]:
        while True:
            message = self.line()
            if "method" not in message and message.get("id") == request_id:
                return message

    def call(self, request_id: int, name: str, arguments: dict[str, Any]) -> None:
        self.send({"jsonrpc": "2.0", "id": request_id, "method": "tools/call",
                   "params": {"name": name, "arguments": arguments}})

    def ping(self, request_id: int) -> float:
        start = time.monotonic()
        self.send({"jsonrpc": "2.0", "id": request_id, "method": "ping"})
        assert self.response(request_id)["result"] == {}
        return time.monotonic() - start

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        for pipe in (self.proc.stdin, self.proc.stdout):
            if pipe is not None and not pipe.closed:
                pipe.close()


@pytest.fixture
def session(tmp_path: Path) -> Iterator[Session]:
    root = (tmp_path / "ws").resolve()
    root.mkdir()
    s = Session(root)
    try:
        yield s
    finally:
        s.close()


def sleepers(tag: str) -> list[int]:
    """Live (not zombie) processes whose command line holds `tag`."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if tag in cmdline and state != "Z":
            found.append(int(entry.name))
    return found


def wait_for(predicate: Any, timeout: float) -> float | None:
    """Seconds until `predicate()` held, or None if it never did within `timeout`."""
    start = time.monotonic()
    while time.monotonic() - start < timeout:
        if predicate():
            return time.monotonic() - start
        time.sleep(0.1)
    return None


def tag() -> str:
    return f"300.{secrets.randbelow(10**6) + 10**6}"


def test_a_timed_out_command_is_killed_at_its_timeout(session: Session) -> None:
    duration = tag()
    start = time.monotonic()
    session.call(2, "run_command", {"argv": ["sleep", duration], "timeout": 2})
    assert wait_for(lambda: sleepers(duration), 30) is not None, "the command never started"
    result = session.response(2)["result"]
    assert result["isError"] is True and result["structuredContent"]["data"]["timed_out"] is True
    assert wait_for(lambda: not sleepers(duration), 3) is not None, f"still running: {sleepers(duration)}"
    assert time.monotonic() - start < 15
    assert session.proc.poll() is None and session.ping(3) < 5  # the session goes on


def test_a_cancelled_call_kills_its_command_at_once(session: Session) -> None:
    """The client gives up (notifications/cancelled, as the SDK sends on its own request timeout):
    the command dies now, not at its 120 s timeout, and the next call is not held up by it."""
    duration = tag()
    session.call(2, "run_shell_command", {"command": f"sleep {duration} & sleep {duration}", "timeout": 120})
    assert wait_for(lambda: len(sleepers(duration)) >= 2, 30) is not None, "the command never started"
    session.send({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 2}})
    assert wait_for(lambda: not sleepers(duration), 8) is not None, f"still running: {sleepers(duration)}"
    start = time.monotonic()
    session.call(3, "run_command", {"argv": ["echo", "after"], "timeout": 30})
    result = session.response(3)["result"]
    assert result["isError"] is False and "after" in result["content"][0]["text"]
    assert time.monotonic() - start < 20


def test_closing_the_session_kills_a_running_command(session: Session) -> None:
    duration = tag()
    session.call(2, "run_command", {"argv": ["sleep", duration], "timeout": 120})
    assert wait_for(lambda: sleepers(duration), 30) is not None, "the command never started"
    assert session.proc.stdin is not None
    session.proc.stdin.close()
    assert wait_for(lambda: not sleepers(duration), 8) is not None, f"still running: {sleepers(duration)}"
    assert session.proc.wait(timeout=WAIT) == 0


def test_a_line_that_is_not_json_gets_a_parse_error(session: Session) -> None:
    session.send_raw(b"not json\n")
    error = session.line(timeout=10)
    assert error["jsonrpc"] == "2.0" and error["id"] is None and error["error"]["code"] == -32700, error
    session.send_raw(b'{"jsonrpc": "2.0", "what": 1}\n')
    error = session.line(timeout=10)
    assert error["id"] is None and error["error"]["code"] == -32600, error
    assert session.ping(7) < 5
    session.call(8, "run_command", {"argv": ["echo", "still-here"], "timeout": 30})
    result = session.response(8)["result"]
    assert result["isError"] is False and "still-here" in result["content"][0]["text"]
