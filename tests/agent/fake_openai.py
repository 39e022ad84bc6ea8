"""A real HTTP server speaking OpenAI's chat-completions protocol, with scripted replies.

Tests drive the real `openai` client (and so our whole llm.py) against it: no mocking. Each
request to `.../chat/completions` takes the next step of the script; a step is a `Reply`
(content and/or tool calls, sent as JSON or, when the request asks for it, as a server-sent-event
stream), a `Fault` (an HTTP error, an HTML page, a stall, a dropped connection), or a callable
that gets the request body and returns a step (for models that react to what they are sent).
A request past the end of the script gets a 500 that names the problem, so a test fails loudly.
"""

from __future__ import annotations

import contextlib
import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Reply:
    content: str | None = None
    tool_calls: list[tuple[str, Any]] = field(default_factory=list)  # (name, args dict or raw string)
    usage: tuple[int, int] | None = (100, 20)
    finish_reason: str | None = None
    call_ids: list[str] | None = None  # as the server names the calls (default: unique ids)


@dataclass
class Fault:
    status: int = 500
    body: str = '{"error": {"message": "scripted failure", "type": "server_error"}}'
    content_type: str = "application/json"
    delay: float = 0.0  # seconds to stall before answering (a timeout when over the client's)
    drop: bool = False  # close the connection without answering
    headers: dict[str, str] = field(default_factory=dict)


Step = Reply | Fault | Callable[[dict[str, Any]], "Reply | Fault"]

HTML_PAGE = "<html><head><title>502 Bad Gateway</title></head><body><h1>Bad Gateway</h1></body></html>"


def call(name: str, **args: Any) -> tuple[str, Any]:
    return (name, args)


def tools_reply(*calls: tuple[str, Any], content: str | None = None) -> Reply:
    return Reply(content=content, tool_calls=list(calls))


def _completion(reply: Reply, model: str, n: int) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": reply.content}
    if reply.tool_calls:
        message["tool_calls"] = [
            {"id": reply.call_ids[i] if reply.call_ids else f"call_{n}_{i}", "type": "function",
             "function": {"name": name, "arguments": args if isinstance(args, str) else json.dumps(args)}}
            for i, (name, args) in enumerate(reply.tool_calls)
        ]
    finish = reply.finish_reason or ("tool_calls" if reply.tool_calls else "stop")
    body: dict[str, Any] = {
        "id": f"chatcmpl-{n}", "object": "chat.completion", "created": int(time.time()), "model": model,
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
    }
    if reply.usage:
        p, c = reply.usage
        body["usage"] = {"prompt_tokens": p, "completion_tokens": c, "total_tokens": p + c}
    return body


def _chunks(reply: Reply, model: str, n: int) -> list[dict[str, Any]]:
    """The same reply as a stream: content in small pieces, tool-call arguments in pieces."""
    base = {"id": f"chatcmpl-{n}", "object": "chat.completion.chunk", "created": int(time.time()), "model": model}

    def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        return {**base, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}

    out = [chunk({"role": "assistant", "content": ""})]
    text = reply.content or ""
    out += [chunk({"content": text[i:i + 7]}) for i in range(0, len(text), 7)]
    for i, (name, args) in enumerate(reply.tool_calls):
        raw = args if isinstance(args, str) else json.dumps(args)
        call_id = reply.call_ids[i] if reply.call_ids else f"call_{n}_{i}"
        out.append(chunk({"tool_calls": [{"index": i, "id": call_id, "type": "function",
                                          "function": {"name": name, "arguments": ""}}]}))
        out += [chunk({"tool_calls": [{"index": i, "function": {"arguments": raw[j:j + 5]}}]})
                for j in range(0, len(raw), 5)]
    out.append(chunk({}, reply.finish_reason or ("tool_calls" if reply.tool_calls else "stop")))
    if reply.usage:
        p, c = reply.usage
        out.append({**base, "choices": [], "usage": {"prompt_tokens": p, "completion_tokens": c, "total_tokens": p + c}})
    return out


class FakeOpenAI:
    """`with FakeOpenAI([...]) as server:` then point the client at `server.base_url`."""

    def __init__(self, script: list[Step] | None = None, *, api_key: str | None = None):
        self.script: list[Step] = list(script or [])
        self.requests: list[dict[str, Any]] = []  # every chat request body, in order
        self.api_key = api_key  # when set, other keys get a 401
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}/v1"

    def push(self, *steps: Step) -> None:
        with self._lock:
            self.script.extend(steps)

    def __enter__(self) -> FakeOpenAI:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()

    def _next(self, body: dict[str, Any]) -> Reply | Fault:
        with self._lock:
            self.requests.append(body)
            if not self.script:
                return Fault(500, json.dumps({"error": {"message": f"fake server: script exhausted at request "
                                                                   f"{len(self.requests)}"}}))
            step = self.script.pop(0)
        return step(body) if callable(step) else step

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:  # keep test output clean
                pass

            def _send(self, status: int, body: str, content_type: str, headers: dict[str, str] | None = None) -> None:
                data = body.encode("utf-8")
                self.send_response(status)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(data)))
                for k, v in (headers or {}).items():
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
                self._send(404, '{"error": {"message": "not found"}}', "application/json")

            def do_POST(self) -> None:  # noqa: N802
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length)
                if not self.path.endswith("/chat/completions"):
                    self._send(404, json.dumps({"error": {"message": f"no route {self.path}"}}), "application/json")
                    return
                if fake.api_key is not None and self.headers.get("Authorization") != f"Bearer {fake.api_key}":
                    self._send(401, json.dumps({"error": {"message": "Incorrect API key provided",
                                                          "type": "invalid_request_error",
                                                          "code": "invalid_api_key"}}), "application/json")
                    return
                body = json.loads(raw or b"{}")
                step = fake._next(body)
                if isinstance(step, Fault):
                    if step.delay:
                        time.sleep(step.delay)
                    if step.drop:
                        self.close_connection = True
                        self.connection.shutdown(2)
                        return
                    with contextlib.suppress(BrokenPipeError, ConnectionResetError):  # the client gave up
                        self._send(step.status, step.body, step.content_type, step.headers)
                    return
                model = str(body.get("model", "fake"))
                n = len(fake.requests)
                if body.get("stream"):
                    events = "".join(f"data: {json.dumps(c)}\n\n" for c in _chunks(step, model, n)) + "data: [DONE]\n\n"
                    self._send(200, events, "text/event-stream")
                else:
                    self._send(200, json.dumps(_completion(step, model, n)), "application/json")

        return Handler
