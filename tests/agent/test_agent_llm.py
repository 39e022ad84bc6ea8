"""agent/llm.py against a real HTTP server speaking the OpenAI protocol, through the real openai client."""

from __future__ import annotations

import json
from typing import Any

import pytest
from fake_openai import HTML_PAGE, FakeOpenAI, Fault, Reply, call, tools_reply

from agent.bootstrap import load_all_tools
from agent.config import LLMSettings
from agent.errors import LLMAuthError, LLMFormatError, LLMRequestError, LLMUnavailable
from agent.llm import LLMClient, ProtocolChanged, parse_action

MESSAGES = [{"role": "system", "content": "be brief"}, {"role": "user", "content": "hi"}]


def client(server: FakeOpenAI, sleeps: list[float] | None = None, **kw: Any) -> tuple[LLMClient, list[tuple[str, dict]]]:
    events: list[tuple[str, dict]] = []
    settings = LLMSettings(base_url=server.base_url, model="test-model", **kw)
    c = LLMClient(settings, on_event=lambda k, f: events.append((k, f)),
                  sleep=(sleeps.append if sleeps is not None else lambda s: None))
    return c, events


@pytest.fixture(scope="module")
def tools() -> list:
    reg = load_all_tools()
    return [reg.get("read_file").openai_schema(), reg.get("finish").openai_schema()]


def test_native_parallel_tool_calls_and_usage(tools: list) -> None:
    with FakeOpenAI([tools_reply(call("read_file", file_path="a.py"), call("read_file", file_path="b.py"),
                                 content="reading both")]) as server:
        c, events = client(server)
        reply = c.complete(MESSAGES, tools)
    assert [(t.name, json.loads(t.arguments)) for t in reply.tool_calls] == [
        ("read_file", {"file_path": "a.py"}), ("read_file", {"file_path": "b.py"})]
    assert len({t.id for t in reply.tool_calls}) == 2
    assert reply.content == "reading both"
    assert (reply.prompt_tokens, reply.completion_tokens) == (100, 20)
    body = server.requests[0]
    assert body["model"] == "test-model" and body["temperature"] == 0.2 and body["max_tokens"] == 4096
    assert [t["function"]["name"] for t in body["tools"]] == ["read_file", "finish"]
    assert [k for k, _ in events] == ["llm_request", "llm_response"]


def test_streaming_assembles_text_and_tool_calls(tools: list) -> None:
    tokens: list[str] = []
    with FakeOpenAI([tools_reply(call("read_file", file_path="ünïcode 🐍.py", start_line=3),
                                 content="Let me read that file first.")]) as server:
        settings = LLMSettings(base_url=server.base_url, model="m", stream=True)
        c = LLMClient(settings, on_token=tokens.append)
        reply = c.complete(MESSAGES, tools)
    assert server.requests[0]["stream"] is True
    assert reply.content == "Let me read that file first." and "".join(tokens) == reply.content and len(tokens) > 1
    assert len(reply.tool_calls) == 1
    assert json.loads(reply.tool_calls[0].arguments) == {"file_path": "ünïcode 🐍.py", "start_line": 3}
    assert reply.finish_reason == "tool_calls" and reply.prompt_tokens == 100


@pytest.mark.parametrize("faults, what", [
    ([Fault(429, headers={"Retry-After": "2"})], "429 then success"),
    ([Fault(500), Fault(500)], "500 twice then success"),
    ([Fault(200, HTML_PAGE, "text/html")], "an HTML page with status 200"),
    ([Fault(502, HTML_PAGE, "text/html")], "an HTML 502 page"),
    ([Fault(200, "<html>oops</html>", "application/json")], "HTML labelled as JSON"),
    ([Fault(drop=True)], "a dropped connection"),
])
def test_transient_failures_are_retried(tools: list, faults: list, what: str) -> None:
    sleeps: list[float] = []
    with FakeOpenAI([*faults, Reply("done")]) as server:
        c, events = client(server, sleeps)
        reply = c.complete(MESSAGES, tools)
    assert reply.content == "done", what
    assert reply.requests == len(faults) + 1
    assert len(server.requests) == len(faults) + 1
    assert [k for k, _ in events].count("llm_retry") == len(faults)
    expected = [1.0, 2.0][: len(faults)]
    if faults[0].headers.get("Retry-After"):
        expected = [2.0]  # the server's Retry-After wins over the shorter backoff
    assert sleeps == expected


def test_a_timeout_is_retried(tools: list) -> None:
    with FakeOpenAI([Fault(delay=4.0), Reply("after the timeout")]) as server:
        c, events = client(server, timeout=1.0)
        reply = c.complete(MESSAGES, tools)
    assert reply.content == "after the timeout"
    retry = next(f for k, f in events if k == "llm_retry")
    assert "no answer within 1 s" in retry["error"]


def test_retries_run_out_with_a_clear_error(tools: list) -> None:
    with FakeOpenAI([Fault(503), Fault(503), Fault(503), Reply("never")]) as server:
        c, _ = client(server)
        with pytest.raises(LLMUnavailable) as err:
            c.complete(MESSAGES, tools)
    assert len(server.requests) == 3  # 1 + 2 retries, the SDK's own retries are off
    assert "failed 3 times in a row" in str(err.value) and "503" in str(err.value)
    assert server.base_url in str(err.value)


def test_auth_error_stops_at_once(tools: list) -> None:
    with FakeOpenAI([Reply("never")], api_key="right-key") as server:
        settings = LLMSettings(base_url=server.base_url, model="m", api_key="wrong-key")
        with pytest.raises(LLMAuthError) as err:
            LLMClient(settings, sleep=lambda s: None).complete(MESSAGES, tools)
    assert len(server.requests) == 0 and "401" in str(err.value) and "Incorrect API key" in str(err.value)
    assert "LLM_API_KEY" in str(err.value)


