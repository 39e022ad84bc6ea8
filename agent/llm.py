"""The model: any OpenAI-compatible chat-completions endpoint, through the `openai` SDK.

`LLMClient.complete(messages, tools)` returns one `Reply` (text and tool calls) and hides:

- the protocol: native tool calling ("tools"), or JSON actions written in the reply text
  (`{"thought": ..., "action": ..., "params": {...}}`, code fences stripped, up to 3 re-asks that
  show the parse error) for models without tool calling ("json"); "auto" starts native and falls
  back to JSON actions for good if the endpoint refuses the `tools` parameter;
- transient failures (429, 5xx, timeouts, connection resets, an HTML page instead of JSON),
  retried here with exponential backoff (the SDK's own retries are off, so ours are the only ones);
- the translation of openai's exceptions into agent.errors.LLMError subclasses: auth errors stop
  at once with a clear message, other refusals name the status and the endpoint's words.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from .config import LLMSettings
from .errors import LLMAuthError, LLMError, LLMFormatError, LLMRequestError, LLMUnavailable

if TYPE_CHECKING:
    import openai

MAX_REASKS = 3
MAX_RETRY_AFTER = 30.0  # seconds: never wait longer than this for a Retry-After header
OPENAI_DEFAULT_MODEL = "gpt-4o-mini"

EventSink = Callable[[str, dict[str, Any]], None]  # (event type, fields) → trajectory
_call_ids = itertools.count(1)


@dataclass(slots=True)
class ToolCall:
    id: str
    name: str
    arguments: str  # the JSON text exactly as the model wrote it (it may be malformed)


@dataclass(slots=True)
class Reply:
    """One answer of the model: text, tool calls, and what it cost."""

    content: str = ""
    tool_calls: list[ToolCall] = field(default_factory=list)
    prompt_tokens: int | None = None  # None: the endpoint did not say
    completion_tokens: int | None = None
    finish_reason: str | None = None
    requests: int = 1  # HTTP requests it took (retries and re-asks included)
    protocol: str = "tools"


class Model(Protocol):
    """The loop's view of a model. `protocol` is "tools" or "json" (it may change once, on fallback)."""

    protocol: str

    def complete(self, messages: list[dict[str, Any]], tools: Sequence[dict[str, Any]]) -> Reply: ...


class _Transient(Exception):
    """A failure worth retrying (internal to this module)."""

    def __init__(self, message: str, retry_after: float | None = None):
        super().__init__(message)
        self.retry_after = retry_after


class ActionFormatError(ValueError):
    """A JSON-action reply that cannot be read; the message is shown to the model."""


# ----------------------------------------------------------------------------- JSON actions
ACTION_FORMAT = '{"thought": "<why>", "action": "<tool name>", "params": {<the tool\'s arguments>}}'
_FENCE = re.compile(r"```[a-zA-Z0-9_-]*\s*\n?(.*?)```", re.DOTALL)


def parse_action(text: str) -> tuple[str, str, dict[str, Any]]:
    """(thought, action, params) from a reply holding one JSON action, fenced or not."""
    body = text.strip()
    fenced = _FENCE.findall(body)
    candidates = [f.strip() for f in fenced] if fenced else [body]
    obj: Any = None
    error = "no JSON object found"
    for cand in candidates:
        start = cand.find("{")
        if start < 0:
            continue
        try:
            obj, _end = json.JSONDecoder().raw_decode(cand[start:])
            break
        except json.JSONDecodeError as exc:
            error = f"invalid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})"
    if obj is None:
        raise ActionFormatError(error)
    if not isinstance(obj, dict):
        raise ActionFormatError(f"the JSON must be an object, got {type(obj).__name__}")
    action = obj.get("action")
    if not isinstance(action, str) or not action.strip():
        raise ActionFormatError('missing "action": the name of the tool to call (a string)')
    if "params" not in obj:
        raise ActionFormatError('missing "params": the tool\'s arguments as an object ({} when it takes none)')
    params = obj["params"]
    if not isinstance(params, dict):
        raise ActionFormatError(f'"params" must be an object, got {type(params).__name__}')
    thought = obj.get("thought")
    return (thought if isinstance(thought, str) else ""), action.strip(), params


