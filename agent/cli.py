"""The `codeagent` command. Subcommands of each family live in agent/commands/<family>.py,
each with `register(subparsers)`; this module holds the shared ones: tool, tools, undo."""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from .commands.jsonargs import parse_json_args
from .commands.output import EXIT_FAILED, EXIT_OK, EXIT_USAGE, UsageError, print_json
from .errors import CodeagentError, ToolUsageError

if TYPE_CHECKING:
    from .workspace import Workspace

# Families add their module here: each has `register(subparsers) -> None`.
COMMAND_MODULES: list[str] = ["agent.commands.run_arguments", "agent.commands.code", "agent.commands.refactor",
                               "agent.commands.mcp", "agent.commands.syntax", "agent.commands.trust",
                               "agent.view.command", "agent.commands.navigation", "agent.eval.command"]

__all__ = ["EXIT_FAILED", "EXIT_OK", "EXIT_USAGE", "UsageError", "main", "print_json"]


def _read_args(spec: str) -> str:
    """--args is JSON text, `-` for stdin, or `@FILE` (handy for patches and long contents)."""
    if spec == "-":
        return sys.stdin.read()
    if spec.startswith("@"):
        try:
            with open(spec[1:], encoding="utf-8") as fh:
                return fh.read()
        except OSError as exc:
            raise UsageError(f"--args {spec}: {exc.strerror or exc}") from exc
    return spec


def cmd_tool(args: argparse.Namespace) -> int:
    from .bootstrap import load_all_tools

    registry = load_all_tools()
    raw = parse_json_args(_read_args(args.args))
    try:
        tool, params = registry.validate(args.name, raw)
    except ToolUsageError as exc:
        raise UsageError(str(exc)) from exc
    # --stream: a command's output live on stderr, so stdout stays one JSON object
    on_output = _stream_to_stderr if args.stream else None
    from .commands.context import make_context

    with make_context(args.root, on_output=on_output) as ctx:
        result = registry.execute(ctx, tool, params)
    print_json(result.to_dict())
    return EXIT_OK if result.success else EXIT_FAILED


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
    return EXIT_OK


def cmd_undo(args: argparse.Namespace) -> int:
    from .commands.context import make_context

    with make_context(args.root) as ctx:
        ws = ctx.workspace
        if args.list:
            return _list_journal(ws, as_json=args.json)
        try:
            if args.run:
                entries = ws.undo_run(args.run, force=args.force)
                if not entries:
                    print(f"codeagent: nothing to undo for run {args.run!r}", file=sys.stderr)
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


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="codeagent", description="A coding agent whose tools understand code.")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    p = sub.add_parser("tool", help="run one tool and print its result as JSON")
    p.add_argument("name", help="tool name (see `codeagent tools`)")
    p.add_argument("--args", default="{}", help="the tool's arguments as a JSON object; `-` reads it from stdin, "
                   "`@FILE` from a file")
    p.add_argument("--root", default=".", help="workspace root (default: the current folder)")
    p.add_argument("--stream", action="store_true", help="show a shell tool's output live on stderr")
    p.set_defaults(func=cmd_tool)

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


def main(argv: Sequence[str] | None = None) -> int:
    from .commands.via_daemon import try_fast  # a warm daemon answers before the heavy imports

    fast = try_fast(list(sys.argv[1:] if argv is None else argv))
    if fast is not None:
        return fast
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse exits 2 on usage errors, 0 on --help
        return int(exc.code or 0)
    try:
        return int(args.func(args))
    except UsageError as exc:
        print(f"codeagent: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except CodeagentError as exc:
        print(f"codeagent: {exc}", file=sys.stderr)
        return EXIT_FAILED
    except KeyboardInterrupt:
        print("codeagent: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
