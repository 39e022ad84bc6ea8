"""Shell tools: run_command (an argument vector, no shell) and run_shell_command (a bash line).

Both go through the policy (agent/shell/policy.py) and then the OS sandbox (agent/shell/sandbox.py);
see agent/shell/runner.py for limits and output bounding.
"""

from __future__ import annotations

import shlex
from pathlib import Path

from pydantic import BaseModel, Field

from ..errors import ToolFailure
from ..registry import tool
from ..result import ToolResult
from ..shell.policy import Policy, Refusal
from ..shell.runner import CommandResult, run_command
from ..toolcontext import ToolContext

_CWD = "Working folder, relative to the workspace root (or absolute inside it)."
_TIMEOUT = ("Seconds before the command and every process it started are killed "
            "(default: the configured default, 60 s; at most the configured maximum).")


class RunCommandInput(BaseModel):
    argv: list[str] = Field(min_length=1, description="The program and its arguments, e.g. [\"pytest\", \"-q\"]. "
                            "No shell: pipes, globs, redirects and $VARIABLES are passed literally.")
    cwd: str = Field(".", description=_CWD)
    timeout: float | None = Field(None, gt=0, description=_TIMEOUT)


class RunShellCommandInput(BaseModel):
    command: str = Field(min_length=1, description="A bash command line; pipes, &&, ||, redirects and $(...) work.")
    cwd: str = Field(".", description=_CWD)
    timeout: float | None = Field(None, gt=0, description=_TIMEOUT)


def policy(ctx: ToolContext) -> Policy:
    """The session's policy (built once per context)."""
    return ctx.service("shell.policy", lambda: Policy(ctx.settings.shell.policy, root=ctx.workspace.root,
                                                      home=str(Path.home())))


def refused(refusals: list[Refusal]) -> ToolResult:
    lines = "\n".join(f"- {r}" for r in refusals)
    return ToolResult.fail(f"the command was refused by the shell policy; nothing ran:\n{lines}",
                           refused_by=[{"rule": r.rule, "command": r.command, "via": list(r.via),
                                        "reason": r.reason, "detail": r.detail} for r in refusals])


def working_dir(ctx: ToolContext, cwd: str) -> Path:
    real = ctx.workspace.resolve(cwd)
    if not real.is_dir():
        raise ToolFailure(f"cwd {cwd!r} is not a folder inside the workspace")
    return real


def output_budget(ctx: ToolContext) -> int:
    """Characters of command output that fit the session's tool-output budget with our status lines."""
    return min(ctx.settings.shell.max_output_chars, ctx.settings.workspace.max_output_chars) - 600


def timeout_for(ctx: ToolContext, asked: float | None) -> tuple[float, str | None]:
    shell = ctx.settings.shell
    if asked is None:
        return min(shell.default_timeout, shell.max_timeout), None
    if asked > shell.max_timeout:
        return shell.max_timeout, f"timeout lowered from {asked:g} s to the configured maximum {shell.max_timeout:g} s"
    return asked, None


def report(res: CommandResult, *, display: str, cwd: str, timeout: float, notes: list[str]) -> ToolResult:
    """The ToolResult of a finished command: the output, then one status line."""
    notes = [*notes, *res.notes]
    data = {"command": display, "cwd": cwd, "exit_code": res.exit_code, "duration_s": round(res.duration, 3),
            "timed_out": res.timed_out, "cancelled": res.cancelled, "truncated": res.truncated,
            "output_bytes": res.total_bytes, "output_file": res.log_path, "sandbox": res.sandbox or res.backend,
            "limits": {"memory": res.memory_cap}}
    if res.setup_error is not None:
        raise ToolFailure(f"the {res.backend} sandbox could not start the command: {res.setup_error.strip()}")
    if res.cancelled:
        status = "[cancelled by the caller: the command and every process it started were killed]"
    elif res.timed_out:
        status = (f"[timed out after {timeout:g} s: the command and every process it started were killed; "
                  "pass a larger timeout if it needs longer]")
    else:
        status = f"[exit code {res.exit_code} after {res.duration:.2f} s]"
    body = res.output
    text = "\n".join(part for part in (body.rstrip("\n"), *(f"[{n}]" for n in notes), status) if part)
    if res.exit_code == 0 and not res.timed_out:
        return ToolResult(True, text, None, data)
    error = ("cancelled" if res.cancelled else "timed out" if res.timed_out
             else f"the command exited with code {res.exit_code}")
    return ToolResult(False, text, error, data)


@tool(name="run_command", model=RunCommandInput, shell=True)
def run_command_tool(ctx: ToolContext, args: RunCommandInput) -> ToolResult:
    """Run a program with arguments (no shell) in the sandbox: the workspace is writable, the rest of
    the system read-only, no network. Returns stdout and stderr merged in order (long output: head and
    tail, the full text saved to a file), the exit code and the duration."""
    cwd = working_dir(ctx, args.cwd)
    shell = ctx.settings.shell
    if shell.policy.enabled:
        refusals = policy(ctx).check_argv(args.argv, cwd)
        if refusals:
            return refused(refusals)
    timeout, note = timeout_for(ctx, args.timeout)
    res = run_command(shell, ctx.workspace, list(args.argv), cwd=cwd, timeout=timeout, on_output=ctx.on_output,
                      max_chars=output_budget(ctx), cancel=ctx.cancel)
    return report(res, display=shlex.join(args.argv), cwd=ctx.workspace.rel(cwd), timeout=timeout,
                  notes=[note] if note else [])


@tool(name="run_shell_command", model=RunShellCommandInput, shell=True)
def run_shell_command(ctx: ToolContext, args: RunShellCommandInput) -> ToolResult:
    """Run a bash command line in the sandbox (pipes, &&, redirects allowed): the workspace is
    writable, the rest of the system read-only, no network, nothing survives the call. Returns stdout
    and stderr merged in order (long output: head and tail, the full text saved to a file), the exit
    code and the duration."""
    cwd = working_dir(ctx, args.cwd)
    shell = ctx.settings.shell
    if shell.policy.enabled:
        refusals = policy(ctx).check_shell(args.command, cwd)
        if refusals:
            return refused(refusals)
    timeout, note = timeout_for(ctx, args.timeout)
    res = run_command(shell, ctx.workspace, ["bash", "-c", args.command], cwd=cwd, timeout=timeout,
                      on_output=ctx.on_output, max_chars=output_budget(ctx), cancel=ctx.cancel)
    return report(res, display=args.command, cwd=ctx.workspace.rel(cwd), timeout=timeout,
                  notes=[note] if note else [])