def reask_message(error: str) -> str:
    return (f"Your reply could not be read as an action: {error}.\n"
            f"Reply with exactly one JSON object and nothing else:\n{ACTION_FORMAT}")


# ----------------------------------------------------------------------------- the client
class LLMClient:
    """A `Model` backed by the openai SDK. `on_event` receives request/response/retry events."""

    def __init__(self, settings: LLMSettings, *, on_event: EventSink | None = None,
                 on_token: Callable[[str], None] | None = None,
                 sleep: Callable[[float], None] = time.sleep):
        self.settings = settings
        self.model_name = settings.model or OPENAI_DEFAULT_MODEL
        self.protocol = "json" if settings.protocol == "json" else "tools"
        self.on_event = on_event
        self.on_token = on_token  # streamed text, as it arrives
        self._sleep = sleep
        self._tokens_key = "max_tokens"
        import openai  # imported here: the SDK takes ~0.7 s to import, and most commands never need it

        self._client = openai.OpenAI(
            api_key=settings.api_key or "not-needed",  # local servers accept any key; the SDK insists on one
            base_url=settings.base_url,
            timeout=settings.timeout,
            max_retries=0,
        )

    def close(self) -> None:
        self._client.close()

    # -- the one public call
    def complete(self, messages: list[dict[str, Any]], tools: Sequence[dict[str, Any]]) -> Reply:
        """`tools`: OpenAI function schemas ({"type": "function", "function": {"name", ...}})."""
        if self.protocol == "tools":
            try:
                return self._complete_native(messages, tools)
            except LLMRequestError as exc:
                if self.settings.protocol != "auto" or not _refuses_tools(exc):
                    raise
                self.protocol = "json"
                self._emit("protocol_fallback", {"reason": str(exc)})
                raise ProtocolChanged(str(exc)) from exc
        return self._complete_json(messages)

    def _complete_native(self, messages: list[dict[str, Any]], tools: Sequence[dict[str, Any]]) -> Reply:
        extra: dict[str, Any] = {"tools": list(tools)} if tools else {}
        reply = self._request(messages, extra)
        if not reply.tool_calls:
            adopted = _action_in_text(reply.content, {t["function"]["name"] for t in tools})
            if adopted is not None:  # a model that wrote its call as text despite native tools
                reply.tool_calls = [adopted]
        return reply

    def _complete_json(self, messages: list[dict[str, Any]]) -> Reply:
        convo = list(messages)
        requests = 0
        for attempt in range(MAX_REASKS + 1):
            reply = self._request(convo, {})
            requests += reply.requests
            try:
                _thought, action, params = parse_action(reply.content)
            except ActionFormatError as exc:
                self._emit("format_error", {"error": str(exc), "attempt": attempt + 1, "content": reply.content})
                if attempt == MAX_REASKS:
                    raise LLMFormatError(
                        f"the model's reply was not a valid JSON action after {MAX_REASKS} re-asks "
                        f"(last problem: {exc}); try a model with tool calling or a stronger model") from exc
                convo += [{"role": "assistant", "content": reply.content},
                          {"role": "user", "content": reask_message(str(exc))}]
                continue
            reply.tool_calls = [ToolCall(f"action_{next(_call_ids)}", action, json.dumps(params))]
            reply.requests = requests
            reply.protocol = "json"
            return reply
        raise AssertionError("unreachable")

    # -- one request, with retries
    def _request(self, messages: list[dict[str, Any]], extra: dict[str, Any]) -> Reply:
        s = self.settings
        kwargs: dict[str, Any] = {"model": self.model_name, "messages": messages, "temperature": s.temperature,
                                  self._tokens_key: s.max_tokens, **extra}
        attempts = s.max_retries + 1
        for attempt in range(1, attempts + 1):
            self._emit("llm_request", {"attempt": attempt, "model": self.model_name, "messages": messages,
                                       "tools": [t["function"]["name"] for t in extra.get("tools", [])]})
            started = time.monotonic()
            try:
                reply = self._send(kwargs)
            except LLMRequestError as exc:
                if "max_completion_tokens" not in str(exc) or self._tokens_key != "max_tokens":
                    raise
                self._tokens_key = "max_completion_tokens"  # newer OpenAI models refuse max_tokens
                return self._request(messages, extra)
            except _Transient as exc:
                self._emit("llm_retry" if attempt < attempts else "llm_error",
                           {"attempt": attempt, "error": str(exc), "duration_s": time.monotonic() - started})
                if attempt == attempts:
                    raise LLMUnavailable(f"the model endpoint failed {attempts} times in a row; last error: {exc}. "
                                         f"Endpoint: {self._where()}") from exc
                delay = s.retry_backoff * 2 ** (attempt - 1)
                if exc.retry_after is not None:
                    delay = max(delay, min(exc.retry_after, MAX_RETRY_AFTER))
                self._sleep(delay)
                continue
            reply.requests = attempt
            self._emit("llm_response", {
                "attempt": attempt, "duration_s": round(time.monotonic() - started, 3), "content": reply.content,
                "tool_calls": [{"id": c.id, "name": c.name, "arguments": c.arguments} for c in reply.tool_calls],
                "prompt_tokens": reply.prompt_tokens, "completion_tokens": reply.completion_tokens,
                "finish_reason": reply.finish_reason})
            return reply
        raise AssertionError("unreachable")

    def _send(self, kwargs: dict[str, Any]) -> Reply:
        """One HTTP request; transient failures raise _Transient, the rest LLMError."""
        import openai

        try:
            if self.settings.stream:
                return self._read_stream(self._client.chat.completions.create(**kwargs, stream=True))
            return _reply_of(self._client.chat.completions.create(**kwargs))
        except (openai.AuthenticationError, openai.PermissionDeniedError) as exc:
            raise LLMAuthError(
                f"the endpoint refused the credentials ({exc.status_code}): {_api_message(exc)}. "
                f"Check LLM_API_KEY / OPENAI_API_KEY (endpoint: {self._where()})") from exc
        except openai.RateLimitError as exc:
            raise _Transient(f"rate limited (429): {_api_message(exc)}", _retry_after(exc)) from exc
        except openai.APIStatusError as exc:
            if exc.status_code >= 500 or exc.status_code in (408, 409):
                raise _Transient(f"server error {exc.status_code}: {_api_message(exc)}", _retry_after(exc)) from exc
            hint = " (is the model name right?)" if exc.status_code == 404 else ""
            raise LLMRequestError(f"the endpoint refused the request ({exc.status_code}){hint}: {_api_message(exc)}",
                                  status=exc.status_code) from exc
        except openai.APITimeoutError as exc:
            raise _Transient(f"no answer within {self.settings.timeout:g} s") from exc
        except openai.APIConnectionError as exc:
            cause = exc.__cause__ or exc
            raise _Transient(f"connection failed ({type(cause).__name__}: {cause})") from exc
        except (ValueError, _BadPayload) as exc:  # JSON decode errors, a body of the wrong shape
            raise _Transient(f"the endpoint sent something that is not a chat completion ({exc})") from exc

    def _read_stream(self, stream: Any) -> Reply:
        content: list[str] = []
        calls: dict[int, dict[str, str]] = {}
        reply = Reply()
        chunks = 0
        for chunk in stream:
            chunks += 1
            usage = getattr(chunk, "usage", None)
            if usage is not None:
                reply.prompt_tokens, reply.completion_tokens = usage.prompt_tokens, usage.completion_tokens
            for choice in getattr(chunk, "choices", None) or []:
                delta = choice.delta
                if delta.content:
                    content.append(delta.content)
                    if self.on_token:
                        self.on_token(delta.content)
                for tc in delta.tool_calls or []:
                    slot = calls.setdefault(tc.index, {"id": "", "name": "", "arguments": ""})
                    slot["id"] = tc.id or slot["id"]
                    if tc.function is not None:
                        slot["name"] += tc.function.name or ""
                        slot["arguments"] += tc.function.arguments or ""
                if choice.finish_reason:
                    reply.finish_reason = choice.finish_reason
        if chunks == 0:
            raise _BadPayload("an empty stream (an HTML page or a proxy error instead of server-sent events?)")
        reply.content = "".join(content)
        reply.tool_calls = _unique_ids([ToolCall(c["id"] or f"call_{next(_call_ids)}", c["name"], c["arguments"] or "{}")
                                        for _i, c in sorted(calls.items())])
        return reply

    def _where(self) -> str:
        return self.settings.base_url or "OpenAI (default base URL)"

    def _emit(self, kind: str, fields: dict[str, Any]) -> None:
        if self.on_event is not None:
            self.on_event(kind, fields)


