"""Stuck detection: the same failing call three times brings a hint to change approach; a cycle of
identical actions with identical results (A-A-A-A after the hint, A-B-A-B, A-B-C-A-B-C) stops the run.
Results are compared with timings masked, so "1 failed in 0.03s" equals "1 failed in 0.04s"."""

from __future__ import annotations

import json
from collections import Counter

from .context import Turn
from .llm import ToolCall
from .trajectory import comparable


class StuckError(Exception):
    """The run repeats itself; the message says what it repeated."""


class StuckDetector:
    """Hints after the same failing call three times; stops on repeating action/observation cycles
    (A-A-A-A after the hint, or A-B-A-B, A-B-C-A-B-C)."""

    HINT_AFTER = 3
    CYCLES = ((1, 4), (2, 2), (3, 2))  # (period, repetitions) that stop the run

    def __init__(self) -> None:
        self.failures: Counter[str] = Counter()
        self.history: list[str] = []

    def observe(self, turn: Turn) -> str | None:
        hints = []
        for obs in turn.observations:
            key = _call_key(obs.call)
            if not obs.success:
                self.failures[key] += 1
                if self.failures[key] == self.HINT_AFTER:
                    first = obs.text.splitlines()[0] if obs.text else ""
                    hints.append(f"`{obs.call.name}` with these arguments has failed {self.HINT_AFTER} times "
                                 f"({first[:200]}). Repeating it will not help: change approach (re-read the "
                                 "file, check the path and arguments, or use another tool).")
        self.history.append(_turn_key(turn))
        for period, reps in self.CYCLES:
            window = self.history[-period * reps:]
            if len(window) == period * reps and window == window[-period:] * reps:
                what = "the same action with the same result" if period == 1 else \
                    f"a cycle of {period} actions with the same results"
                raise StuckError(f"stuck: the model repeated {what} {reps} times; stopping "
                            f"(last action: {_describe(turn)})")
        h = self.history
        if not hints and len(h) >= self.HINT_AFTER and len(set(h[-self.HINT_AFTER:])) == 1:
            hints.append(f"You made the same call {self.HINT_AFTER} times and got the same result each time. "
                         "Change approach, or call finish if the task is done.")
        return "\n".join(hints) or None


def _call_key(call: ToolCall) -> str:
    try:
        args = json.dumps(json.loads(call.arguments or "{}"), sort_keys=True)
    except json.JSONDecodeError:
        args = call.arguments
    return f"{call.name}:{args}"


def _turn_key(turn: Turn) -> str:
    if not turn.calls:
        return f"text:{turn.content.strip()[:500]}"
    return "|".join(f"{_call_key(o.call)}={o.success}:{comparable(o.text)}" for o in turn.observations)


def _describe(turn: Turn) -> str:
    return ", ".join(f"{c.name} {c.arguments[:80]}" for c in turn.calls) or "an answer without a tool call"
