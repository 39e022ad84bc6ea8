"""`codeagent run "TASK"`, `codeagent runs`, `codeagent replay ID`."""

from __future__ import annotations

import argparse
import datetime as dt
import sys
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.prompt import Confirm

from ..bootstrap import load_all_tools, open_context
from ..config import ConfigError, LLMSettings, load_settings
from ..errors import CodeagentError
from ..llm import ToolCall
from ..loop import Outcome
from ..registry import Tool
from ..result import ToolResult
from ..runner import run_agent
from ..trajectory import TrajectoryError, list_runs, new_run_id, read_events, replay
from .context import make_context, show_config_warnings
from .output import EXIT_FAILED, EXIT_OK, EXIT_USAGE, UsageError, print_json

EXIT_INTERRUPTED = 130
SHOWN_LINES = 12


class RichDisplay:
    """Each action before it runs and its result after; with --confirm, asks before risky ones."""

    def __init__(self, console: Console):
        self.console = console
        self._streamed = False

    def token(self, text: str) -> None:
        self._streamed = True
        self.console.print(escape(text), end="", style="italic", highlight=False)

    def reply(self, text: str) -> None:
        if self._streamed:
            self._streamed = False
            self.console.print()
            return
        shown = text if len(text) <= 2000 else text[:2000] + " …"
        self.console.print(escape(shown), style="italic", highlight=False)

    def action(self, call: ToolCall, tool: Tool | None) -> None:
        tag = "" if tool is None else " [shell]" if tool.shell else " [mutating]" if tool.mutating else ""
        args = call.arguments if len(call.arguments) <= 300 else call.arguments[:300] + " …"
        self.console.print(f"[bold cyan]▶ {escape(call.name)}[/]{escape(tag)} {escape(args)}", highlight=False)

    def result(self, call: ToolCall, result: ToolResult, seconds: float) -> None:
        lines = (result.output if result.success else f"{result.error}\n{result.output}").strip().splitlines()
        mark = "[green]✓[/]" if result.success else "[red]✗[/]"
        self.console.print(f"{mark} {escape(call.name)} ({seconds:.2f} s, {len(lines)} lines)", highlight=False)
        for line in lines[:SHOWN_LINES]:
            self.console.print("  " + escape(line[:200]), style="dim", highlight=False)
        if len(lines) > SHOWN_LINES:
            self.console.print(f"  … {len(lines) - SHOWN_LINES} more lines", style="dim")

    def confirm(self, call: ToolCall, tool: Tool) -> bool:
        kind = "run a command" if tool.shell else "change files"
        try:
            return Confirm.ask(f"Allow {call.name} to {kind}?", console=self.console, default=False)
        except (EOFError, KeyboardInterrupt):
            self.console.print()
            return False

    def note(self, text: str) -> None:
        self.console.print(f"[yellow]! {escape(text)}[/]", highlight=False)



def describe_missing_endpoint() -> str:
    """What `codeagent run` prints when no endpoint is configured."""
    return """no model endpoint is configured. codeagent talks to any OpenAI-compatible server; set one with
environment variables (or `[llm]` in ~/.config/codeagent/config.toml):

  OpenAI      export OPENAI_API_KEY=sk-...                         (model defaults to gpt-4o-mini)
  DeepSeek    export LLM_BASE_URL=https://api.deepseek.com/v1 LLM_API_KEY=sk-... LLM_MODEL=deepseek-chat
  vLLM        vllm serve Qwen/Qwen2.5-Coder-7B-Instruct --enable-auto-tool-choice --tool-call-parser hermes
              export LLM_BASE_URL=http://localhost:8000/v1 LLM_MODEL=Qwen/Qwen2.5-Coder-7B-Instruct
  llama.cpp   llama-server -m model.gguf --jinja --port 8080
              export LLM_BASE_URL=http://localhost:8080/v1 LLM_MODEL=local
  Ollama      ollama serve; ollama pull qwen2.5-coder
              export LLM_BASE_URL=http://localhost:11434/v1 LLM_MODEL=qwen2.5-coder

or in ~/.config/codeagent/config.toml (the endpoint and key are yours to set; a project's
.codeagent.toml may choose the model and protocol, not where your key goes):

  [llm]
  base_url = "http://localhost:8000/v1"
  model = "Qwen/Qwen2.5-Coder-7B-Instruct"
  # api_key = "..."          (local servers need none)
  # protocol = "json"        (for models without tool calling)

A model name can also be given with --model. Local servers need no API key."""


def endpoint_problem(settings: LLMSettings) -> str | None:
    """None when the settings name a usable endpoint, else what is missing."""
    if not settings.base_url and not settings.api_key:
        return describe_missing_endpoint()
    if settings.base_url and not settings.model:
        return (f"no model name for the endpoint {settings.base_url}: pass --model NAME, or set LLM_MODEL, "
                "or `model = \"...\"` under [llm] in .codeagent.toml")
    return None


