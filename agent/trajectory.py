"""A run's trajectory: one JSON event per line in `.codeagent/runs/<run id>.jsonl`.

Events (each has "type", "time" and "run_id"): run_start, llm_request, llm_response, llm_retry,
llm_error, format_error, protocol_fallback, tool_call, tool_result, note, run_end. Tool results
carry the output the model read, success, duration and output size, and for an edit its diff and
the rename sites with their reasons; LLM responses carry token counts and durations; a `note` of
category "stuck" is a hint the stuck detector gave the model. `replay` re-executes the recorded
tool calls against the workspace and reports where the results differ from the recording.
"""

from __future__ import annotations

import json
import re
import secrets
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from .errors import CodeagentError
from .registry import Registry
from .result import ToolResult, bounded
from .toolcontext import ToolContext
from .workspace import Workspace

RUNS_DIR = "runs"
RECORD_CHARS = 200_000  # of a tool's output kept in the trajectory (head and tail)
_RUN_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,80}$")


class TrajectoryError(CodeagentError):
    """No such run, or its trajectory cannot be read."""


def new_run_id() -> str:
    return time.strftime("%Y%m%d-%H%M%S") + "-" + secrets.token_hex(2)


def runs_dir(ws: Workspace) -> Path:
    return ws.tool_dir / RUNS_DIR


def run_path(ws: Workspace, run_id: str) -> Path:
    if not _RUN_ID.match(run_id):
        raise TrajectoryError(f"{run_id!r} is not a run id (see `codeagent runs`)")
    return runs_dir(ws) / f"{run_id}.jsonl"


class Trajectory:
    """Appends events to a run's JSONL file; each line is flushed as it is written."""

    def __init__(self, ws: Workspace, run_id: str):
        self.run_id = run_id
        self.path = run_path(ws, run_id)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        ignore = ws.tool_dir / ".gitignore"
        if not ignore.exists():
            ignore.write_text("# codeagent's own state; never commit it\n*\n", encoding="utf-8")
        self._fh: IO[str] | None = open(self.path, "a", encoding="utf-8")  # noqa: SIM115 (lives with the run)
        self._lock = threading.Lock()

    def event(self, kind: str, **fields: Any) -> None:
        line = json.dumps({"type": kind, "time": round(time.time(), 3), "run_id": self.run_id, **fields},
                          ensure_ascii=False, default=str)
        with self._lock:
            if self._fh is not None:
                self._fh.write(line + "\n")
                self._fh.flush()

    def close(self) -> None:
        with self._lock:
            if self._fh is not None:
                self._fh.close()
                self._fh = None


def read_events(ws: Workspace, run_id: str) -> list[dict[str, Any]]:
    path = run_path(ws, run_id)
    if not path.is_file():
        raise TrajectoryError(f"no such run {run_id!r} in {runs_dir(ws)} (see `codeagent runs`)")
    return list(_parse(path))


def read_events_from(ws: Workspace, run_id: str, offset: int = 0) -> tuple[list[dict[str, Any]], int]:
    """The events after byte `offset` and the offset to read on from: only whole lines are taken,
    so a line being written is read complete on the next call (tailing a run in progress)."""
    path = run_path(ws, run_id)
    try:
        with open(path, "rb") as fh:
            fh.seek(offset)
            data = fh.read()
    except FileNotFoundError as exc:
        raise TrajectoryError(f"no run {run_id!r} in {runs_dir(ws)} (see `codeagent runs`)") from exc
    end = data.rfind(b"\n") + 1
    events = []
    for line in data[:end].decode("utf-8", errors="replace").splitlines():
        try:
            obj = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(obj, dict):
            events.append(obj)
    return events, offset + end


def _parse(path: Path) -> Iterator[dict[str, Any]]:
    with open(path, encoding="utf-8", errors="replace") as fh:
        for line in fh:
            try:
                obj = json.loads(line)
            except json.JSONDecodeError:
                continue  # a torn last line (the process was killed mid-write)
            if isinstance(obj, dict):
                yield obj