def test_bad_model_is_a_request_error(tools: list) -> None:
    body = json.dumps({"error": {"message": "The model `nope` does not exist"}})
    with FakeOpenAI([Fault(404, body)]) as server:
        c, _ = client(server)
        with pytest.raises(LLMRequestError) as err:
            c.complete(MESSAGES, tools)
    assert len(server.requests) == 1
    assert "404" in str(err.value) and "model name" in str(err.value) and "does not exist" in str(err.value)


def test_auto_falls_back_to_json_actions_when_tools_are_refused(tools: list) -> None:
    refusal = json.dumps({"error": {"message": "This model does not support tools"}})
    with FakeOpenAI([Fault(400, refusal), Reply('{"action": "finish", "params": {"summary": "ok"}}')]) as server:
        c, events = client(server)
        with pytest.raises(ProtocolChanged):
            c.complete(MESSAGES, tools)
        assert c.protocol == "json"
        reply = c.complete(MESSAGES, tools)
    assert "tools" not in server.requests[1]
    assert reply.tool_calls[0].name == "finish" and reply.protocol == "json"
    assert any(k == "protocol_fallback" for k, _ in events)


def test_max_completion_tokens_for_endpoints_that_insist(tools: list) -> None:
    refusal = json.dumps({"error": {"message": "Unsupported parameter: 'max_tokens'. Use 'max_completion_tokens'."}})
    with FakeOpenAI([Fault(400, refusal), Reply("ok")]) as server:
        c, _ = client(server)
        assert c.complete(MESSAGES, tools).content == "ok"
    assert "max_tokens" not in server.requests[1] and server.requests[1]["max_completion_tokens"] == 4096


def test_native_mode_adopts_a_call_written_as_text(tools: list) -> None:
    text = '```json\n{"name": "read_file", "arguments": {"file_path": "x.py"}}\n```'
    with FakeOpenAI([Reply(text)]) as server:
        c, _ = client(server)
        reply = c.complete(MESSAGES, tools)
    assert reply.tool_calls[0].name == "read_file" and json.loads(reply.tool_calls[0].arguments) == {"file_path": "x.py"}


# ----------------------------------------------------------------------------- JSON-action protocol
def test_json_protocol_fenced_action(tools: list) -> None:
    text = 'Sure.\n```json\n{"thought": "look first", "action": "read_file", "params": {"file_path": "a.py"}}\n```'
    with FakeOpenAI([Reply(text)]) as server:
        c, _ = client(server, protocol="json")
        reply = c.complete(MESSAGES, tools)
    assert "tools" not in server.requests[0]
    assert reply.tool_calls[0].name == "read_file" and json.loads(reply.tool_calls[0].arguments) == {"file_path": "a.py"}
    assert reply.content == text  # the history keeps what the model wrote


def test_json_protocol_reasks_with_the_parse_error(tools: list) -> None:
    bad = '{"action": "read_file", "params": {"file_path": "a.py"'  # cut short
    good = '{"thought": "t", "action": "read_file", "params": {"file_path": "a.py"}}'
    with FakeOpenAI([Reply(bad), Reply(good)]) as server:
        c, events = client(server, protocol="json")
        reply = c.complete(MESSAGES, tools)
    assert reply.tool_calls[0].name == "read_file" and reply.requests == 2
    reask = server.requests[1]["messages"]
    assert reask[-2] == {"role": "assistant", "content": bad}
    assert "could not be read as an action: invalid JSON" in reask[-1]["content"]
    assert '"action"' in reask[-1]["content"]  # the format is shown again
    assert [k for k, _ in events].count("format_error") == 1


@pytest.mark.parametrize("text, problem", [
    ('{"thought": "hmm", "params": {}}', 'missing "action"'),
    ('{"action": "read_file"}', 'missing "params"'),
    ('{"action": "read_file", "params": "a.py"}', '"params" must be an object'),
    ("I think I should read the file.", "no JSON object found"),
    ('["read_file"]', "no JSON object found"),
])
def test_json_protocol_missing_fields(tools: list, text: str, problem: str) -> None:
    good = '{"action": "finish", "params": {"summary": "s"}}'
    with FakeOpenAI([Reply(text), Reply(good)]) as server:
        c, _ = client(server, protocol="json")
        assert c.complete(MESSAGES, tools).tool_calls[0].name == "finish"
    assert problem in server.requests[1]["messages"][-1]["content"]


def test_json_protocol_gives_up_after_three_reasks(tools: list) -> None:
    with FakeOpenAI([Reply("no"), Reply("still no"), Reply("nope"), Reply("never"), Reply("unused")]) as server:
        c, _ = client(server, protocol="json")
        with pytest.raises(LLMFormatError) as err:
            c.complete(MESSAGES, tools)
    assert len(server.requests) == 4 and "after 3 re-asks" in str(err.value)


def test_parse_action_takes_the_first_object_and_ignores_prose() -> None:
    assert parse_action('Plan: {"action": "a", "params": {"x": "}"}} trailing') == ("", "a", {"x": "}"})
    assert parse_action('```\n{"thought": "t", "action": " b ", "params": {}}\n```') == ("t", "b", {})


@pytest.mark.parametrize("stream", [False, True])
def test_repeated_call_ids_are_made_unique(tools: list, stream: bool) -> None:
    reply = Reply(tool_calls=[call("read_file", file_path="a.py"), call("read_file", file_path="b.py")],
                  call_ids=["same", "same"])
    with FakeOpenAI([reply]) as server:
        c, _ = client(server, stream=stream)
        calls = c.complete(MESSAGES, tools).tool_calls
    assert calls[0].id == "same" and calls[1].id != "same" and len(calls) == 2
