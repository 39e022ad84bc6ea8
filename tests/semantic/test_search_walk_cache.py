"""search_in_files in the daemon reuses its walk (the gitignore-aware file selection) while the
daemon's folder watch has seen no change (issue 20, target 7): a repeated search says
`walk_reused` and gives the same answer; a created or deleted file, a .gitignore edit, a file in a
hidden folder (which the watch leaves out), a lost watch and a settings change each make the very
next search see the change. ripgrep runs on every call, so an edited file's new content is always
found; these tests change which files are searched."""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from semantic_helpers import run_cli, stop_daemon

from agent.config import Settings
from agent.daemon.client import DaemonClient

OLD = 1_600_000_000  # seconds: not "just modified" (the 2 s racy rule for what the watch cannot see)
ARGS = {"pattern": "needle", "regex": False}


def _write(root: Path, rel: str, text: str) -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    os.utime(path, (OLD, OLD))


@pytest.fixture
def ws(root: Path) -> Iterator[Path]:
    _write(root, "a.py", "needle = 1\n")
    _write(root, "src/b.txt", "a needle\nno\n")
    _write(root, "src/c.md", "nothing\n")
    _write(root, ".hidden/h.txt", "hidden needle\n")
    os.utime(root / ".hidden", (OLD, OLD))
    yield root
    stop_daemon(root)


@pytest.fixture
def daemon(ws: Path) -> Iterator[DaemonClient]:
    client = DaemonClient(ws, Settings.model_validate({"lsp": {"daemon_idle_timeout": 60}}))
    yield client
    client.stop()


def _search(client: DaemonClient) -> dict[str, Any]:
    result = client.call_tool("search_in_files", ARGS)
    assert result["success"], result
    data: dict[str, Any] = result["data"]
    return data


def _paths(data: dict[str, Any]) -> list[str]:
    return sorted({m["path"] for m in data["matches"]})


def _until_reused(client: DaemonClient, timeout: float = 120) -> dict[str, Any]:
    """Search until the walk is reused (the daemon's watch starts after its first answer)."""
    deadline = time.monotonic() + timeout
    while not (data := _search(client)).get("walk_reused"):
        assert time.monotonic() < deadline, "the walk was never reused"
        time.sleep(0.2)
    return data


def test_a_repeated_search_reuses_the_walk_and_gives_the_same_answer(ws: Path, daemon: DaemonClient) -> None:
    first = _search(daemon)
    assert _paths(first) == [".hidden/h.txt", "a.py", "src/b.txt"] and first["files_searched"] == 4
    reused = _until_reused(daemon)
    assert {k: v for k, v in reused.items() if k != "walk_reused"} == {k: v for k, v in first.items() if k != "walk_reused"}
    assert _search(daemon).get("walk_reused")
    # an edit changes no selection: the search itself always runs, so the new content is found
    _write(ws, "src/c.md", "needle now\n")
    assert _paths(_search(daemon)) == [".hidden/h.txt", "a.py", "src/b.txt", "src/c.md"]


def test_a_created_file_is_searched(ws: Path, daemon: DaemonClient) -> None:
    _until_reused(daemon)
    _write(ws, "src/deep/new.txt", "needle\n")
    fresh = _search(daemon)
    assert "src/deep/new.txt" in _paths(fresh) and not fresh.get("walk_reused")


def test_a_deleted_file_is_no_longer_searched(ws: Path, daemon: DaemonClient) -> None:
    _until_reused(daemon)
    (ws / "src" / "b.txt").unlink()
    fresh = _search(daemon)
    assert _paths(fresh) == [".hidden/h.txt", "a.py"] and fresh["files_searched"] == 3
    assert not fresh.get("walk_reused")


def test_a_gitignore_edit_changes_the_files_searched(ws: Path, daemon: DaemonClient) -> None:
    _write(ws, ".gitignore", "# nothing yet\n")
    _until_reused(daemon)
    (ws / ".gitignore").write_text("src/\n", encoding="utf-8")
    fresh = _search(daemon)
    assert _paths(fresh) == [".hidden/h.txt", "a.py"] and not fresh.get("walk_reused")


def test_a_file_created_in_a_hidden_folder_the_watch_leaves_out_is_searched(ws: Path, daemon: DaemonClient) -> None:
    _until_reused(daemon)
    # no event (a utime of the folder would raise one in its parent): only the folder's stat tells
    (ws / ".hidden" / "new.txt").write_text("needle\n", encoding="utf-8")
    fresh = _search(daemon)
    assert ".hidden/new.txt" in _paths(fresh) and not fresh.get("walk_reused")


def test_a_lost_watch_walks_again(ws: Path, daemon: DaemonClient) -> None:
    limit = int(Path("/proc/sys/fs/inotify/max_queued_events").read_text())
    if limit > 200_000:
        pytest.skip(f"inotify queues {limit} events: overflowing it would take too long here")
    _write(ws, "junk/keep.txt", "")
    _until_reused(daemon)
    # more events than the kernel queues: the file created after them raises no event the daemon sees
    for i in range(limit + 100):
        os.close(os.open(ws / "junk" / f"f{i}.txt", os.O_CREAT | os.O_WRONLY, 0o644))
    _write(ws, "src/late.txt", "needle\n")
    fresh = _search(daemon)
    assert "src/late.txt" in _paths(fresh) and not fresh.get("walk_reused")


def test_a_settings_change_walks_again(ws: Path, tmp_path: Path) -> None:
    _write(ws, "big.txt", "needle\n" + "x" * 4000 + "\n")
    config = tmp_path / "config.toml"
    config.write_text("", encoding="utf-8")
    env = {"CODEAGENT_CONFIG": str(config)}

    def search() -> dict[str, Any]:
        res = run_cli("tool", "search_in_files", "--root", str(ws), "--args", json.dumps(ARGS), env=env)
        assert res.returncode == 0, res.stderr
        data: dict[str, Any] = res.json["data"]
        return data

    assert run_cli("daemon", "start", "--root", str(ws), env=env).returncode == 0  # search alone starts none
    deadline = time.monotonic() + 120
    while not (data := search()).get("walk_reused"):
        assert time.monotonic() < deadline, "the walk was never reused"
    assert "big.txt" in _paths(data) and data["skipped_large"] == []
    config.write_text("[workspace]\nmax_read_bytes = 2048\n", encoding="utf-8")
    fresh = search()
    assert fresh["skipped_large"] == ["big.txt"] and not fresh.get("walk_reused")


def test_a_virtualenv_marker_linked_from_outside_that_goes_away_walks_again(ws: Path, tmp_path: Path,
                                                                             daemon: DaemonClient) -> None:
    # the link's target is outside the workspace: no event the watch sees, only its stat tells
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "venv.cfg").write_text("home = /usr\n", encoding="utf-8")
    _write(ws, "env2/site.py", "needle in a venv\n")
    (ws / "env2" / "pyvenv.cfg").symlink_to(outside / "venv.cfg")
    os.utime(ws / "env2", (OLD, OLD))
    assert "env2/site.py" not in _paths(_until_reused(daemon))
    (outside / "venv.cfg").unlink()
    fresh = _search(daemon)
    assert "env2/site.py" in _paths(fresh) and not fresh.get("walk_reused")
