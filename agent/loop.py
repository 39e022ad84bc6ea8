"""The agent loop: run → step → query → execute.

Every way out of the loop is an exception carrying its message (`Stop` and its subclasses): the
model finished, a limit was reached, the run is stuck, the model endpoint failed, the user pressed
Ctrl+C. A failed tool is not an exception: its error goes back to the model as the observation.
"""

from __future__ import annotations

import contextlib
import json
import signal
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, Protocol

from pydantic import BaseModel

from .context import Context, ContextOverflowError, Observation, Turn
from .errors import CodeagentError, LLMError, ToolUsageError
from .llm import Model, ProtocolChanged, Reply, ToolCall
from .registry import Registry, Tool
from .result import ToolResult, bounded
from .semantic.session_watch import watch_later
from .semantic.upkeep import ServerUpkeep
from .stuck import StuckDetector, StuckError
from .toolcontext import ToolContext
from .trajectory import Trajectory, recorded_diff, recorded_text, result_text

MAX_PARALLEL = 4
MAX_STATE_CHARS = 200_000  # files bigger than this are not kept as "latest known state"


class Stop(Exception):
    """Leaves the loop; the message says why."""

    status = "stopped"


class Finished(Stop):
    status = "finished"


class LimitReached(Stop):
    status = "limit"


class Stuck(Stop):
    status = "stuck"


class ModelFailed(Stop):
    status = "model_error"


class Interrupted(Stop):
    status = "interrupted"


class Display(Protocol):
    """What the user sees (and, with --confirm, is asked)."""

    def reply(self, text: str) -> None: ...
    def action(self, call: ToolCall, tool: Tool | None) -> None: ...
    def result(self, call: ToolCall, result: ToolResult, seconds: float) -> None: ...
    def confirm(self, call: ToolCall, tool: Tool) -> bool: ...
    def note(self, text: str) -> None: ...


class NoDisplay:
    def reply(self, text: str) -> None: ...
    def action(self, call: ToolCall, tool: Tool | None) -> None: ...
    def result(self, call: ToolCall, result: ToolResult, seconds: float) -> None: ...
    def confirm(self, call: ToolCall, tool: Tool) -> bool:
        return False
    def note(self, text: str) -> None: ...


@dataclass(slots=True)
class Limits:
    max_steps: int = 30
    max_total_tokens: int = 1_000_000
    max_seconds: float = 1800.0


@dataclass(slots=True)
class Outcome:
    status: str  # finished, limit, stuck, model_error, interrupted
    message: str
    steps: int
    tokens: int
    seconds: float

    @property
    def ok(self) -> bool:
        return self.status == "finished"


class EditAdviser(Protocol):
    """Looks at a call about to run (its tool name and validated arguments) and returns what to tell
    the model once the call has run, or None (agent/edithint.py: the cross-file hint). It must be
    quick and must not raise; the loop ignores one that does."""

    def before(self, tool: str, args: dict[str, Any]) -> Callable[[ToolResult], str | None] | None: ...


