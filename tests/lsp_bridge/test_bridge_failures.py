"""Clear errors from servers that misbehave: a small fake server (fake_server.py) that sends invalid
JSON, dies, hangs, sends an oversized frame or never starts; plus install errors."""

from __future__ import annotations

import dataclasses
import os
import signal
import sys
import threading
import time
from pathlib import Path

import pytest
from bridgekit import FAKE_SERVER, wait_gone

from lsp_bridge import (
    LspSession,
    Position,
    ProtocolViolation,
    RequestFailed,
    RequestTimeout,
    ServerCrashed,
    ServerNotInstalled,
    ServerSpec,
    ServerStartError,
)
from lsp_bridge.servers import get_spec, resolve_command

FAKE_SPEC = ServerSpec(name="fake", language="python", language_ids={".py": "python"}, readiness="initialize",
                       locate=lambda _dir: None, install_hint="it is a test server")


def fake(tmp_path: Path, mode: str, **kwargs: float) -> tuple[LspSession, Path, Path]:
    (tmp_path / "m.py").write_text("abc = 1\n")
    log = tmp_path / "server.log"
    session = LspSession(tmp_path, FAKE_SPEC, command=[sys.executable, str(FAKE_SERVER), mode, str(log)],
                         request_timeout=kwargs.get("request_timeout", 30.0), start_timeout=30.0)
    return session, tmp_path / "m.py", log


def test_a_well_behaved_fake_answers(tmp_path: Path) -> None:
    session, target, _ = fake(tmp_path, "ok")
    try:
        [loc] = session.references(target, Position(0, 1))
        assert (loc.path, loc.range.end.character) == (target, 3)
    finally:
        session.stop()


def test_a_references_answer_no_protocol_type_fits_fails_that_request_only(tmp_path: Path) -> None:
    """References results are taken as plain JSON (lsp_bridge.convert.plain_locations): an error
    response, and each malformed result, fails its own request clearly; the server stays in use."""
    session, target, _ = fake(tmp_path, "bad-locations")
    try:
        with pytest.raises(RequestFailed, match="the fake's own failure"):
            session.references(target, Position(0, 1))
        for _ in range(8):
            with pytest.raises(RequestFailed, match="undecodable answer"):
                session.references(target, Position(0, 1))
        [loc] = session.references(target, Position(0, 1))
        assert (loc.path, loc.range.end.character) == (target, 3)
    finally:
        session.stop()


def test_a_chatty_stderr_does_not_block_the_server(tmp_path: Path) -> None:
    session, target, _ = fake(tmp_path, "chatty", request_timeout=20)
    try:
        assert len(session.references(target, Position(0, 1))) == 1  # 2 MiB of stderr were drained
    finally:
        session.stop()


def test_invalid_json_is_a_clear_protocol_error(tmp_path: Path) -> None:
    session, target, _ = fake(tmp_path, "invalid-json")
    started = time.monotonic()
    with pytest.raises(ProtocolViolation, match="invalid JSON from the server"):
        session.references(target, Position(0, 1))
    assert time.monotonic() - started < 20  # failed at once, not by timeout
    assert session.restarts == 1  # restarted and retried once
    session.stop()


def test_oversized_frame_is_refused(tmp_path: Path) -> None:
    session, target, _ = fake(tmp_path, "huge")
    with pytest.raises(ProtocolViolation, match="exceeds the limit"):
        session.references(target, Position(0, 1))
    session.stop()


def test_a_dying_server_fails_the_request_with_its_stderr(tmp_path: Path) -> None:
    session, target, _ = fake(tmp_path, "die")
    with pytest.raises(ServerCrashed, match="exited with code 3") as info:
        session.references(target, Position(0, 1))
    assert "fatal error, giving up" in str(info.value)
    assert session.restarts == 1


def test_a_server_that_cannot_start_says_why(tmp_path: Path) -> None:
    session, target, _ = fake(tmp_path, "no-init")
    with pytest.raises(ServerStartError, match="cannot start, missing configuration"):
        session.references(target, Position(0, 1))