class ProtocolChanged(LLMError):
    """The endpoint refused native tools; the client switched to JSON actions. Ask again."""


class _BadPayload(Exception):
    pass


def _reply_of(resp: Any) -> Reply:
    import openai

    if not isinstance(resp, openai.types.chat.ChatCompletion):
        text = str(resp)
        kind = "an HTML page" if "<html" in text[:500].lower() else "a non-JSON body"
        raise _BadPayload(f"{kind}: {text[:200]!r}")
    if not resp.choices:
        raise _BadPayload("a completion without choices")
    msg = resp.choices[0].message
    raw_calls: list[Any] = list(msg.tool_calls or [])  # custom (non-function) tool calls are skipped
    calls = [ToolCall(tc.id or f"call_{next(_call_ids)}", tc.function.name, tc.function.arguments or "{}")
             for tc in raw_calls if getattr(tc, "function", None) is not None]
    usage = resp.usage
    return Reply(content=msg.content or "", tool_calls=_unique_ids(calls),
                 prompt_tokens=usage.prompt_tokens if usage else None,
                 completion_tokens=usage.completion_tokens if usage else None,
                 finish_reason=resp.choices[0].finish_reason)


def _unique_ids(calls: list[ToolCall]) -> list[ToolCall]:
    """Some servers repeat one id for every call of a turn; the API needs each answered separately."""
    seen: set[str] = set()
    for c in calls:
        if c.id in seen:
            c.id = f"call_{next(_call_ids)}"
        seen.add(c.id)
    return calls


