"""The `codeagent` command. Subcommands of each family live in agent/commands/<family>.py,
each with `register(subparsers)`; this module holds the shared ones: tool, tools, undo."""

from __future__ import annotations

import argparse
import importlib
import json
import os
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from . import __version__
from .commands.output import (
    EXIT_FAILED,
    EXIT_OK,
    EXIT_USAGE,
    UsageError,
    print_json,
    print_undo_hint,
)
from .commands.run_guard import run_command
from .commands.tool_command import ARGUMENTS as TOOL_ARGUMENTS
from .commands.tool_command import STARTS_DAEMON, TOOL_HOMES, parse_args_json
from .commands.tool_end import Outcome as ToolEnd
from .errors import CodeagentError, ToolUsageError

if TYPE_CHECKING:
    from .workspace import Workspace

# Families add their module here: each has `register(subparsers) -> None`.
COMMAND_MODULES: list[str] = ["agent.commands.run_arguments", "agent.commands.code", "agent.commands.refactor",
                               "agent.commands.mcp", "agent.commands.syntax", "agent.commands.trust",
                               "agent.view.command", "agent.commands.navigation", "agent.commands.eval_arguments",
                               "agent.commands.move"]

__all__ = ["EXIT_FAILED", "EXIT_OK", "EXIT_USAGE", "UsageError", "main", "print_json"]


def cmd_tool(args: argparse.Namespace) -> int:
    from .bootstrap import load_all_tools, load_tools

    ToolEnd.read_only = True  # (until the call is known: then it may end without teardown, tool_end.py)
    home = TOOL_HOMES.get(args.name)
    registry = load_tools(home) if home else load_all_tools()
    if args.name not in registry.names():  # (a tool moved to another module: TOOL_HOMES is stale)
        registry = load_all_tools()
    raw = parse_args_json(args.args)
    try:
        tool, params = registry.validate(args.name, raw)
    except ToolUsageError as exc:
        raise UsageError(str(exc)) from exc
    ToolEnd.read_only = tool.read_only
    if tool.read_only and not args.no_daemon:
        result = _tool_in_daemon(args, tool.name, raw)
        if result is not None:
            print_json(result)
            return EXIT_OK if result.get("success") else EXIT_FAILED
    # --stream: a command's output live on stderr, so stdout stays one JSON object
    on_output = _stream_to_stderr if args.stream else None
    from .commands.context import make_context

    with make_context(args.root, on_output=on_output, one_call=True) as ctx:
        result_obj = registry.execute(ctx, tool, params)
    out = result_obj.to_dict()
    print_json(out)
    print_undo_hint(out, args.root)
    return EXIT_OK if result_obj.success else EXIT_FAILED


def _tool_in_daemon(args: argparse.Namespace, name: str, call_args: dict[str, Any]) -> dict[str, Any] | None:
    """A read-only tool in the workspace's daemon: one that runs (this call tells it the settings,
    so the next call takes the fast path), or a new one for the language-server tools of
    STARTS_DAEMON. None: run it here."""
    from pathlib import Path

    from .daemon.protocol import DaemonError, state_dir

    root = Path(args.root).expanduser().resolve()
    try:
        if name not in STARTS_DAEMON and not (state_dir(root) / "sock").exists():
            return None  # (before the imports below: a one-shot search pays none of them)
    except (CodeagentError, OSError):  # the in-process path reports a bad root itself
        return None
    from .commands.code import run_tool
    from .commands.context import show_config_warnings
    from .config import load_settings

    try:
        settings = load_settings(root)
    except (CodeagentError, OSError):  # the in-process path reports a bad root or config itself
        return None
    show_config_warnings(settings)  # what the project file may not set, said as in-process
    try:
        return run_tool(root, settings, name, call_args, use_daemon=True)
    except DaemonError:
        return None


def _stream_to_stderr(text: str) -> None:
    sys.stderr.write(text)
    sys.stderr.flush()


def cmd_tools(args: argparse.Namespace) -> int:
    from .bootstrap import load_all_tools

    registry = load_all_tools()
    tools = registry.tools(args.toolset)
    if args.json:
        print_json([t.openai_schema() for t in tools])
    else:
        for t in tools:
            first = t.description.split(". ")[0]
            flags = "".join([" [mutating]" if t.mutating else "", " [shell]" if t.shell else ""])
            print(f"{t.name:22} {t.toolset:9}{flags} {first}")
            print(f"{'':22} {_parameters_line(t.parameters_schema())}")
    return EXIT_OK


def _parameters_line(schema: dict[str, Any]) -> str:
    """`file_path: string (required), start_line: integer = None`: a tool's parameters at a glance."""
    required = set(schema.get("required", []))
    parts = []
    for name, prop in schema.get("properties", {}).items():
        alternatives = [str(alt.get("type", "?")) for alt in prop.get("anyOf", []) if alt.get("type") != "null"]
        kind = prop.get("type") or "|".join(alternatives) or "any"
        if kind == "array" and isinstance(prop.get("items"), dict):
            kind = f"array of {prop['items'].get('type', 'any')}"
        if name in required:
            parts.append(f"{name}: {kind} (required)")
        else:
            parts.append(f"{name}: {kind} = {json.dumps(prop.get('default'))}")
    return "parameters: " + (", ".join(parts) if parts else "none")


def cmd_completion(args: argparse.Namespace) -> int:
    import shtab

    print(shtab.complete(build_parser(), shell=args.shell), end="")
    return EXIT_OK