class Agent:
    def __init__(self, model: Model, ctx: ToolContext, registry: Registry, tools: list[Tool], context: Context, *,
                 limits: Limits | None = None, trajectory: Trajectory | None = None,
                 display: Display | None = None, confirm: bool = False, advisers: Sequence[EditAdviser] = ()):
        self.model, self.ctx, self.registry, self.tools, self.context = model, ctx, registry, tools, context
        self.limits = limits or Limits()
        self.trajectory = trajectory
        self.display: Display = display or NoDisplay()
        self.confirm = confirm
        self.stuck = StuckDetector()
        self.steps = self.tokens = 0
        self.started = time.monotonic()
        self._offered = {t.name for t in tools}
        self._interrupted = False
        self.advisers = list(advisers)
        self._advice: dict[str, str] = {}  # call id → what the advisers said after it
        self.upkeep = ServerUpkeep(ctx)  # servers over their memory limit restart between batches of calls

    def run(self) -> Outcome:
        self.started = time.monotonic()
        watch_later(self.ctx)  # searches keep their walk under a folder watch, as in the daemon (from the first)
        while True:
            try:
                self.step()
            except Stop as stop:
                return self._outcome(stop)
            except KeyboardInterrupt:
                return self._outcome(Interrupted("interrupted by the user (Ctrl+C) between steps; no file is half-written"))

    def step(self) -> None:
        self.check_limits()
        self.execute(self.query())

    def query(self) -> Reply:
        schemas = [t.openai_schema() for t in self.tools]
        reserve = self.context.counter.text(json.dumps(schemas)) if self.model.protocol == "tools" else 0
        try:
            messages = self.context.messages(self.model.protocol, reserve=reserve)
            reply = self.model.complete(messages, schemas)
        except ProtocolChanged as exc:
            self.display.note(f"the endpoint refused native tool calls; switching to JSON actions ({exc})")
            return self.query()
        except (LLMError, ContextOverflowError) as exc:
            raise ModelFailed(f"the model could not be queried: {exc}") from exc
        except KeyboardInterrupt as exc:
            raise Interrupted("interrupted by the user (Ctrl+C) while waiting for the model") from exc
        counter = self.context.counter
        self.tokens += (reply.prompt_tokens if reply.prompt_tokens is not None else counter.messages(messages)) + (
            reply.completion_tokens if reply.completion_tokens is not None
            else counter.text(reply.content + "".join(c.arguments for c in reply.tool_calls)))
        return reply

    def execute(self, reply: Reply) -> None:
        self.steps += 1
        turn = Turn(self.steps, reply.content, list(reply.tool_calls), protocol=reply.protocol)
        self.context.add(turn)
        if reply.content.strip():
            self.display.reply(reply.content)
        if not reply.tool_calls:
            if reply.content.strip():
                raise Finished(reply.content.strip())  # a final answer
            turn.notes.append("Your reply was empty. Call a tool, or call finish with a summary.")
        with self._sigint_deferred():
            results = self.run_calls(turn.calls)
        for call, result in zip(turn.calls, results, strict=True):
            self._observe(turn, call, result)
            advice = self._advice.pop(call.id, None)
            if advice:
                turn.notes.append(advice)
                self.display.note(advice)
                self._record("note", category="semantic_hint", text=advice, call_id=call.id)
        try:
            hint = self.stuck.observe(turn)
        except StuckError as exc:
            raise Stuck(str(exc)) from exc
        if hint:
            turn.notes.append(hint)
            self.display.note(hint)
            self._record("note", category="stuck", text=hint)
        if self._interrupted:
            raise Interrupted("interrupted by the user (Ctrl+C); the tool calls of that step completed")
        self._check_finish(turn, results)

    # ------------------------------------------------------------------------- limits and the end
    def check_limits(self) -> None:
        lim = self.limits
        if self.steps >= lim.max_steps:
            raise LimitReached(f"step limit reached ({lim.max_steps} steps) before the task was finished")
        if self.tokens >= lim.max_total_tokens:
            raise LimitReached(f"token limit reached ({self.tokens} of {lim.max_total_tokens} tokens)")
        if time.monotonic() - self.started >= lim.max_seconds:
            raise LimitReached(f"time limit reached ({lim.max_seconds:g} s)")

    def _check_finish(self, turn: Turn, results: list[ToolResult]) -> None:
        done = [(c, r) for c, r in zip(turn.calls, results, strict=True) if r.success and r.data.get("finished") is True]
        if not done:
            return
        finishers = {c.name for c, _r in done}
        failed = [c.name for c, r in zip(turn.calls, results, strict=True) if not r.success and c.name not in finishers]
        if failed:
            name = done[-1][0].name
            turn.notes.append(f"{name} was not accepted: {', '.join(failed)} failed in the same turn. "
                              f"Look at the errors, then call {name} again.")
            return
        raise Finished(done[-1][1].output)

    def _outcome(self, stop: Stop) -> Outcome:
        return Outcome(stop.status, str(stop), self.steps, self.tokens, time.monotonic() - self.started)

    # ------------------------------------------------------------------------- tool calls
    def run_calls(self, calls: list[ToolCall]) -> list[ToolResult]:
        """In order; consecutive read-only calls run concurrently, mutating and shell ones alone."""
        prepared = [self._prepare(c) for c in calls]
        results: list[ToolResult] = []
        i = 0
        while i < len(prepared):
            j = i + 1
            while j < len(prepared) and _parallel_ok(prepared[i]) and _parallel_ok(prepared[j]):
                j += 1
            if j - i > 1:
                with ThreadPoolExecutor(max_workers=min(MAX_PARALLEL, j - i)) as pool:
                    results.extend(pool.map(self._run_one, prepared[i:j]))
            else:
                results.append(self._run_one(prepared[i]))
            i = j
        self.upkeep.after_request()  # no call runs now: a restarted server re-indexes while the model thinks
        return results

    def _prepare(self, call: ToolCall) -> _Prepared:
        self._record("tool_call", call_id=call.id, name=call.name, arguments=call.arguments)
        try:
            if call.name not in self._offered:
                self.registry.get(call.name)  # an unknown name raises with the list of known tools
                raise ToolUsageError(f"tool {call.name!r} is not offered in this run; use one of: "
                                     + ", ".join(sorted(self._offered)))
            tool, params = self.registry.validate(call.name, call.arguments)
        except ToolUsageError as exc:
            return _Prepared(call, None, None, ToolResult.fail(str(exc), usage_error=True))
        return _Prepared(call, tool, params, None)

    def _run_one(self, p: _Prepared) -> ToolResult:
        self.display.action(p.call, p.tool)
        started = time.monotonic()
        executed = p.error is None
        if p.error is not None:
            result = p.error
        elif p.tool is not None and p.params is not None:
            if self.confirm and (p.tool.mutating or p.tool.shell) and not self.display.confirm(p.call, p.tool):
                result, executed = ToolResult.fail("the user declined this action; do something else or finish"), False
            else:
                pending = self._advise_before(p.tool, p.params)
                result = self.upkeep.noted(self.registry.execute(self.ctx, p.tool, p.params))
                self._advise_after(p.call, pending, result)
        seconds = time.monotonic() - started
        self.display.result(p.call, result, seconds)
        text = self._bounded(result)
        self._record("tool_result", call_id=p.call.id, name=p.call.name, success=result.success,
                     raw_output=recorded_text(result), error=result.error, executed=executed,
                     duration_s=round(seconds, 3), output_chars=len(text), output_bytes=len(text.encode()),
                     # `files` are the paths a call changed; a reader's `data["files"]` is its answer, not a change
                     files=None if p.tool is None or p.tool.read_only else result.data.get("files"),
                     journal_id=result.data.get("journal_id"),
                     # what a reader of the run (`codeagent view`) shows of an edit: the diff, each site's reason
                     diff=recorded_diff(result), sites=result.data.get("sites"))
        return result

    def _advise_before(self, tool: Tool, params: BaseModel) -> list[Callable[[ToolResult], str | None]]:
        pending = []
        for adviser in self.advisers:
            try:
                after = adviser.before(tool.name, params.model_dump())
            except Exception:  # noqa: BLE001 - advice is optional; the call runs regardless
                continue
            if after is not None:
                pending.append(after)
        return pending

    def _advise_after(self, call: ToolCall, pending: list[Callable[[ToolResult], str | None]],
                      result: ToolResult) -> None:
        said = []
        for after in pending:
            try:
                text = after(result)
            except Exception:  # noqa: BLE001 - see _advise_before
                continue
            if text:
                said.append(text)
        if said:
            self._advice[call.id] = "\n".join(said)

    def _bounded(self, result: ToolResult) -> str:
        return bounded(result_text(result), self.ctx.settings.workspace.max_output_chars)

    def _observe(self, turn: Turn, call: ToolCall, result: ToolResult) -> None:
        turn.observations.append(Observation(call, self._bounded(result), result.success))
        if not result.success:
            return
        data = result.data  # what a tool says for the loop: see ToolResult
        if result.viewed is not None:
            self._note_file(result.viewed[0], turn.step, shown=result.viewed[1])
        for path in data.get("files") or []:
            if isinstance(path, str):
                self._note_file(path, turn.step, shown=False)

    def _note_file(self, path: str, step: int, *, shown: bool) -> None:
        ws = self.ctx.workspace
        try:
            if not ws.exists(path):
                self.context.note_file(path, None, step, shown=False)
                return
            doc = ws.read(path)
        except CodeagentError:
            return
        if len(doc.text) <= MAX_STATE_CHARS:
            self.context.note_file(doc.path, doc.text, step, shown=shown)

    def _record(self, kind: str, **fields: Any) -> None:
        if self.trajectory is not None:
            self.trajectory.event(kind, step=self.steps, **fields)

    @contextlib.contextmanager
    def _sigint_deferred(self) -> Iterator[None]:
        """While tools run, the first Ctrl+C only marks the run to stop after them; a second one is
        a hard stop (writes are atomic, so even then no file is torn)."""
        if threading.current_thread() is not threading.main_thread():
            yield
            return

        def on_sigint(signum: int, frame: object) -> None:
            if self._interrupted:
                raise KeyboardInterrupt
            self._interrupted = True
            self.display.note("Ctrl+C: stopping after the current tool calls (again to stop now)")

        previous = signal.signal(signal.SIGINT, on_sigint)
        try:
            yield
        finally:
            signal.signal(signal.SIGINT, previous)


@dataclass(slots=True)
class _Prepared:
    call: ToolCall
    tool: Tool | None
    params: BaseModel | None
    error: ToolResult | None


def _parallel_ok(p: _Prepared) -> bool:
    return p.error is None and p.tool is not None and p.tool.read_only
