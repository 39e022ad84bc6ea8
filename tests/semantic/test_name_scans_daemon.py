"""The daemon's kept same-name scans (agent/semantic/name_scans.py) against the real daemon and
basedpyright, with the query cache off (so every answer is computed): once a name's scan is kept,
an edit, a created file, a deleted file and a `git checkout` each change the very next answer's
"same name in code, not confirmed" list, exactly as a fresh daemon would report it."""

from __future__ import annotations

import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from semantic_helpers import stop_daemon

from agent.config import Settings
from agent.daemon.client import DaemonClient

APP = "def greet(name):\n    return 'hi ' + name\n\n\nprint(greet('x'))\n"
USER = "from app import greet\n\ngreet('y')\n"
DYNAMIC = "def call(o):\n    return o.greet()\n"  # not the server's: unknown receiver
REFS = {"file_path": "app.py", "line": 1, "column": 5}


@pytest.fixture
def ws(root: Path) -> Iterator[Path]:
    (root / "app.py").write_text(APP, encoding="utf-8")
    (root / "user.py").write_text(USER, encoding="utf-8")
    (root / "dyn.py").write_text(DYNAMIC, encoding="utf-8")
    yield root
    stop_daemon(root)


def _unconfirmed(client: DaemonClient) -> list[tuple[str, int, int]]:
    result = client.call_tool("find_references", REFS)
    assert result["success"], result
    data = result["data"]
    assert data["count"] == 4 and not data.get("cached")
    rows = [(r["path"], r["line"], r["column"]) for r in data["unconfirmed"]]
    assert len(rows) == data["unconfirmed_count"]
    return sorted(rows)


def _git(root: Path, *args: str) -> None:
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", *args], cwd=root, check=True,
                   capture_output=True, timeout=60)


def test_the_next_answer_after_a_change_has_the_fresh_unconfirmed_list(ws: Path) -> None:
    client = DaemonClient(ws, Settings.model_validate({"lsp": {"daemon_idle_timeout": 60, "query_cache": False}}))
    try:
        assert _unconfirmed(client) == [("dyn.py", 2, 14)]
        time.sleep(1)  # the daemon's listing (folder watches, texts) starts after its first answer
        for _ in range(3):  # from here on the name's scan is kept between answers
            assert _unconfirmed(client) == [("dyn.py", 2, 14)]

        (ws / "dyn.py").write_text(DYNAMIC + "\n\ndef again(o):\n    o.greet()\n", encoding="utf-8")
        assert _unconfirmed(client) == [("dyn.py", 2, 14), ("dyn.py", 6, 7)]
        assert _unconfirmed(client) == [("dyn.py", 2, 14), ("dyn.py", 6, 7)]

        (ws / "made.py").write_text("def f(p):\n    p.greet = None\n", encoding="utf-8")
        made = [("dyn.py", 2, 14), ("dyn.py", 6, 7), ("made.py", 2, 7)]
        assert _unconfirmed(client) == made
        assert _unconfirmed(client) == made

        (ws / "dyn.py").unlink()
        assert _unconfirmed(client) == [("made.py", 2, 7)]
        assert _unconfirmed(client) == [("made.py", 2, 7)]

        _git(ws, "init", "-q", "-b", "main")
        _git(ws, "add", "-A")
        _git(ws, "commit", "-qm", "base")
        _git(ws, "checkout", "-q", "-b", "other")
        (ws / "made.py").write_text("def f(p):\n    p.greet = None\n    p.greet()\n", encoding="utf-8")
        _git(ws, "commit", "-qam", "one more")
        _git(ws, "checkout", "-q", "main")
        assert _unconfirmed(client) == [("made.py", 2, 7)]
        assert _unconfirmed(client) == [("made.py", 2, 7)]
        _git(ws, "checkout", "-q", "other")
        assert _unconfirmed(client) == [("made.py", 2, 7), ("made.py", 3, 7)]
    finally:
        client.stop()
