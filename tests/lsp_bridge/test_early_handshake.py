"""The handshake of an early-started server is finished before a session adopts it
(lsp_bridge.early_handshake): `initialized` goes out the moment the early `initialize` is
answered, the server's configuration requests are answered from the session's settings, and the
session that takes the process sends and answers none of it again. A process given other settings
is never used."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import pytest
from bridgekit import FAKE_SERVER, copy_fixture, pos_of, require_server

from lsp_bridge import LspSession, Position, ServerSpec, SessionPool, processes
from lsp_bridge.early_init import initialize_params
from lsp_bridge.readiness import session_settings
from lsp_bridge.servers import get_spec, resolve_command

pytestmark = pytest.mark.timeout(600)

FAKE_SPEC = ServerSpec(name="fake", language="python", language_ids={".py": "python"}, readiness="initialize",
                       locate=lambda _dir: None, install_hint="it is a test server",
                       settings={"python": {"analysis": {"depth": 3}}, "other": [1, 2]})


def _wait_for(what: str, log: Path, timeout: float = 30.0) -> list[str]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        said = log.read_text().splitlines() if log.exists() else []
        if any(line.startswith(what) for line in said):
            return said
        time.sleep(0.05)
    raise AssertionError(f"the server never logged {what!r}")


def _fake(tmp_path: Path) -> tuple[Path, Path, list[str]]:
    root = tmp_path.resolve()
    (root / "m.py").write_text("abc = 1\n")
    log = tmp_path.parent / f"{tmp_path.name}-server.log"
    return root, log, [sys.executable, str(FAKE_SERVER), "asks-config", str(log)]


def test_the_early_reader_finishes_the_handshake_and_the_session_repeats_none_of_it(tmp_path: Path) -> None:
    root, log, command = _fake(tmp_path)
    settings = session_settings(FAKE_SPEC, root)
    assert processes.start_early(command, cwd=root, initialize=initialize_params(root), settings=lambda: settings,
                                 push_settings=FAKE_SPEC.push_settings)
    early = processes._early[(tuple(command), str(root))].proc
    said = _wait_for("answer cfg-1", log)  # no session exists yet: the early reader answered
    assert "initialized None" in said and "workspace/didChangeConfiguration None" in said
    [answer] = [line.split(" ", 2)[2] for line in said if line.startswith("answer cfg-1")]
    assert json.loads(answer) == [{"analysis": {"depth": 3}}, settings(None)]
    session = LspSession(root, FAKE_SPEC, command=command, request_timeout=30.0, start_timeout=30.0)
    try:
        [loc] = session.references(root / "m.py", Position(0, 1))
        assert loc.path == root / "m.py"
        assert session.pid == early.pid  # the early process, adopted
        said = log.read_text().splitlines()
        assert said.count("initialized None") == 1  # not sent again by the session
        assert said.count("workspace/didChangeConfiguration None") == 1
        assert len([line for line in said if line.startswith("answer cfg-1")]) == 1  # not answered twice
        assert said.count("initialize lb-early") == 1 and not any(line.startswith("initialize lb-") and
                                                                  line != "initialize lb-early" for line in said)
    finally:
        session.stop()
        processes.discard_all()


def test_a_server_given_other_settings_early_is_not_used(tmp_path: Path) -> None:
    root, log, command = _fake(tmp_path)
    assert processes.start_early(command, cwd=root, initialize=initialize_params(root),
                                 settings=lambda: lambda section: {"not": "the session's"}, push_settings=True)
    early = processes._early[(tuple(command), str(root))].proc
    _wait_for("answer cfg-1", log)
    session = LspSession(root, FAKE_SPEC, command=command, request_timeout=30.0, start_timeout=30.0)
    try:
        [loc] = session.references(root / "m.py", Position(0, 1))
        assert loc.path == root / "m.py"
        assert session.pid != early.pid  # a server of its own, started with the session's settings
        assert early.wait(timeout=15) is not None  # and the early one is gone
    finally:
        session.stop()
        processes.discard_all()


def test_a_real_server_starts_on_the_early_handshake_before_any_session(tmp_path: Path) -> None:
    """basedpyright asks for its configuration only after `initialized`: answered here with no
    session (nor protocol layer) at work, then the session adopts that server and its answers hold."""
    require_server("basedpyright")
    root = copy_fixture("pyproj", tmp_path / "a").resolve()
    spec = get_spec("basedpyright")
    command, _folder = resolve_command(spec, auto_install=False)
    assert processes.start_early(command, cwd=root, initialize=initialize_params(root),
                                 settings=lambda: session_settings(spec, root), push_settings=spec.push_settings)
    entry = processes._early[(tuple(command), str(root))]
    assert entry.handshake is not None
    deadline = time.monotonic() + 120
    while entry.handshake.answered == 0 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert entry.handshake.answered > 0, "the server never asked for its configuration"
    pool = SessionPool(request_timeout=120, ready_timeout=240)
    try:
        session = pool.get(root, "python")
        geometry = root / "shapes/geometry.py"
        assert len(session.references(geometry, pos_of(geometry, "area_of", "def area_of"))) == 11
        assert session.pid == entry.proc.pid
    finally:
        pool.close_all()
        processes.discard_all()
