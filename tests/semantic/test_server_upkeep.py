"""A daemon's language servers kept within bounds, against the real basedpyright through the real
CLI: a server over `lsp.server_memory_limit_mb` is restarted between requests (each answer is whole,
the restart is said in the next result, on stderr and in the daemon log), and a server unused for
`lsp.server_idle_timeout` seconds is stopped while the daemon lives on, then started again by the
next request."""

from __future__ import annotations

import os
import re
import time
from pathlib import Path

from semantic_helpers import copy_fixture, run_cli, stop_daemon

TARGET = "shapes/geometry.py:30:5"  # Shape.area: 11 references in the fixture
COUNT = 11


def _processes() -> dict[int, tuple[int, bytes]]:
    """pid -> (parent pid, command line) of every process."""
    found = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text(encoding="ascii", errors="replace")
                found[int(entry)] = (int(stat[stat.rfind(")") + 2:].split()[1]),
                                     Path(f"/proc/{entry}/cmdline").read_bytes())
            except (OSError, ValueError):
                continue
    return found


def _servers_in(root: Path) -> list[int]:
    """The basedpyright processes of `root`'s daemon (its children; it names itself after its root)."""
    procs = _processes()
    daemons = {pid for pid, (_, cmd) in procs.items() if cmd.rstrip(b"\0") == f"codeagent daemon {root}".encode()}
    return [pid for pid, (parent, cmd) in procs.items() if parent in daemons and b"langserver" in cmd]


def _daemon(root: Path, env: dict[str, str] | None = None) -> dict[str, object]:
    """`codeagent daemon status` (with the settings the daemon runs with: other ones restart it)."""
    r = run_cli("daemon", "status", "--root", str(root), "--json", env=env)
    assert r.returncode == 0, r.stderr
    status: dict[str, object] = r.json
    assert status["running"], status
    return status


def test_a_server_over_its_memory_limit_is_restarted_between_requests(tmp_path: Path) -> None:
    root = copy_fixture("pyproj", tmp_path)
    # A project may lower the limit (a "tighten" setting); 1 MiB: every server is over it.
    (root / ".codeagent.toml").write_text("[lsp]\nserver_memory_limit_mb = 1\n", encoding="utf-8")
    try:
        answers = [run_cli("refs", TARGET, "--root", str(root), "--json") for _ in range(3)]
        for r in answers:  # each answer is whole: no server was stopped while it answered
            assert r.returncode == 0 and r.json["data"]["count"] == COUNT, (r.stdout, r.stderr)
        assert "server_notes" not in answers[0].json["data"]  # nothing happened before the first
        pids = []
        for r in answers[1:]:
            notes = r.json["data"]["server_notes"]
            assert len(notes) == 1 and "over lsp.server_memory_limit_mb = 1: restarted" in notes[0], notes
            assert f"codeagent: note: {notes[0]}" in r.stderr
            found = re.search(r"\(pid (\d+)\) held (\d+) MiB", notes[0])
            assert found is not None and int(found.group(2)) > 1, notes
            pids.append(int(found.group(1)))
        assert pids[0] != pids[1]  # the second restart is of the server the first one started
        log = (Path(str(_daemon(root)["state"])) / "daemon.log").read_text(encoding="utf-8")
        for pid in pids:
            assert f"(pid {pid})" in log and "restarted" in log
    finally:
        stop_daemon(root)


def test_an_idle_server_is_stopped_and_started_again_by_the_next_request(tmp_path: Path) -> None:
    root = copy_fixture("pyproj", tmp_path)
    env = {"CODEAGENT_SERVER_IDLE_TIMEOUT": "8"}
    try:
        first = run_cli("refs", TARGET, "--root", str(root), "--json", env=env)
        assert first.returncode == 0 and first.json["data"]["count"] == COUNT, first.stderr
        assert _servers_in(root), "the daemon's server should run after a request"
        daemon_pid = int(str(_daemon(root, env)["pid"]))
        deadline = time.monotonic() + 90
        while _servers_in(root) and time.monotonic() < deadline:
            time.sleep(0.5)
        assert not _servers_in(root), "an idle server was not stopped"
        assert int(str(_daemon(root, env)["pid"])) == daemon_pid  # the daemon itself lives on
        again = run_cli("refs", TARGET, "--root", str(root), "--json", env=env)
        assert again.returncode == 0 and again.json["data"]["count"] == COUNT, again.stderr
        assert _servers_in(root)  # the server was started again (looked at before it idles out)...
        assert int(str(_daemon(root, env)["pid"])) == daemon_pid  # ...by the same daemon
    finally:
        stop_daemon(root)