def cmd_undo(args: argparse.Namespace) -> int:
    from .commands.context import make_context
    from .trajectory import TrajectoryError, run_path

    with make_context(args.root) as ctx:
        ws = ctx.workspace
        if args.list:
            return _list_journal(ws, as_json=args.json)
        try:
            if args.run:
                entries = ws.undo_run(args.run, force=args.force)
                if not entries:
                    try:
                        known = run_path(ws, args.run).is_file()
                    except TrajectoryError:  # not even the shape of a run id
                        known = False
                    print(f"codeagent: nothing to undo for run {args.run!r}" if known else
                          f"codeagent: no such run {args.run!r} (see `codeagent runs`)", file=sys.stderr)
                    return EXIT_FAILED
            else:
                entries = [ws.undo(force=args.force)]
        finally:
            for note in ws.recovered:
                print(f"codeagent: {note}", file=sys.stderr)
    files = sorted({f.path for entry in entries for f in entry.files})
    if args.json:
        print_json({"success": True, "files": files, "operations": [e.operation for e in entries]})
    else:
        for entry in entries:
            print(f"undid {entry.operation}: {', '.join(f.path for f in entry.files)}")
    return EXIT_OK


def _list_journal(ws: Workspace, *, as_json: bool) -> int:
    """`undo --list`: every entry, newest last; an entry without a valid MAC says so."""
    ws.recover()
    listing = ws.journal.listing()
    rows: list[dict[str, Any]] = []
    for s in listing:
        if s.entry is None:
            rows.append({"id": s.id, "status": "unauthenticated", "problem": s.problem})
        else:
            rows.append({"id": s.id, "status": "ok", "operation": s.entry.operation, "run_id": s.entry.run_id,
                         "files": [f.path for f in s.entry.files]})
    if as_json:
        print_json({"success": True, "entries": rows})
        return EXIT_OK
    for row in rows:
        if row["status"] == "ok":
            run = f" [run {row['run_id']}]" if row["run_id"] else ""
            print(f"{row['id']}{run} {row['operation']}: {len(row['files'])} file(s)")
        else:
            print(f"{row['id']} UNAUTHENTICATED: never replayed ({row['problem']})")
    if not rows:
        print("the edit journal is empty")
    return EXIT_OK


def build_parser(*, only_tool: bool = False) -> argparse.ArgumentParser:
    """The whole grammar; `only_tool`: the `tool` command's alone, which parses, helps and errs
    on `codeagent tool ...` exactly as the whole one does, without importing every command family
    (their modules bring the tool registry and the language-server stack: most of a one-shot
    `codeagent tool search_in_files` call)."""
    parser = argparse.ArgumentParser(prog="codeagent", description="A coding agent whose tools understand code.")
    parser.add_argument("--version", action="version", version=f"codeagent {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    p = sub.add_parser("completion", help="print a shell completion script (bash, zsh or fish)",
                       description="Print the completion script of `codeagent` for a shell, e.g. "
                       "`eval \"$(codeagent completion bash)\"` in ~/.bashrc, "
                       "`codeagent completion fish > ~/.config/fish/completions/codeagent.fish`.")
    p.add_argument("shell", choices=["bash", "zsh", "fish"])
    p.set_defaults(func=cmd_completion)

    p = sub.add_parser("tool", help="run one tool and print its result as JSON")
    for flags, kw in TOOL_ARGUMENTS:
        p.add_argument(*flags, **kw)
    p.set_defaults(func=cmd_tool)
    if only_tool:
        return parser

    p = sub.add_parser("tools", help="list the tools")
    p.add_argument("--json", action="store_true", help="print the OpenAI function-calling schemas")
    from .registry import TOOLSETS

    p.add_argument("--toolset", default="all", choices=sorted(TOOLSETS), help="which toolset")
    p.set_defaults(func=cmd_tools)

    p = sub.add_parser("undo", help="undo the last mutating operation (or a whole run's)")
    p.add_argument("--root", default=".", help="workspace root")
    p.add_argument("--run", help="undo every change of this agent run")
    p.add_argument("--force", action="store_true", help="undo even if the files changed since")
    p.add_argument("--list", action="store_true", help="list the journal's entries (unauthenticated ones say so)")
    p.add_argument("--json", action="store_true", help="print a JSON summary")
    p.set_defaults(func=cmd_undo)

    for name in COMMAND_MODULES:
        importlib.import_module(name).register(sub)
    return parser


def main(argv: Sequence[str] | None = None, *, fast_tried: bool = False) -> int:
    words = list(sys.argv[1:] if argv is None else argv)
    fast = None
    if not fast_tried:  # (agent/entry.py tried them already)
        if words[:1] == ["index"]:  # no daemon answers it: not even the client is imported
            from .commands.index_fast import try_fast_index  # nothing changed: no tree-sitter, no settings

            fast = try_fast_index(words[1:])
        else:
            from .commands.via_daemon import try_fast  # a warm daemon answers before the heavy imports

            fast = try_fast(words)
    if fast is None and words[:1] == ["index"]:  # the cache must be built: without the rest of the CLI
        from .commands.index_cold import run_index_command

        fast = run_index_command(words[1:])
    if fast is None and words[:1] != ["tool"] and os.environ.get("CODEAGENT_LSP_DAEMON") != "never":
        from .commands.cold_start import try_cold  # no daemon yet: fork it before the tools load

        fast = try_cold(words)
    if fast is not None:
        return fast
    parser = build_parser(only_tool=words[:1] == ["tool"])
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse exits 2 on usage errors, 0 on --help
        return int(exc.code or 0)
    return run_command(lambda: args.func(args))


if __name__ == "__main__":
    sys.exit(main())
