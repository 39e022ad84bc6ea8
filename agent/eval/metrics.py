"""What one run cost, read from its trajectory: tool calls, model calls (answered and failed),
tokens in/out as the endpoint counted them, bytes of tool output the model read, wall time."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any


@dataclass(slots=True)
class RunMetrics:
    tool_calls: int = 0
    model_calls: int = 0
    model_errors: int = 0  # failed requests (retried or final): 429s, timeouts, 5xx
    tokens_in: int = 0
    tokens_out: int = 0
    bytes_read: int = 0
    wall_s: float = 0.0
    tools_used: dict[str, int] | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def from_events(events: list[dict[str, Any]]) -> RunMetrics:
    m = RunMetrics(tools_used={})
    assert m.tools_used is not None
    start = end = None
    for ev in events:
        kind = ev.get("type")
        if kind == "run_start":
            start = float(ev.get("time", 0.0))
        elif kind == "run_end":
            end = float(ev.get("time", 0.0))
        elif kind == "llm_response":
            m.model_calls += 1
            m.tokens_in += int(ev.get("prompt_tokens") or 0)
            m.tokens_out += int(ev.get("completion_tokens") or 0)
        elif kind in ("llm_retry", "llm_error"):
            m.model_errors += 1
        elif kind == "tool_call":
            m.tool_calls += 1
            name = str(ev.get("name", ""))
            m.tools_used[name] = m.tools_used.get(name, 0) + 1
        elif kind == "tool_result":
            m.bytes_read += int(ev.get("output_bytes") or 0)
    if start is not None and end is not None:
        m.wall_s = round(max(0.0, end - start), 3)
    return m
