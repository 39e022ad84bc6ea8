"""The daemon's query cache (issue 20, point 4), against the real daemon and basedpyright: a
repeated query whose inputs did not change is answered from the cache (data `cached`, within
20 ms in the daemon), and every change that can alter the answer — an edit, a created or deleted
file, a `git checkout`, a settings change, a lost watch — gives the fresh answer at once."""

from __future__ import annotations

import json
import os
import re
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from semantic_helpers import run_cli, stop_daemon

from agent.config import Settings
from agent.daemon.client import DaemonClient
from agent.daemon.protocol import state_dir

APP = "def greet(name):\n    return 'hi ' + name\n\n\nprint(greet('x'))\n"
USER = "from app import greet\n\ngreet('y')\n"
REFS = {"file_path": "app.py", "line": 1, "column": 5}
SERVED = re.compile(r"codeagent\.daemon INFO find_references (\d+\.\d+) s$")
OLD = 1_600_000_000  # seconds: files the tests start from are not "just modified" (the 2 s racy rule)


def _write(root: Path, rel: str, text: str, *, old: bool = False) -> None:
    path = root / rel
    path.write_text(text, encoding="utf-8")
    if old:
        os.utime(path, (OLD, OLD))


@pytest.fixture
def ws(root: Path) -> Iterator[Path]:
    _write(root, "app.py", APP, old=True)
    _write(root, "user.py", USER, old=True)
    yield root
    stop_daemon(root)


@pytest.fixture
def daemon(ws: Path) -> Iterator[DaemonClient]:
    client = DaemonClient(ws, Settings.model_validate({"lsp": {"daemon_idle_timeout": 60}}))
    yield client
    client.stop()


def _refs(client: DaemonClient) -> dict[str, Any]:
    result = client.call_tool("find_references", REFS)
    assert result["success"], result
    data: dict[str, Any] = result["data"]
    return data


def _until_cached(client: DaemonClient, timeout: float = 120) -> dict[str, Any]:
    """Ask until the answer comes from the cache (the daemon's watch starts after its first answer;
    an answer naming a file modified in the last 2 s is not kept)."""
    deadline = time.monotonic() + timeout
    while True:
        data = _refs(client)
        if data.get("cached"):
            return data
        assert time.monotonic() < deadline, "the repeated query was never answered from the cache"
        time.sleep(0.3)


def _in_daemon_times(root: Path) -> list[float]:
    log = state_dir(root) / "daemon.log"
    return [float(m.group(1)) for line in log.read_text(encoding="utf-8").splitlines() if (m := SERVED.search(line))]


def test_a_repeated_query_is_answered_from_the_cache(ws: Path, daemon: DaemonClient) -> None:
    first = _refs(daemon)
    assert first["count"] == 4 and not first.get("cached")
    cached = _until_cached(daemon)
    assert {k: v for k, v in cached.items() if k != "cached"} == first  # the same answer, marked
    for _ in range(5):
        assert _refs(daemon)["cached"] is True
    assert max(_in_daemon_times(ws)[-5:]) <= 0.020  # the daemon's own time for each cached answer
    other = daemon.call_tool("find_references", {**REFS, "include_declaration": False})
    assert other["data"]["count"] == 3 and not other["data"].get("cached")  # other arguments: another key


def test_every_form_of_the_same_path_shares_one_answer_and_no_other_file_does(ws: Path, daemon: DaemonClient) -> None:
    """The CLI sends an absolute path when run from a folder inside the root, a relative one
    from elsewhere: both (and `./app.py`) name one file, so they share one kept answer - the same
    data as each form's own fresh answer. A sibling folder sharing the root's prefix, or `..`
    after a symlinked folder (whose parent is elsewhere: here outside the workspace), is not that
    file, whatever its text says."""
    outside = ws.parent / f"{ws.name}-other"
    (outside / "deep").mkdir(parents=True, exist_ok=True)
    (outside / "app.py").write_text(APP, encoding="utf-8")
    os.symlink(outside / "deep", ws / "link")  # (before the first answer: a new entry empties the cache)
    absolute = {**REFS, "file_path": str(ws / "app.py")}
    fresh = daemon.call_tool("find_references", absolute)
    assert fresh["success"] and not fresh["data"].get("cached"), fresh
    kept = _until_cached(daemon)  # stored under the relative form
    assert {k: v for k, v in kept.items() if k != "cached"} == fresh["data"]
    for form in (str(ws / "app.py"), "./app.py", f"{ws}//./app.py"):
        hit = daemon.call_tool("find_references", {**REFS, "file_path": form})
        assert hit["data"].get("cached") is True, form
        assert hit["data"] == kept
    for form in (str(outside / "app.py"), "link/../app.py", f"{ws}/link/../app.py"):
        answer = daemon.call_tool("find_references", {**REFS, "file_path": form})
        assert answer["success"] is False and "outside" in answer["error"], (form, answer)
    assert _refs(daemon)["cached"] is True  # (the refusals left the kept answer alone)


