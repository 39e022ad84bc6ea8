"""One agent run in an open tool context: the model client (or a scripted `Model`), the context
window, the limits and the trajectory, from start event to end event. Both `codeagent run`
(agent/commands/run.py) and `codeagent eval` (agent/eval/unit.py) call it; it sits above the loop
and the bootstrap and below every entry point, so neither needs the other."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from .bootstrap import load_all_tools
from .checkpoint import CheckpointError, git_checkpoint, restore_hint
from .config import Settings
from .context import Context, make_counter
from .edithint import CrossFileHint
from .llm import LLMClient, Model
from .loop import Agent, Display, Limits, Outcome
from .prompts import system_prompt, task_message
from .registry import Registry
from .toolcontext import ToolContext
from .tools.memory import read_memory
from .trajectory import Trajectory, new_run_id


def run_agent(ctx: ToolContext, settings: Settings, task: str, *, toolset: str = "all", confirm: bool = False,
              display: Display | None = None, on_token: Callable[[str], None] | None = None,
              registry: Registry | None = None, model: Model | None = None) -> tuple[Outcome, Path]:
    """One agent run in `ctx` (whose run_id names it); returns the outcome and the trajectory's path.
    `model` replaces the endpoint client (a scripted policy, in benchmarks)."""
    registry = registry or load_all_tools()
    tools = registry.tools(toolset, include_agent=True)
    run_id = ctx.run_id or new_run_id()
    ctx.run_id = run_id
    ws = ctx.workspace
    traj = Trajectory(ws, run_id)
    running: list[Agent] = []  # set below; LLM events happen inside agent.query()

    def on_event(kind: str, fields: dict[str, Any]) -> None:
        traj.event(kind, step=running[0].steps + 1 if running else 0, **fields)
        if display is not None and kind == "llm_retry":
            display.note(f"model request failed (attempt {fields.get('attempt')}): {fields.get('error')}; retrying")
        elif display is not None and kind == "format_error":
            display.note(f"the model's reply was not a valid action ({fields.get('error')}); asking again")

    client = LLMClient(settings.llm, on_event=on_event, on_token=on_token) if model is None else None
    model = model or client
    assert model is not None
    checkpoint = None
    if settings.agent.git_checkpoint:
        try:
            checkpoint = git_checkpoint(ws.root, run_id)
            if display:
                display.note(f"git checkpoint {checkpoint}; to go back: {restore_hint(checkpoint)}")
        except CheckpointError as exc:
            if display:
                display.note(f"no git checkpoint: {exc}")
    memory = read_memory(ws)
    context = Context(
        system=lambda protocol: system_prompt(tools, toolset=toolset, protocol=protocol, root=str(ws.root),
                                              memory=memory),
        task=task_message(task), window=settings.llm.context_window, reply_tokens=settings.llm.max_tokens,
        keep_turns=settings.agent.keep_turns, counter=make_counter())
    a = settings.agent
    agent = Agent(model, ctx, registry, tools, context, limits=Limits(a.max_steps, a.max_total_tokens, a.max_seconds),
                  trajectory=traj, display=display, confirm=confirm,
                  advisers=[CrossFileHint(ctx, [t.name for t in tools])])
    llm = settings.llm.model_dump(exclude={"api_key"})
    traj.event("run_start", task=task, toolset=toolset, root=str(ws.root), tools=[t.name for t in tools],
               llm=llm, limits=a.model_dump(), protocol=model.protocol, checkpoint=checkpoint,
               token_counter="tiktoken" if context.counter.exact else "estimate", config_warnings=settings.warnings)
    running.append(agent)
    try:
        outcome = agent.run()
    finally:
        if client is not None:
            client.close()
    changed = sorted({f.path for e in ws.journal.for_run(run_id) for f in e.files})
    traj.event("run_end", status=outcome.status, reason=outcome.message, steps=outcome.steps,
               tokens=outcome.tokens, duration_s=round(outcome.seconds, 3), files_changed=changed,
               checkpoint=checkpoint)
    traj.close()
    return outcome, traj.path