@dataclass(slots=True)
class RunInfo:
    run_id: str
    started: float
    task: str
    status: str  # from run_end, or "unfinished"
    steps: int
    tool_calls: int
    tokens: int
    reason: str = ""


def list_runs(ws: Workspace) -> list[RunInfo]:
    """Every recorded run, oldest first."""
    folder = runs_dir(ws)
    if not folder.is_dir():
        return []
    out = []
    for path in sorted(folder.glob("*.jsonl")):
        start: dict[str, Any] = {}
        end: dict[str, Any] = {}
        calls = 0
        for ev in _parse(path):
            kind = ev.get("type")
            if kind == "run_start":
                start = ev
            elif kind == "run_end":
                end = ev
            elif kind == "tool_call":
                calls += 1
        out.append(RunInfo(path.stem, float(start.get("time", 0.0)), str(start.get("task", "")),
                           str(end.get("status", "unfinished")), int(end.get("steps", 0)), calls,
                           int(end.get("tokens", 0)), str(end.get("reason", ""))))
    return out


# ----------------------------------------------------------------------------- replay
_VOLATILE = re.compile(r"\d+\.\d+")  # durations and timings ("in 0.03s") differ between runs


def comparable(text: str) -> str:
    return _VOLATILE.sub("N", text)


def result_text(result: ToolResult) -> str:
    """A result as the model reads it (before the length bound): the output, or the error first."""
    if result.success:
        return result.output
    return f"ERROR: {result.error}\n{result.output}".rstrip()


def recorded_text(result: ToolResult) -> str:
    return bounded(result_text(result), RECORD_CHARS)


def recorded_diff(result: ToolResult) -> str | None:
    """An edit's unified diff as the trajectory keeps it (bounded); None when the tool changed nothing."""
    diff = result.data.get("diff")
    return bounded(diff, RECORD_CHARS) if isinstance(diff, str) and diff else None


@dataclass(slots=True)
class Divergence:
    index: int  # the recorded call's position among the replayed ones (1-based)
    step: int
    tool: str
    arguments: str
    expected: str
    got: str

    def describe(self) -> str:
        exp, got = self.expected.splitlines(), self.got.splitlines()
        first = next((i for i, (a, b) in enumerate(zip(exp, got, strict=False)) if a != b), min(len(exp), len(got)))
        line_e = exp[first] if first < len(exp) else "(end of output)"
        line_g = got[first] if first < len(got) else "(end of output)"
        return (f"call {self.index} (step {self.step}) {self.tool} {self.arguments[:120]}: output differs at "
                f"line {first + 1}\n  recorded: {line_e[:200]}\n  replayed: {line_g[:200]}")


@dataclass(slots=True)
class ReplayReport:
    run_id: str
    replay_run_id: str
    calls: int = 0
    skipped: int = 0
    divergences: list[Divergence] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.divergences


def replay(ctx: ToolContext, registry: Registry, events: list[dict[str, Any]], *, run_id: str) -> ReplayReport:
    """Run the recorded tool calls again, in order, and compare success and output with the recording.

    Agent tools (finish, remember) are not re-run. `ctx.run_id` tags the replay's edits for undo."""
    results = {ev.get("call_id"): ev for ev in events if ev.get("type") == "tool_result"}
    report = ReplayReport(run_id, ctx.run_id or "")
    for ev in events:
        if ev.get("type") != "tool_call":
            continue
        name = str(ev.get("name", ""))
        recorded = results.get(ev.get("call_id"))
        if recorded is None or recorded.get("executed") is False or _is_agent_tool(registry, name):
            report.skipped += 1
            continue
        report.calls += 1
        result = registry.call(ctx, name, ev.get("arguments") or "{}")
        got = recorded_text(result)
        expected = str(recorded.get("raw_output", ""))
        if bool(recorded.get("success")) != result.success or comparable(expected) != comparable(got):
            report.divergences.append(Divergence(report.calls, int(ev.get("step", 0)), name,
                                                 str(ev.get("arguments", "")), expected, got))
    return report


def _is_agent_tool(registry: Registry, name: str) -> bool:
    try:
        return registry.get(name).toolset == "agent"
    except CodeagentError:
        return False