def test_an_edit_that_adds_a_reference_is_seen(ws: Path, daemon: DaemonClient) -> None:
    _refs(daemon)
    assert _until_cached(daemon)["count"] == 4
    _write(ws, "user.py", USER + "greet('z')\n")
    fresh = _refs(daemon)
    assert fresh["count"] == 5 and not fresh.get("cached")


def test_a_created_file_with_a_reference_is_seen(ws: Path, daemon: DaemonClient) -> None:
    _refs(daemon)
    assert _until_cached(daemon)["count"] == 4
    _write(ws, "more.py", "from app import greet\n\ngreet('a')\ngreet('b')\n")
    fresh = _refs(daemon)
    assert fresh["count"] == 7 and not fresh.get("cached")


def test_a_deleted_file_with_a_reference_is_seen(ws: Path, daemon: DaemonClient) -> None:
    _refs(daemon)
    assert _until_cached(daemon)["count"] == 4
    (ws / "user.py").unlink()
    fresh = _refs(daemon)
    assert fresh["count"] == 2 and not fresh.get("cached")


def _git(root: Path, *args: str) -> None:
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", *args], cwd=root, check=True,
                   capture_output=True, timeout=60)


def test_a_git_checkout_that_changes_references_is_seen(ws: Path, daemon: DaemonClient) -> None:
    _git(ws, "init", "-q", "-b", "main")
    _git(ws, "add", "app.py", "user.py")
    _git(ws, "commit", "-qm", "base")
    _git(ws, "checkout", "-q", "-b", "more")
    _write(ws, "user.py", USER + "greet('1')\ngreet('2')\n")
    _write(ws, "extra.py", "from app import greet\ngreet('3')\n")
    _git(ws, "add", "user.py", "extra.py")
    _git(ws, "commit", "-qm", "more calls")
    _git(ws, "checkout", "-q", "main")
    for rel in ("app.py", "user.py"):  # checkout wrote user.py just now: make it old for the cache
        os.utime(ws / rel, (OLD, OLD))
    _refs(daemon)
    assert _until_cached(daemon)["count"] == 4
    _git(ws, "checkout", "-q", "more")
    fresh = _refs(daemon)
    assert fresh["count"] == 8 and not fresh.get("cached")
    _git(ws, "checkout", "-q", "main")
    back = _refs(daemon)
    assert back["count"] == 4 and not back.get("cached")


def test_a_settings_change_in_the_user_config_is_seen(ws: Path, tmp_path: Path) -> None:
    _write(ws, "user.py", "from app import greet\n\n" + "".join(f"greet('{i}')\n" for i in range(14)), old=True)
    config = tmp_path / "config.toml"
    config.write_text("", encoding="utf-8")
    env = {"CODEAGENT_CONFIG": str(config)}

    def refs() -> dict[str, Any]:
        res = run_cli("tool", "find_references", "--root", str(ws), "--args", json.dumps(REFS), env=env)
        assert res.returncode == 0, res.stderr
        data: dict[str, Any] = res.json["data"]
        return data

    deadline = time.monotonic() + 120
    while not (data := refs()).get("cached"):
        assert time.monotonic() < deadline, "never answered from the cache"
    assert data["count"] == 17 and data["listed"] == 17
    config.write_text("[lsp]\nmax_results = 10\n", encoding="utf-8")
    fresh = refs()
    assert fresh["count"] == 17 and fresh["listed"] == 10 and not fresh.get("cached")


def test_a_lost_watch_empties_the_cache(ws: Path, daemon: DaemonClient) -> None:
    limit = int(Path("/proc/sys/fs/inotify/max_queued_events").read_text())
    if limit > 200_000:
        pytest.skip(f"inotify queues {limit} events: overflowing it would take too long here")
    (ws / "junk").mkdir()
    _refs(daemon)
    assert _until_cached(daemon)["count"] == 4
    # More events than the kernel queues for the daemon's watch: it overflows, and the file created
    # after that raises no event the daemon can see (nor is it named by the cached answer, whose
    # files' signatures are unchanged): only the lost watch tells.
    for i in range(limit + 100):
        os.close(os.open(ws / "junk" / f"f{i}.txt", os.O_CREAT | os.O_WRONLY, 0o644))
    _write(ws, "more.py", "from app import greet\n\ngreet('z')\n")
    fresh = _refs(daemon)
    assert fresh["count"] == 6 and not fresh.get("cached")
    # The daemon watches again (not stat'ing every file for the rest of its life): repeats are
    # cached again, and a change after that is seen through the new watch.
    assert _until_cached(daemon)["count"] == 6
    _write(ws, "user.py", USER + "greet('w')\n")
    after = _refs(daemon)
    assert after["count"] == 7 and not after.get("cached")
