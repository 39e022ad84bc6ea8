"""An agent run watches the workspace's folders as the daemon does (agent/semantic/session_watch.py):
over real HTTP, its searches keep their walk under the watch, and a file a shell command of the
run creates is searched by the next call. The watch starts with the first search: a run that
never searches never walks its folders for one."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from fake_openai import FakeOpenAI, call, tools_reply
from test_session_watch_lazy import inotify_instances

from agent.bootstrap import open_context
from agent.config import Settings
from agent.runner import run_agent
from agent.semantic.querycache import RACY_NS
from agent.semantic.session_watch import SessionWatch
from agent.semantic.walkcache import kept_walks

SEARCH = {"pattern": "needle", "regex": False}


def _tool_messages(body: dict[str, Any]) -> list[str]:
    return [str(m["content"]) for m in body["messages"] if m.get("role") == "tool"]


def test_an_agent_run_keeps_its_walk_under_the_watch_and_sees_new_files(tmp_path: Path) -> None:
    root = tmp_path / "proj"
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "a.py").write_text("needle = 1\n", encoding="utf-8")
    (root / "notes.md").write_text("no match here\n", encoding="utf-8")
    time.sleep(RACY_NS / 1e9 + 0.1)
    script: list[Any] = [
        tools_reply(call("search_in_files", **SEARCH)),
        tools_reply(call("search_in_files", **SEARCH)),
        tools_reply(call("run_command", argv=["sh", "-c", "echo needle > pkg/c.txt"])),
        tools_reply(call("search_in_files", **SEARCH)),
        tools_reply(call("search_in_files", **SEARCH)),
        tools_reply(call("finish", summary="searched")),
    ]
    with FakeOpenAI(script) as server:
        settings = Settings.model_validate({"llm": {"base_url": server.base_url, "model": "m", "retry_backoff": 0.0}})
        with open_context(root, settings=settings, run_id="watch") as ctx:
            outcome, _ = run_agent(ctx, settings, "find the needle", toolset="text")
            assert outcome.ok, outcome.message
            walks = kept_walks(ctx)  # the walk was kept under the watch (walkstamps.py keeps none here)
            assert walks is not None and isinstance(walks.guard, SessionWatch) and len(walks) == 1
        messages = _tool_messages(server.requests[-1])
    first, again, _ran, after_command, last = messages[:5]
    assert "pkg/a.py:1" in first and first == again and "pkg/c.txt" not in first
    assert "pkg/c.txt:1" in after_command and "pkg/a.py:1" in after_command and last == after_command


def test_an_agent_run_that_never_searches_never_walks_for_a_watch(tmp_path: Path) -> None:
    """The watch starts with the run's first search (session_watch.watch_later), not with the run."""
    root = tmp_path / "proj"
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "a.py").write_text("needle = 1\n", encoding="utf-8")
    script: list[Any] = [
        tools_reply(call("read_file", file_path="pkg/a.py")),
        tools_reply(call("finish", summary="read")),
    ]
    with FakeOpenAI(script) as server:
        settings = Settings.model_validate({"llm": {"base_url": server.base_url, "model": "m", "retry_backoff": 0.0}})
        with open_context(root, settings=settings, run_id="nowatch") as ctx:
            before = inotify_instances()
            outcome, _ = run_agent(ctx, settings, "read a.py", toolset="text")
            assert outcome.ok, outcome.message
            assert ctx.before_call == [] and inotify_instances() == before  # no watch, no look before calls
        messages = _tool_messages(server.requests[-1])
    assert "needle = 1" in messages[0]