def _overrides(args: argparse.Namespace) -> dict[str, Any]:
    llm = {k: v for k, v in {"model": args.model, "base_url": args.base_url, "protocol": args.protocol,
                             "stream": True if args.stream else None}.items() if v is not None}
    agent = {k: v for k, v in {"max_steps": args.max_steps,
                               "git_checkpoint": True if args.checkpoint else None}.items() if v is not None}
    return {k: v for k, v in {"llm": llm, "agent": agent}.items() if v}


def cmd_run(args: argparse.Namespace) -> int:
    task = sys.stdin.read() if args.task == "-" else args.task
    if not task.strip():
        raise UsageError("the task is empty")
    try:
        settings = load_settings(args.root, overrides=_overrides(args))
    except ConfigError as exc:
        raise UsageError(str(exc)) from exc
    show_config_warnings(settings)
    problem = endpoint_problem(settings.llm)
    if problem:
        print(f"codeagent: {problem}", file=sys.stderr)
        return EXIT_USAGE
    console = Console(stderr=args.json, highlight=False)
    run_id = new_run_id()
    try:
        ctx = open_context(args.root, settings=settings, run_id=run_id)
    except CodeagentError as exc:
        raise UsageError(f"--root {args.root!r}: {exc}") from exc
    with ctx:
        display = RichDisplay(console)
        outcome, traj_path = run_agent(ctx, settings, task, toolset=args.tools, confirm=args.confirm,
                                       display=display, on_token=display.token)
    _report(console, outcome, run_id, traj_path, as_json=args.json)
    if outcome.ok:
        return EXIT_OK
    return EXIT_INTERRUPTED if outcome.status == "interrupted" else EXIT_FAILED


def _report(console: Console, outcome: Outcome, run_id: str, traj: Path, *, as_json: bool) -> None:
    if as_json:
        print_json({"run_id": run_id, "status": outcome.status, "message": outcome.message, "steps": outcome.steps,
                    "tokens": outcome.tokens, "seconds": round(outcome.seconds, 2), "trajectory": str(traj)})
        return
    style = "green" if outcome.ok else "red"
    console.print(f"\n[bold {style}]{outcome.status}[/] after {outcome.steps} steps, {outcome.tokens} tokens, "
                  f"{outcome.seconds:.1f} s", highlight=False)
    console.print(escape(outcome.message), highlight=False)
    console.print(f"[dim]run {run_id}: trajectory {traj}; undo its changes with "
                  f"`codeagent undo --run {run_id}`[/]", highlight=False)


def cmd_runs(args: argparse.Namespace) -> int:
    with make_context(args.root) as ctx:
        runs = list_runs(ctx.workspace)
    if args.json:
        print_json([{"run_id": r.run_id, "started": r.started, "task": r.task, "status": r.status,
                     "steps": r.steps, "tool_calls": r.tool_calls, "tokens": r.tokens, "reason": r.reason}
                    for r in runs])
        return EXIT_OK
    if not runs:
        print("no runs recorded yet")
    for r in runs:
        when = dt.datetime.fromtimestamp(r.started).strftime("%Y-%m-%d %H:%M") if r.started else "?"
        task = " ".join(r.task.split())
        print(f"{r.run_id:24} {when}  {r.status:11} {r.steps:3} steps {r.tool_calls:3} calls  "
              f"{task[:60]}{'…' if len(task) > 60 else ''}")
    return EXIT_OK


def cmd_replay(args: argparse.Namespace) -> int:
    replay_id = f"replay-{new_run_id()}"
    with make_context(args.root, run_id=replay_id) as ctx:
        try:
            events = read_events(ctx.workspace, args.run_id)
        except TrajectoryError as exc:
            raise UsageError(str(exc)) from exc
        report = replay(ctx, load_all_tools(), events, run_id=args.run_id)
    if args.json:
        print_json({"run_id": args.run_id, "replay_run_id": replay_id, "calls": report.calls,
                    "skipped": report.skipped, "divergences": [
                        {"index": d.index, "step": d.step, "tool": d.tool, "arguments": d.arguments,
                         "expected": d.expected, "got": d.got} for d in report.divergences]})
    else:
        for d in report.divergences:
            print("DIVERGED " + d.describe())
        verdict = "no divergence" if report.ok else f"{len(report.divergences)} divergent calls"
        print(f"replayed {report.calls} tool calls of run {args.run_id} ({report.skipped} skipped): {verdict}")
        print(f"undo the replay's changes with `codeagent undo --run {replay_id}`")
    return EXIT_OK if report.ok else EXIT_FAILED
