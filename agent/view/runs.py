"""A run as the pages show it, built from its trajectory events: the summary line of the Runs page
and the timeline of steps (model calls, tool calls with their results, notes, the final answer).

Pure data from `agent.trajectory`'s readers; nothing here renders HTML or touches the journal."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from ..trajectory import TrajectoryError, read_events_from, run_path, runs_dir
from ..workspace import Workspace

MAX_RUNS = 500  # listed on the Runs page, newest first
PREVIEW_CHARS = 4_000  # of a tool's output shown in the page; the rest behind a link
REPLY_CHARS = 20_000  # of a model reply shown (collapsed)


@dataclass(slots=True)
class ModelCall:
    attempt: int
    duration_s: float
    prompt_tokens: int | None
    completion_tokens: int | None
    content: str
    finish_reason: str | None
    tool_names: list[str]


@dataclass(slots=True)
class ToolStep:
    call_id: str
    name: str
    arguments: str  # pretty JSON when it parses
    args: dict[str, Any]
    compact: str  # one line
    result: dict[str, Any] | None = None  # the tool_result event, once it is there

    @property
    def ok(self) -> bool | None:
        return None if self.result is None else bool(self.result.get("success"))


@dataclass(slots=True)
class Step:
    n: int
    model_calls: list[ModelCall] = field(default_factory=list)
    retries: list[str] = field(default_factory=list)  # failed model requests (retried or fatal)
    tools: list[ToolStep] = field(default_factory=list)
    notes: list[tuple[str, str]] = field(default_factory=list)  # (kind, text): stuck hints, format errors

    @property
    def tokens(self) -> tuple[int, int]:
        return (sum(c.prompt_tokens or 0 for c in self.model_calls),
                sum(c.completion_tokens or 0 for c in self.model_calls))

    @property
    def model_seconds(self) -> float:
        return sum(c.duration_s for c in self.model_calls)

    @property
    def tool_seconds(self) -> float:
        return sum(float((t.result or {}).get("duration_s") or 0.0) for t in self.tools)

    @property
    def stuck(self) -> bool:
        return any(k == "stuck" for k, _ in self.notes)

    @property
    def has_error(self) -> bool:
        return bool(self.retries) or any(t.ok is False for t in self.tools) or any(
            k != "stuck" for k, _ in self.notes)


@dataclass(slots=True)
class RunView:
    run_id: str
    start: dict[str, Any] = field(default_factory=dict)
    end: dict[str, Any] | None = None
    steps: dict[int, Step] = field(default_factory=dict)
    first_time: float = 0.0
    last_time: float = 0.0
    offset: int = 0  # bytes of the trajectory read so far (where the live tail goes on)
    skipped: int = 0  # malformed events left out
    _calls: dict[str, ToolStep] = field(default_factory=dict)

    # ------------------------------------------------------------------ building
    def add(self, events: list[dict[str, Any]]) -> set[int]:
        """Fold events in; the steps they touched (0 for the run's header)."""
        touched: set[int] = set()
        for ev in events:
            try:
                touched.add(self._add(ev))
            except (TypeError, ValueError, AttributeError):
                self.skipped += 1  # a line no codeagent wrote (the folder is in the workspace): left out
        return touched

    def _add(self, ev: dict[str, Any]) -> int:
        kind = ev.get("type")
        when = float(ev.get("time") or 0.0)
        self.first_time = self.first_time or when
        self.last_time = max(self.last_time, when)
        if kind == "run_start":
            self.start = ev
            return 0
        if kind == "run_end":
            self.end = ev
            return 0
        n = int(ev.get("step") or 0)
        step = self.steps.get(n)
        if step is None:
            step = self.steps[n] = Step(n)
        if kind == "llm_response":
            step.model_calls.append(ModelCall(
                int(ev.get("attempt") or 1), float(ev.get("duration_s") or 0.0), _int(ev.get("prompt_tokens")),
                _int(ev.get("completion_tokens")), str(ev.get("content") or ""), ev.get("finish_reason"),
                [str(c.get("name")) for c in ev.get("tool_calls") or [] if isinstance(c, dict)]))
        elif kind in ("llm_retry", "llm_error"):
            label = "retried" if kind == "llm_retry" else "failed"
            step.retries.append(f"attempt {ev.get('attempt')} {label}: {ev.get('error')}")
        elif kind == "format_error":
            step.notes.append(("format", f"the reply was not a valid action: {ev.get('error')}"))
        elif kind == "protocol_fallback":
            step.notes.append(("protocol", f"switched to JSON actions: {ev.get('reason')}"))
        elif kind == "note":
            step.notes.append((str(ev.get("category") or "note"), str(ev.get("text") or "")))
        elif kind == "tool_call":
            raw = str(ev.get("arguments") or "")
            args, pretty = _arguments(raw)
            compact = json.dumps(args, ensure_ascii=False) if args else " ".join(raw.split())
            call = ToolStep(str(ev.get("call_id") or ""), str(ev.get("name") or "?"), pretty, args, compact)
            step.tools.append(call)
            self._calls[call.call_id] = call
        elif kind == "tool_result":
            found = self._calls.get(str(ev.get("call_id") or ""))
            if found is not None:
                found.result = _clean_result(ev)
        return n

    # ------------------------------------------------------------------ reading
    @property
    def task(self) -> str:
        return str(self.start.get("task") or "")

    @property
    def model(self) -> str:
        llm = self.start.get("llm")
        return str(llm.get("model") or "") if isinstance(llm, dict) else ""

    @property
    def toolset(self) -> str:
        return str(self.start.get("toolset") or "")

    @property
    def status(self) -> str:
        return str(self.end.get("status") or "?") if self.end else "unfinished"

    @property
    def reason(self) -> str:
        return str(self.end.get("reason") or "") if self.end else ""

    @property
    def step_count(self) -> int:
        if self.end and self.end.get("steps") is not None:
            return int(self.end["steps"])
        return max((n for n in self.steps if n > 0), default=0)

    @property
    def tokens(self) -> tuple[int, int]:
        steps = [s.tokens for s in self.steps.values()]
        return sum(i for i, _ in steps), sum(o for _, o in steps)

    @property
    def seconds(self) -> float:
        if self.end and self.end.get("duration_s") is not None:
            return float(self.end["duration_s"])
        return max(0.0, self.last_time - self.first_time)

    @property
    def files_changed(self) -> list[str]:
        if self.end and isinstance(self.end.get("files_changed"), list):
            return [str(f) for f in self.end["files_changed"]]
        return sorted({str(f) for s in self.steps.values() for t in s.tools if t.result and t.result.get("journal_id")
                       for f in t.result.get("files") or []})

    @property
    def tool_call_count(self) -> int:
        return sum(len(s.tools) for s in self.steps.values())

    @property
    def final_answer(self) -> str:
        for step in sorted(self.steps.values(), key=lambda s: -s.n):
            for t in step.tools:
                if t.name == "finish" and t.args.get("summary"):
                    return str(t.args["summary"])
        return self.reason if self.status == "finished" else ""

    def ordered_steps(self) -> list[Step]:
        return [self.steps[n] for n in sorted(self.steps)]


def load_run(ws: Workspace, run_id: str) -> RunView:
    """The whole run as recorded so far (raises TrajectoryError for an unknown or malformed id)."""
    run_path(ws, run_id)  # validates the id before any file is opened
    events, offset = read_events_from(ws, run_id, 0)
    view = RunView(run_id)
    view.add(events)
    view.offset = offset
    return view


def tail(ws: Workspace, view: RunView) -> set[int]:
    """Read what was appended since the last read; the steps it touched."""
    events, view.offset = read_events_from(ws, view.run_id, view.offset)
    return view.add(events)


class RunIndex:
    """The Runs page's rows, re-read only for trajectories whose size or mtime changed."""

    def __init__(self, ws: Workspace):
        self.ws = ws
        self._cache: dict[str, tuple[tuple[int, int], RunView]] = {}

    def runs(self, status: str | None = None) -> list[RunView]:
        """Newest first, at most MAX_RUNS; `status` keeps only runs that ended so (or "unfinished")."""
        folder = runs_dir(self.ws)
        paths = sorted(folder.glob("*.jsonl"), key=lambda p: p.stat().st_mtime, reverse=True) if folder.is_dir() else []
        views: list[RunView] = []
        for path in paths[:MAX_RUNS]:
            try:
                st = path.stat()
                key = (st.st_size, st.st_mtime_ns)
                cached = self._cache.get(path.stem)
                if cached is None or cached[0] != key:
                    cached = (key, load_run(self.ws, path.stem))
                    self._cache[path.stem] = cached
            except (OSError, TrajectoryError):
                continue  # a stray file that is not a run
            views.append(cached[1])
        views.sort(key=lambda v: (v.first_time, v.run_id), reverse=True)
        return [v for v in views if status is None or v.status == status]


def _clean_result(ev: dict[str, Any]) -> dict[str, Any]:
    """A tool_result with the types the pages rely on (the file could have been written by anyone)."""
    files = ev.get("files")
    sites = ev.get("sites")
    return {
        "success": ev.get("success") is True, "executed": ev.get("executed") is not False,
        "raw_output": str(ev.get("raw_output") or ""), "error": str(ev["error"]) if ev.get("error") else None,
        "duration_s": float(ev.get("duration_s") or 0.0),
        "files": [str(f) for f in files] if isinstance(files, list) else [],
        "journal_id": str(ev["journal_id"]) if ev.get("journal_id") else None,
        "diff": ev.get("diff") if isinstance(ev.get("diff"), str) else None,
        "sites": [x for x in sites if isinstance(x, dict)] if isinstance(sites, list) else None,
    }


def _int(value: Any) -> int | None:
    return int(value) if isinstance(value, int | float) else None


def _arguments(raw: str) -> tuple[dict[str, Any], str]:
    try:
        parsed = json.loads(raw) if raw.strip() else {}
    except json.JSONDecodeError:
        return {}, raw
    if not isinstance(parsed, dict):
        return {}, raw
    return parsed, json.dumps(parsed, indent=2, ensure_ascii=False)
