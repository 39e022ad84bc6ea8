"""agent/loop.py driven by a scripted model over real HTTP: recovery, limits, stuck detection,
parallel read-only calls, --confirm. Tools here come from a test registry (the registry's public
seam) plus the real read_file/write_file/finish."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

import pytest
from fake_openai import FakeOpenAI, Fault, Reply, call, tools_reply
from pydantic import BaseModel, Field

from agent.bootstrap import load_all_tools, open_context
from agent.config import AgentSettings, LLMSettings, Settings
from agent.llm import ToolCall
from agent.loop import Outcome
from agent.registry import Registry, Tool, tool
from agent.result import ToolResult
from agent.runner import run_agent
from agent.toolcontext import ToolContext
from agent.trajectory import read_events

REG = Registry()
for _name in ("read_file", "write_file", "finish"):
    REG.add(load_all_tools().get(_name))

BARRIER = threading.Barrier(2, timeout=20)
ORDER: list[str] = []


class WaitInput(BaseModel):
    tag: str = Field(description="a label")


@tool(name="wait_for_peer", model=WaitInput, registry=REG)
def wait_for_peer(ctx: ToolContext, args: WaitInput) -> ToolResult:
    """Read-only: returns only once another call of it runs at the same time."""
    BARRIER.wait()
    ORDER.append(args.tag)
    return ToolResult.ok(f"met a peer ({args.tag})")


@tool(name="record", model=WaitInput, registry=REG, mutating=True)
def record(ctx: ToolContext, args: WaitInput) -> ToolResult:
    """Mutating: appends its tag to the order of execution."""
    ORDER.append(args.tag)
    return ToolResult.ok(f"recorded {args.tag}")


class Nothing(BaseModel):
    pass


@tool(name="list_hits", model=Nothing, registry=REG)
def list_hits(ctx: ToolContext, args: Nothing) -> ToolResult:
    """Read-only, answering with `data["files"]` as find_references does (its hits, not changes)."""
    return ToolResult.ok("1 hit", files=[{"path": "a.py", "groups": []}])


@tool(name="huge_failure", model=Nothing, registry=REG)
def huge_failure(ctx: ToolContext, args: Nothing) -> ToolResult:
    """Fails with a very long error."""
    return ToolResult.fail("boom: " + "x" * 100_000 + " END")


class Display:
    """A display that remembers what it was shown; `answers` scripts --confirm."""

    def __init__(self, answers: list[bool] | None = None):
        self.answers = answers
        self.asked: list[str] = []
        self.notes: list[str] = []
        self.actions: list[str] = []

    def reply(self, text: str) -> None: ...
    def action(self, call: ToolCall, tool: Tool | None) -> None:
        self.actions.append(call.name)
    def result(self, call: ToolCall, result: ToolResult, seconds: float) -> None: ...
    def note(self, text: str) -> None:
        self.notes.append(text)
    def confirm(self, call: ToolCall, tool: Tool) -> bool:
        if self.answers is None:
            raise AssertionError("asked to confirm without --confirm")
        self.asked.append(call.name)
        return self.answers.pop(0)


def run(server: FakeOpenAI, root: Path, *, display: Display | None = None, confirm: bool = False,
        agent: dict[str, Any] | None = None, **llm: Any) -> tuple[Outcome, list[dict[str, Any]]]:
    settings = Settings(llm=LLMSettings(base_url=server.base_url, model="m", retry_backoff=0.0, **llm),
                        agent=AgentSettings(**(agent or {})))
    with open_context(root, settings=settings, run_id="test-run") as ctx:
        outcome, _path = run_agent(ctx, settings, "do the thing", registry=REG, display=display or Display(),
                                   confirm=confirm)
        events = read_events(ctx.workspace, "test-run")
    return outcome, events


def tool_messages(body: dict[str, Any]) -> list[str]:
    return [m["content"] for m in body["messages"] if m["role"] == "tool"]


@pytest.fixture
def root(tmp_path: Path) -> Path:
    (tmp_path / "a.py").write_text("x = 1\n", encoding="utf-8")
    return tmp_path


def test_malformed_tool_arguments_go_back_to_the_model_and_it_recovers(root: Path) -> None:
    script = [tools_reply(("read_file", '{"file_path": "a.py"')),
              tools_reply(call("read_file", file_path="a.py")),
              tools_reply(call("finish", summary="read it"))]
    with FakeOpenAI(script) as server:
        outcome, events = run(server, root)
    assert outcome.status == "finished" and outcome.message == "read it"
    err = tool_messages(server.requests[1])[-1]
    assert err.startswith("ERROR: read_file: arguments are not valid JSON")
    assert tool_messages(server.requests[2])[-1] == "1  x = 1"
    assert [e["type"] for e in events][0] == "run_start" and events[-1]["type"] == "run_end"


def test_unknown_tool_name_lists_the_known_tools(root: Path) -> None:
    script = [tools_reply(call("open_file", path="a.py")), tools_reply(call("finish", summary="ok"))]
    with FakeOpenAI(script) as server:
        outcome, _ = run(server, root)
    assert outcome.ok
    err = tool_messages(server.requests[1])[-1]
    assert "unknown tool 'open_file'" in err and "read_file" in err


def test_a_looping_model_is_stopped_with_a_clear_reason(root: Path) -> None:
    a, b = call("read_file", file_path="a.py"), call("read_file", file_path="a.py", start_line=1)
    script = [tools_reply(a), tools_reply(b), tools_reply(a), tools_reply(b), tools_reply(a)]
    with FakeOpenAI(script) as server:
        outcome, events = run(server, root)
    assert outcome.status == "stuck" and outcome.steps == 4
    assert "cycle of 2 actions" in outcome.message and "read_file" in outcome.message
    assert events[-1]["status"] == "stuck" and events[-1]["reason"] == outcome.message


def test_the_same_failing_action_three_times_brings_a_hint(root: Path) -> None:
    bad = call("read_file", file_path="missing.py")
    script = [tools_reply(bad), tools_reply(bad), tools_reply(bad),
              tools_reply(call("read_file", file_path="a.py")), tools_reply(call("finish", summary="done"))]
    with FakeOpenAI(script) as server:
        outcome, _ = run(server, root)
    assert outcome.ok
    after_third = server.requests[3]["messages"][-1]
    assert after_third["role"] == "user" and "failed 3 times" in after_third["content"]
    assert "change approach" in after_third["content"] and "missing.py: no such file" in after_third["content"]
    assert not any("failed 3 times" in str(m.get("content")) for m in server.requests[2]["messages"])


def test_identical_repeats_get_a_hint_then_stop(root: Path) -> None:
    same = call("read_file", file_path="a.py")
    with FakeOpenAI([tools_reply(same)] * 5) as server:
        outcome, _ = run(server, root)
    assert outcome.status == "stuck" and outcome.steps == 4
    assert "same action with the same result 4 times" in outcome.message
    assert "same call 3 times" in server.requests[3]["messages"][-1]["content"]


def test_step_limit(root: Path) -> None:
    script = [tools_reply(call("read_file", file_path="a.py", start_line=1, end_line=n)) for n in range(1, 4)]
    with FakeOpenAI(script) as server:
        outcome, _ = run(server, root, agent={"max_steps": 2})
    assert outcome.status == "limit" and "step limit reached (2 steps)" in outcome.message
    assert len(server.requests) == 2


def test_token_limit(root: Path) -> None:
    script = [Reply(tool_calls=[call("read_file", file_path="a.py", end_line=n)], usage=(600, 100)) for n in (1, 2)]
    with FakeOpenAI(script) as server:
        outcome, _ = run(server, root, agent={"max_total_tokens": 1000})
    assert outcome.status == "limit" and "token limit reached (1400 of 1000" in outcome.message


def test_a_final_answer_without_tools_ends_the_run(root: Path) -> None:
    with FakeOpenAI([Reply("There is nothing to change: x is already 1.")]) as server:
        outcome, _ = run(server, root)
    assert outcome.ok and outcome.message == "There is nothing to change: x is already 1."


def test_an_empty_reply_is_answered_with_a_nudge(root: Path) -> None:
    with FakeOpenAI([Reply(""), tools_reply(call("finish", summary="ok"))]) as server:
        outcome, _ = run(server, root)
    assert outcome.ok and "reply was empty" in server.requests[1]["messages"][-1]["content"]


def test_endpoint_failure_stops_with_a_clear_reason(root: Path) -> None:
    with FakeOpenAI([Fault(500), Fault(500), Fault(500)]) as server:
        outcome, events = run(server, root)
    assert outcome.status == "model_error"
    assert "failed 3 times in a row" in outcome.message and "500" in outcome.message
    assert [e["type"] for e in events].count("llm_retry") == 2


def test_read_only_calls_of_one_turn_run_concurrently_and_mutations_alone(root: Path) -> None:
    ORDER.clear()
    turn = tools_reply(call("record", tag="first"), call("wait_for_peer", tag="p1"), call("wait_for_peer", tag="p2"),
                       call("record", tag="last"))
    with FakeOpenAI([turn, tools_reply(call("finish", summary="ok"))]) as server:
        outcome, _ = run(server, root)
    assert outcome.ok, outcome.message  # the two waits only return when they run at the same time
    assert ORDER[0] == "first" and sorted(ORDER[1:3]) == ["p1", "p2"] and ORDER[3] == "last"
    assert tool_messages(server.requests[1]) == ["recorded first", "met a peer (p1)", "met a peer (p2)", "recorded last"]


def test_confirm_asks_before_mutating_calls_and_a_refusal_reaches_the_model(root: Path) -> None:
    display = Display(answers=[False])
    script = [tools_reply(call("read_file", file_path="a.py"), call("write_file", file_path="a.py", content="x = 2\n")),
              tools_reply(call("finish", summary="the user said no"))]
    with FakeOpenAI(script) as server:
        outcome, events = run(server, root, display=display, confirm=True)
    assert outcome.ok and display.asked == ["write_file"]  # read_file is never asked about
    assert (root / "a.py").read_text() == "x = 1\n"
    assert "the user declined" in tool_messages(server.requests[1])[-1]
    declined = [e for e in events if e["type"] == "tool_result" and e["name"] == "write_file"]
    assert declined[0]["executed"] is False


def test_without_confirm_nothing_is_asked(root: Path) -> None:
    script = [tools_reply(call("write_file", file_path="a.py", content="x = 2\n")), tools_reply(call("finish", summary="ok"))]
    with FakeOpenAI(script) as server:
        outcome, _ = run(server, root, display=Display(answers=None))
    assert outcome.ok and (root / "a.py").read_text() == "x = 2\n"


def test_finish_next_to_a_failed_call_is_not_accepted(root: Path) -> None:
    script = [tools_reply(call("read_file", file_path="nope.py"), call("finish", summary="too early")),
              tools_reply(call("finish", summary="now"))]
    with FakeOpenAI(script) as server:
        outcome, _ = run(server, root)
    assert outcome.message == "now"
    assert "finish was not accepted: read_file failed" in server.requests[1]["messages"][-1]["content"]


def test_tool_errors_reach_the_model_verbatim_but_bounded(root: Path) -> None:
    with FakeOpenAI([tools_reply(call("huge_failure")), tools_reply(call("finish", summary="ok"))]) as server:
        outcome, events = run(server, root)
    err = tool_messages(server.requests[1])[-1]
    assert err.startswith("ERROR: boom: xxx") and err.endswith(" END") and "cut from the middle" in err
    assert len(err) <= 31_000
    result = next(e for e in events if e["type"] == "tool_result")
    assert result["output_chars"] == len(err) and result["success"] is False


def test_trajectory_records_requests_responses_calls_and_tokens(root: Path) -> None:
    script = [tools_reply(call("read_file", file_path="a.py")), tools_reply(call("finish", summary="ok"))]
    with FakeOpenAI(script) as server:
        outcome, events = run(server, root)
    kinds = [e["type"] for e in events]
    assert kinds == ["run_start", "llm_request", "llm_response", "tool_call", "tool_result",
                     "llm_request", "llm_response", "tool_call", "tool_result", "run_end"]
    req = events[1]
    assert req["messages"][0]["role"] == "system" and req["step"] == 1 and "read_file" in req["tools"]
    resp = events[2]
    assert resp["prompt_tokens"] == 100 and resp["completion_tokens"] == 20 and resp["duration_s"] >= 0
    res = events[4]
    assert res["raw_output"] == "1  x = 1" and res["output_bytes"] == len("1  x = 1") and res["duration_s"] >= 0
    assert events[-1]["tokens"] == outcome.tokens == 240 and events[-1]["status"] == "finished"
    assert all(e["run_id"] == "test-run" for e in events)
    json.dumps(events)  # plain JSON throughout


def test_a_whole_run_with_json_actions(root: Path) -> None:
    script = [Reply('I will look first.\n```json\n{"thought": "see x", "action": "read_file", '
                    '"params": {"file_path": "a.py"}}\n```'),
              Reply('{"action": "write_file", "params": {"file_path": "a.py", "content": "x = 2\\n"'),  # cut short
              Reply('{"thought": "fix", "action": "write_file", "params": {"file_path": "a.py", "content": "x = 2\\n"}}'),
              Reply('{"action": "finish", "params": {"summary": "x is 2"}}')]
    with FakeOpenAI(script) as server:
        outcome, events = run(server, root, protocol="json")
    assert outcome.ok and outcome.message == "x is 2" and (root / "a.py").read_text() == "x = 2\n"
    assert all("tools" not in body for body in server.requests)
    system = server.requests[0]["messages"][0]["content"]
    assert "exactly ONE JSON object" in system and "- read_file:" in system and '"file_path"' in system
    second = server.requests[1]["messages"]
    assert second[-1] == {"role": "user", "content": "Observation from read_file:\n1  x = 1"}
    assert "could not be read as an action" in server.requests[2]["messages"][-1]["content"]
    assert [e["type"] for e in events].count("format_error") == 1


def test_a_whole_run_streamed(root: Path) -> None:
    script = [tools_reply(call("read_file", file_path="a.py"), call("read_file", file_path="a.py", end_line=1),
                          content="Reading."),
              tools_reply(call("finish", summary="streamed"))]
    tokens: list[str] = []
    settings = Settings(llm=LLMSettings(model="m", retry_backoff=0.0, stream=True))
    with FakeOpenAI(script) as server:
        settings.llm.base_url = server.base_url
        with open_context(root, settings=settings, run_id="stream-run") as ctx:
            outcome, _ = run_agent(ctx, settings, "look", registry=REG, display=Display(), on_token=tokens.append)
    assert outcome.ok and outcome.message == "streamed" and "".join(tokens) == "Reading."
    assert all(body["stream"] is True for body in server.requests)
    assert tool_messages(server.requests[1]) == ["1  x = 1", "1  x = 1"]


def test_a_readers_files_are_not_recorded_as_changed_files(root: Path) -> None:
    turn = tools_reply(call("list_hits"), call("write_file", file_path="b.py", content="y = 2\n"))
    with FakeOpenAI([turn, tools_reply(call("finish", summary="ok"))]) as server:
        outcome, events = run(server, root)
    assert outcome.ok, outcome.message
    results = {e["name"]: e for e in events if e["type"] == "tool_result"}
    assert results["list_hits"]["files"] is None
    assert results["write_file"]["files"] == ["b.py"]
