"""Real servers: readiness before the first answer, kill -9 mid-session, no orphans after
close_all, and servers dying with their parent process."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from bridgekit import copy_fixture, group_pids, pos_of, require_server, wait_gone

from lsp_bridge import Position, SessionPool


def test_first_request_on_a_cold_server_is_complete(tmp_path: Path) -> None:
    """No ready() call: the request itself waits until the workspace is enumerated."""
    root = copy_fixture("pyproj", tmp_path)
    pool = SessionPool(request_timeout=120, ready_timeout=240)
    try:
        geometry = root / "shapes/geometry.py"
        refs = pool.get(root, "python").references(geometry, pos_of(geometry, "area_of", "def area_of"))
        assert len(refs) == 11
        assert len({loc.path for loc in refs}) == 5
    finally:
        pool.close_all()


def test_server_killed_mid_session_is_restarted_and_the_request_succeeds(tmp_path: Path) -> None:
    root = copy_fixture("pyproj", tmp_path)
    pool = SessionPool(request_timeout=120, ready_timeout=240)
    try:
        session = pool.get(root, "python")
        geometry = root / "shapes/geometry.py"
        at = pos_of(geometry, "area_of", "def area_of")
        assert len(session.references(geometry, at)) == 11
        first = session.pid
        assert first is not None
        os.kill(first, signal.SIGKILL)
        assert not wait_gone({first})
        assert len(session.references(geometry, at)) == 11
        assert session.restarts == 1 and session.pid not in (None, first)
    finally:
        pool.close_all()


@pytest.mark.parametrize(("language", "server", "fixture"), [
    ("python", "basedpyright", "pyproj"),
    ("typescript", "tsc", "tsproj"),
    ("typescript", "typescript-language-server", "tsproj"),
])
def test_no_orphan_processes_after_close_all(tmp_path: Path, language: str, server: str, fixture: str) -> None:
    require_server(server)
    root = copy_fixture(fixture, tmp_path)
    pool = SessionPool(servers={language: server}, request_timeout=120, ready_timeout=240)
    session = pool.get(root, language)
    assert session.ready(timeout=240)
    first = next(iter(sorted(p for p in root.rglob("*") if p.suffix in (".py", ".ts"))))
    session.references(first, Position(0, 0))
    pid = session.pid
    assert pid is not None
    family = group_pids(pid)  # the server and whatever it spawned (tsserver under tsls)
    assert pid in family
    pool.close_all()
    assert not wait_gone(family), f"left running after close_all: {family}"


PARENT = textwrap.dedent("""
    import sys, time
    from pathlib import Path
    from lsp_bridge import SessionPool
    pool = SessionPool(servers={"typescript": sys.argv[3]})
    session = pool.get(Path(sys.argv[1]), sys.argv[2])
    assert session.ready(timeout=240)
    print(session.pid, flush=True)
    time.sleep(600)
""")


@pytest.mark.parametrize(("language", "server", "fixture"), [
    ("python", "basedpyright", "pyproj"),
    ("typescript", "typescript-language-server", "tsproj"),
])
def test_servers_die_with_their_parent(tmp_path: Path, language: str, server: str, fixture: str) -> None:
    """kill -9 of the process that owns the pool (no cleanup code runs) still takes the servers down."""
    require_server(server)
    root = copy_fixture(fixture, tmp_path)
    parent = subprocess.Popen([sys.executable, "-c", PARENT, str(root), language, server],
                              stdout=subprocess.PIPE, text=True)
    try:
        assert parent.stdout is not None
        line = parent.stdout.readline()
        assert line.strip().isdigit(), f"parent failed: {line!r}"
        family = group_pids(int(line))
        assert family
    finally:
        parent.kill()
        parent.wait(timeout=30)
    assert not wait_gone(family), f"orphaned: {family}"


def test_an_early_started_server_is_adopted_and_others_are_not(tmp_path: Path) -> None:
    """lsp_bridge.processes: a server spawned before the session exists is the one the session talks
    to (same command and folder); one started for another folder is never adopted and is killed by
    discard_all; a dead early process is not adopted either."""
    from lsp_bridge import processes
    from lsp_bridge.servers import get_spec, resolve_command

    root = copy_fixture("pyproj", tmp_path / "a")
    other = copy_fixture("pyproj", tmp_path / "b")
    command, _folder = resolve_command(get_spec("basedpyright"), auto_install=False)
    assert processes.start_early(command, cwd=root)
    assert processes.start_early(command, cwd=other)
    early = {key[1]: entry.proc for key, entry in processes._early.items()}
    pool = SessionPool(request_timeout=120, ready_timeout=240)
    try:
        session = pool.get(root, "python")
        geometry = root / "shapes/geometry.py"
        assert len(session.references(geometry, pos_of(geometry, "area_of", "def area_of"))) == 11
        assert session.pid == early[str(root)].pid  # adopted, not a second server
        assert str(root) not in {key[1] for key in processes._early}
        leftover = early[str(other)]
        assert leftover.poll() is None
        processes.discard_all()
        assert leftover.wait(timeout=15) is not None and not processes._early
        # an early process that died is not adopted: the session starts its own server
        assert processes.start_early([sys.executable, "-c", "pass"], cwd=other)
        dead = next(entry.proc for entry in processes._early.values())
        dead.wait(timeout=15)
        assert processes.take([sys.executable, "-c", "pass"], cwd=other, env=None) is None
    finally:
        pool.close_all()
        processes.discard_all()
    assert not wait_gone({early[str(root)].pid})


def test_an_early_process_started_with_another_environment_is_not_adopted(tmp_path: Path) -> None:
    from lsp_bridge import processes

    cmd = [sys.executable, "-c", "import time; time.sleep(60)"]
    assert processes.start_early(cmd, cwd=tmp_path)
    proc = next(entry.proc for entry in processes._early.values())
    try:
        assert processes.take(cmd, cwd=tmp_path, env={**os.environ, "EXTRA": "1"}) is None
        assert proc.wait(timeout=15) is not None  # killed, not leaked
        assert not processes.start_early(["/nonexistent/server"], cwd=tmp_path)
    finally:
        processes.discard_all()


def test_a_silent_progress_stops_holding_pyright_requests_but_not_tsserver_ones() -> None:
    """pyright's checking progress only makes requests wait their turn, and pyright can leave one
    open for good; tsserver's project load decides whether answers are complete."""
    import time
    from types import SimpleNamespace

    from lsp_bridge.readiness import PROGRESS_SILENCE, is_ready

    now = time.monotonic()
    client = SimpleNamespace(found_files=6, enumeration_due=None, progress_active={"t": ""},
                             progress_heard={"t": now}, progress_done=1)
    assert not is_ready("pyright", client, opened=True)  # type: ignore[arg-type]
    client.progress_heard["t"] = now - PROGRESS_SILENCE - 1
    assert is_ready("pyright", client, opened=True)  # type: ignore[arg-type]
    assert not is_ready("tsserver", client, opened=True)  # type: ignore[arg-type]
    client.progress_active.clear()
    assert is_ready("tsserver", client, opened=True)  # type: ignore[arg-type]