def _action_in_text(content: str, names: set[str]) -> ToolCall | None:
    """A call written as text ({"action"/"name": tool, "params"/"arguments": {...}}) naming a known tool."""
    if "{" not in content:
        return None
    try:
        _thought, action, params = parse_action(content)
    except ActionFormatError:
        try:
            obj = json.loads(_FENCE.sub(lambda m: m.group(1), content).strip())
        except json.JSONDecodeError:
            return None
        if not (isinstance(obj, dict) and isinstance(obj.get("name"), str) and isinstance(obj.get("arguments"), dict)):
            return None
        action, params = obj["name"], obj["arguments"]
    if action not in names:
        return None
    return ToolCall(f"text_{next(_call_ids)}", action, json.dumps(params))


def _refuses_tools(exc: LLMRequestError) -> bool:
    return exc.status in (400, 404, 422, 500, 501) and "tool" in str(exc).lower()


def _api_message(exc: openai.APIStatusError) -> str:
    body = exc.body
    if isinstance(body, dict):
        err = body.get("error", body)
        if isinstance(err, dict) and err.get("message"):
            return str(err["message"])[:500]
        if isinstance(err, str):
            return err[:500]
    text = ""
    with contextlib.suppress(Exception):  # the body may be unreadable (a stream)
        text = exc.response.text
    if "<html" in text[:500].lower():
        title = re.search(r"<title>(.*?)</title>", text, re.IGNORECASE | re.DOTALL)
        return f"an HTML error page{': ' + title.group(1).strip() if title else ''}"
    return (text or str(exc))[:500]


def _retry_after(exc: openai.APIStatusError) -> float | None:
    try:
        value = exc.response.headers.get("retry-after")
        return float(value) if value is not None else None
    except (ValueError, AttributeError):
        return None


__all__ = [
    "ACTION_FORMAT", "OPENAI_DEFAULT_MODEL", "LLMClient", "LLMError", "Model", "ProtocolChanged", "Reply", "ToolCall",
    "parse_action", "reask_message",
]