def test_a_missing_program_is_not_installed(tmp_path: Path) -> None:
    session = LspSession(tmp_path, FAKE_SPEC, command=[str(tmp_path / "no-such-server"), "--stdio"])
    (tmp_path / "m.py").write_text("x = 1\n")
    with pytest.raises(ServerNotInstalled, match="program not found"):
        session.references(tmp_path / "m.py", Position(0, 0))


def test_missing_npm_server_without_auto_install_says_how_to_install(tmp_path: Path) -> None:
    with pytest.raises(ServerNotInstalled, match="codeagent servers install tsc"):
        resolve_command(get_spec("tsc"), cache_dir=tmp_path / "empty-cache", auto_install=False)
    with pytest.raises(ServerNotInstalled, match="unknown language server"):
        get_spec("no-such-server")


def test_timeout_cancels_then_kills_a_silent_server_and_the_next_request_restarts(tmp_path: Path) -> None:
    session, target, log = fake(tmp_path, "hang", request_timeout=1.5)
    assert session.ready(timeout=30)
    first_pid = session.pid
    assert first_pid is not None
    with pytest.raises(RequestTimeout, match="no answer to textDocument/references") as info:
        session.references(target, Position(0, 1))
    assert info.value.stuck
    lines = log.read_text().splitlines()
    request_id = next(line.split()[1] for line in lines if line.startswith("textDocument/references"))
    assert f"cancel {request_id}" in lines  # $/cancelRequest was sent for exactly that request
    assert session.pid is None  # the stuck server was killed...
    assert not wait_gone({first_pid})
    with pytest.raises(RequestTimeout):
        session.references(target, Position(0, 1))
    assert session.restarts == 1  # ...and the next request ran on a fresh one
    session.stop()


def test_pending_request_fails_at_once_when_the_server_is_killed(tmp_path: Path) -> None:
    session, target, _ = fake(tmp_path, "hang", request_timeout=120)
    killed: list[int] = []

    def killer() -> None:
        for _ in range(2):  # the first server, then the one the retry starts
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline:
                pid = session.pid
                if pid is not None and pid not in killed:
                    time.sleep(0.5)
                    os.kill(pid, signal.SIGKILL)
                    killed.append(pid)
                    break
                time.sleep(0.05)

    thread = threading.Thread(target=killer)
    thread.start()
    started = time.monotonic()
    with pytest.raises(ServerCrashed, match="exited with code -9"):
        session.references(target, Position(0, 1))
    thread.join()
    assert time.monotonic() - started < 60  # far below the 120 s request timeout
    assert len(killed) == 2 and session.restarts == 1


def test_install_into_a_fresh_cache_then_start_from_it(tmp_path: Path) -> None:
    """The npm route end to end: pinned install into a given cache folder, then the server runs."""
    from lsp_bridge import install_servers

    try:
        result = install_servers(["tsgo"], cache_dir=tmp_path / "cache", timeout=300)
    except ServerNotInstalled as exc:
        if "reachable" in str(exc):
            pytest.skip(f"npm registry unreachable: {exc}")
        raise
    assert "installed in" in result["tsc"]
    command, folder = resolve_command(get_spec("tsc"), cache_dir=tmp_path / "cache", auto_install=False)
    assert folder.is_relative_to(tmp_path / "cache") and Path(command[0]).is_file()
    assert install_servers(["tsc"], cache_dir=tmp_path / "cache")["tsc"].startswith("already installed")


@pytest.mark.parametrize("in_parts", [True, False])
def test_diagnostics_pushed_in_parts_are_awaited_whole(tmp_path: Path, in_parts: bool) -> None:
    """typescript-language-server publishes each kind of diagnostics 50 ms after it arrives, so under
    load its first publication can hold the syntax part alone: a spec that says so
    (diagnostics_in_parts) waits for the publications to settle and gets the error; one that does
    not takes the first word (what the bridge did for every server before)."""
    spec = dataclasses.replace(FAKE_SPEC, diagnostics_in_parts=in_parts)
    (tmp_path / "m.py").write_text("abc = 1\n")
    session = LspSession(tmp_path, spec, command=[sys.executable, str(FAKE_SERVER), "diagnostics-in-parts"],
                         request_timeout=30.0, start_timeout=30.0)
    try:
        found = session.diagnostics(tmp_path / "m.py")
        assert [d.message for d in found] == (["the semantic part"] if in_parts else [])
    finally:
        session.stop()
