"""An agent run keeps its language servers within bounds between batches of tool calls, as the
daemon and the MCP server do (agent/semantic/upkeep.py): over real HTTP with a real basedpyright,
a server over `lsp.server_memory_limit_mb` is restarted after the calls that left it there, every
answer is whole, and the model reads the restart in the next tool result."""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from fake_openai import FakeOpenAI, call, tools_reply

from agent.bootstrap import open_context
from agent.config import Settings
from agent.runner import run_agent

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "pyproj"
REFS = {"file_path": "shapes/geometry.py", "line": 30, "column": 5}  # Shape.area: 11 references


def _tool_messages(body: dict[str, Any]) -> list[str]:
    return [str(m["content"]) for m in body["messages"] if m.get("role") == "tool"]


@pytest.mark.timeout(600)
def test_a_server_over_its_memory_limit_is_restarted_between_calls(tmp_path: Path) -> None:
    root = tmp_path / "pyproj"
    shutil.copytree(FIXTURE, root)
    script = [tools_reply(call("find_references", **REFS)), tools_reply(call("find_references", **REFS)),
              tools_reply(call("finish", summary="looked"))]
    with FakeOpenAI(script) as server:
        settings = Settings.model_validate({"llm": {"base_url": server.base_url, "model": "m", "retry_backoff": 0.0},
                                            "lsp": {"server_memory_limit_mb": 1}})
        with open_context(root, settings=settings, run_id="upkeep") as ctx:
            outcome, _ = run_agent(ctx, settings, "find the uses of Shape.area", toolset="semantic")
        assert outcome.ok, outcome.message
        first, second = _tool_messages(server.requests[2])[-2:]
    for text in (first, second):  # each answer is whole: no server was stopped while it answered
        assert text.startswith("11 reference(s) to area_of"), text
    assert "[note:" not in first  # nothing happened before the first call
    notes = re.findall(r"\[note: (the basedpyright server \(pid \d+\) held (\d+) MiB, over "
                       r"lsp\.server_memory_limit_mb = 1: restarted after the last request)\]", second)
    assert len(notes) == 1 and int(notes[0][1]) > 1, second
