"""`codeagent mcp` keeps its language servers within bounds between calls, as the daemon does
(agent/semantic/upkeep.py), against the real basedpyright through the official SDK's client: a
server over `lsp.server_memory_limit_mb` is restarted after the call that left it there (each
answer whole, the restart said in the next result), and one unused for `lsp.server_idle_timeout`
seconds is stopped while the session lives on, then started again by the next call."""

from __future__ import annotations

import re
import shutil
import time
from pathlib import Path
from typing import Any

import anyio
from mcp import ClientSession
from test_mcp import CALL_TIMEOUT, PYPROJ, _text, server_tree, with_session

REFS = {"file_path": "shapes/geometry.py", "line": 30, "column": 5}  # Shape.area: 11 references
COUNT = 11


def _project(tmp_path: Path, config: str = "") -> Path:
    root = tmp_path / "pyproj"
    shutil.copytree(PYPROJ, root)
    if config:
        (root / ".codeagent.toml").write_text(config, encoding="utf-8")
    return root.resolve()


def _language_servers(root: Path) -> set[int]:
    return {pid for pid, cmd in server_tree(root).items() if "langserver" in cmd}


def test_a_server_over_its_memory_limit_is_restarted_between_calls(tmp_path: Path) -> None:
    # A project may lower the limit (a "tighten" setting); 1 MiB: every server is over it.
    root = _project(tmp_path, "[lsp]\nserver_memory_limit_mb = 1\n")

    async def body(session: ClientSession) -> list[Any]:
        return [await session.call_tool("find_references", REFS, read_timeout_seconds=CALL_TIMEOUT)
                for _ in range(3)]

    answers = with_session(root, body)
    for answer in answers:  # each answer is whole: no server was stopped while it answered
        assert not answer.is_error, _text(answer)
        assert answer.structured_content["data"]["count"] == COUNT
    assert "server_notes" not in answers[0].structured_content["data"]  # nothing happened before the first
    pids = []
    for answer in answers[1:]:
        notes = answer.structured_content["data"]["server_notes"]
        assert len(notes) == 1 and "over lsp.server_memory_limit_mb = 1: restarted" in notes[0], notes
        assert f"[note: {notes[0]}]" in _text(answer)  # the model reads it
        found = re.search(r"\(pid (\d+)\) held (\d+) MiB", notes[0])
        assert found is not None and int(found.group(2)) > 1, notes
        pids.append(int(found.group(1)))
    assert pids[0] != pids[1]  # the second restart is of the server the first one started


def test_an_idle_server_is_stopped_and_started_again_by_the_next_call(tmp_path: Path) -> None:
    root = _project(tmp_path)

    async def body(session: ClientSession) -> dict[str, Any]:
        out: dict[str, Any] = {"first": await session.call_tool("find_references", REFS, read_timeout_seconds=CALL_TIMEOUT)}
        out["serving"] = _language_servers(root)
        deadline = time.monotonic() + 60
        while _language_servers(root) and time.monotonic() < deadline:
            await anyio.sleep(0.5)
        out["idle"] = _language_servers(root)
        out["again"] = await session.call_tool("find_references", REFS, read_timeout_seconds=CALL_TIMEOUT)
        out["after"] = _language_servers(root)
        return out

    out = with_session(root, body, env={"CODEAGENT_SERVER_IDLE_TIMEOUT": "3"})
    assert not out["first"].is_error and out["first"].structured_content["data"]["count"] == COUNT
    assert out["serving"], "no language server ran for the first call"
    assert out["idle"] == set(), f"the idle server was not stopped: {out['idle']}"
    assert not out["again"].is_error and out["again"].structured_content["data"]["count"] == COUNT
    assert out["after"] and not out["after"] & out["serving"]  # a new server answered
