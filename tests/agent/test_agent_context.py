"""agent/context.py: what the model sees, within a token budget that never overflows."""

from __future__ import annotations

import json
import random

import pytest

from agent.context import Context, ContextOverflowError, Observation, TokenCounter, Turn, make_counter
from agent.llm import ToolCall

SYSTEM = "You are a test agent. " * 20


def ctx(window: int = 8192, reply: int = 1024, keep: int = 3) -> Context:
    return Context(system=lambda protocol: f"{SYSTEM} [{protocol}]", task="Task:\nfix it", window=window,
                   reply_tokens=reply, keep_turns=keep)


def turn(step: int, name: str = "read_file", args: dict | None = None, output: str = "ok", success: bool = True,
         content: str = "") -> Turn:
    call = ToolCall(f"c{step}", name, json.dumps(args or {"file_path": f"f{step}.py"}))
    return Turn(step, content, [call], [Observation(call, output, success)])


def test_recent_turns_whole_older_outputs_elided() -> None:
    c = ctx(keep=2)
    for i in range(1, 5):
        c.add(turn(i, output=f"line one of output {i}\nline two\nline three"))
    msgs = c.messages("tools")
    assert msgs[0]["role"] == "system" and msgs[0]["content"].endswith("[tools]")
    assert msgs[1] == {"role": "user", "content": "Task:\nfix it"}
    tool_msgs = [m["content"] for m in msgs if m["role"] == "tool"]
    assert tool_msgs[0].startswith("[elided] read_file(") and "ok, 3 lines: line one of output 1" in tool_msgs[0]
    assert "\n" not in tool_msgs[0] and "\n" not in tool_msgs[1]
    assert tool_msgs[2:] == ["line one of output 3\nline two\nline three", "line one of output 4\nline two\nline three"]
    # every tool message answers a call of the assistant message before it (the API requires it)
    for i, m in enumerate(msgs):
        if m["role"] == "tool":
            owner = next(p for p in reversed(msgs[:i]) if p["role"] == "assistant")
            assert m["tool_call_id"] in {tc["id"] for tc in owner["tool_calls"]}


def test_latest_state_of_touched_files_survives_elision() -> None:
    c = ctx(keep=1)
    c.add(turn(1, output="1  x = 1"))
    c.note_file("a.py", "x = 1\n", 1, shown=True)
    c.add(turn(2, name="write_file", output="overwrote a.py\n-x = 1\n+x = 2"))
    c.note_file("a.py", "x = 2\n", 2, shown=False)
    c.add(turn(3, output="unrelated"))
    c.note_file("b.py", "y = 1\n", 3, shown=True)  # shown whole in the kept turn: not repeated
    msgs = c.messages("tools")
    state = [m["content"] for m in msgs if m["role"] == "user" and "Latest known content" in m["content"]]
    assert len(state) == 1
    assert "--- a.py (as of step 2) ---\nx = 2" in state[0] and "b.py" not in state[0]
    # it sits before the first whole turn and after the elided ones
    idx = msgs.index(next(m for m in msgs if m["content"] == state[0]))
    assert msgs[idx - 1]["role"] == "tool" and msgs[idx - 1]["content"].startswith("[elided]")


def test_long_file_state_is_head_and_tail() -> None:
    c = ctx(keep=1)
    text = "".join(f"line {i}\n" for i in range(5000))
    c.add(turn(1))
    c.note_file("big.py", text, 1, shown=False)
    c.add(turn(2))
    state = next(m["content"] for m in c.messages("tools") if "Latest known content" in (m["content"] or ""))
    assert "line 0\n" in state and "line 4999" in state and "cut from the middle" in state
    assert len(state) < 8000


def test_json_protocol_rendering() -> None:
    c = ctx()
    c.add(Turn(1, '{"action": "read_file", "params": {"file_path": "a.py"}}',
               [ToolCall("a1", "read_file", '{"file_path": "a.py"}')],
               [Observation(ToolCall("a1", "read_file", '{"file_path": "a.py"}'), "1  x = 1", True)],
               notes=["a hint"], protocol="json"))
    msgs = c.messages("json")
    assert all(m["role"] in ("system", "user", "assistant") for m in msgs) and msgs[0]["content"].endswith("[json]")
    assert msgs[2] == {"role": "assistant", "content": '{"action": "read_file", "params": {"file_path": "a.py"}}'}
    assert msgs[3]["content"] == "Observation from read_file:\n1  x = 1\n\na hint"


def test_a_native_turn_rendered_after_fallback_to_json_keeps_its_actions() -> None:
    c = ctx()
    c.add(turn(1, content="looking"))
    msgs = c.messages("json")
    assert msgs[2]["content"] == 'looking\n{"action": "read_file", "params": {"file_path": "f1.py"}}'


def test_malformed_arguments_are_wrapped_in_the_history() -> None:
    c = ctx()
    call = ToolCall("c1", "read_file", '{"file_path": "a.py"')
    c.add(Turn(1, "", [call], [Observation(call, "ERROR: arguments are not valid JSON", False)]))
    args = c.messages("tools")[2]["tool_calls"][0]["function"]["arguments"]
    assert json.loads(args) == {"_unparsed_arguments": '{"file_path": "a.py"'}


@pytest.mark.parametrize("seed", range(8))
def test_budget_is_never_exceeded(seed: int) -> None:
    rnd = random.Random(seed)
    window = rnd.choice([4096, 8192, 16384])
    c = ctx(window=window, reply=1024, keep=rnd.randint(1, 8))
    for step in range(1, rnd.randint(2, 60)):
        size = rnd.choice([10, 500, 5000, 40_000])
        out = "".join(rnd.choice("abcdefgh ijk\n€漢") for _ in range(size))
        c.add(turn(step, output=out, success=rnd.random() > 0.3, content="x" * rnd.choice([0, 100, 3000])))
        if rnd.random() < 0.5:
            c.note_file(f"f{rnd.randint(1, 9)}.py", out, step, shown=rnd.random() < 0.5)
        reserve = rnd.choice([0, 300])
        msgs = c.messages("tools" if rnd.random() < 0.5 else "json", reserve=reserve)
        assert c.counter.messages(msgs) <= c.budget(reserve)
        assert msgs[0]["role"] == "system" and msgs[1]["content"] == "Task:\nfix it"


def test_overflow_of_the_fixed_part_is_a_clear_error() -> None:
    c = Context(system=lambda p: "word " * 20_000, task="t", window=4096, reply_tokens=1024)
    with pytest.raises(ContextOverflowError, match="cannot hold even the system prompt"):
        c.messages("tools")


def test_estimate_overcounts_rather_than_undercounts() -> None:
    est = TokenCounter()
    assert not est.exact
    assert est.text("def f(x):\n    return x\n") >= 8
    assert est.text("漢字漢字") == 4  # one token per non-ASCII character at least


def test_tiktoken_is_never_downloaded(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    pytest.importorskip("tiktoken")
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path))  # an empty cache: it must estimate, not fetch
    assert make_counter().exact is False
