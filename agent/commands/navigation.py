"""Navigation commands: `codeagent type|calls|impls|hierarchy PATH:LINE:COL` and
`codeagent fix PATH:LINE:COL [--apply TITLE]`, each one tool of agent/tools/navigation.py run in
the workspace's daemon (servers warm between calls) or in this process (`--no-daemon`). The symbol
edits run through `codeagent tool replace_symbol|insert_before_symbol|insert_after_symbol`."""

from __future__ import annotations

import argparse
from typing import Any

from .arguments import POSITION_ONLY, add_common, file_arg
from .code import _root, _settings, run_tool
from .output import UsageError, emit

TOOLS = {"type": "type_info", "calls": "call_hierarchy", "impls": "find_implementations",
         "hierarchy": "type_hierarchy", "fix": "code_actions"}
HELP = {"type": "the type or signature at a position, its kind, qualified name and doc summary",
        "calls": "callers (or --outgoing: callees) of a function as a tree",
        "impls": "implementations, overrides and subclasses of the symbol at a position",
        "hierarchy": "the class tree above (--up, the default) or below (--down) a class",
        "fix": "the server's quick fixes at a position; --apply TITLE applies one (undo: codeagent undo)"}
POSITION_HELP = "PATH:LINE:COL (1-based, columns in characters)"


def _position(raw: str, root: Any) -> dict[str, Any]:
    m = POSITION_ONLY.match(raw.strip())
    if m is None:
        raise UsageError(f"{raw!r}: expected {POSITION_HELP}")
    line, col = int(m["line"]), int(m["col"])
    if line < 1 or col < 1:
        raise UsageError(f"{raw!r}: LINE and COL are 1-based")
    return {"file_path": file_arg(m["path"], root), "line": line, "column": col}


def tool_args(command: str, args: argparse.Namespace, root: Any) -> tuple[str, dict[str, Any]]:
    """(tool name, its arguments) for a parsed navigation command."""
    out = _position(args.target, root)
    name = TOOLS[command]
    if command == "calls":
        out.update(direction="outgoing" if args.outgoing else "incoming", depth=args.depth)
    elif command == "hierarchy":
        out["direction"] = "subtypes" if args.down else "supertypes"
    elif command == "fix" and args.apply:
        name = "apply_code_action"
        out["title"] = args.apply
    return name, out


def cmd_navigation(args: argparse.Namespace) -> int:
    root = _root(args.root)
    settings = _settings(root)
    name, call_args = tool_args(args.command, args, root)
    result = run_tool(root, settings, name, call_args, use_daemon=not args.no_daemon)
    return emit(bool(args.json), result)


def register(sub: Any) -> None:
    for command, help_text in HELP.items():
        p = sub.add_parser(command, help=help_text)
        p.add_argument("target", help=POSITION_HELP)
        if command == "calls":
            p.add_argument("--outgoing", action="store_true", help="callees instead of callers")
            p.add_argument("--depth", type=int, default=1, choices=range(1, 6), metavar="N",
                           help="levels to follow (1-5, default 1)")
        if command == "hierarchy":
            way = p.add_mutually_exclusive_group()
            way.add_argument("--up", action="store_true", help="supertypes (the default)")
            way.add_argument("--down", action="store_true", help="subtypes")
        if command == "fix":
            p.add_argument("--apply", metavar="TITLE", help="apply the action with this title (a unique prefix works)")
        add_common(p)
        p.set_defaults(func=cmd_navigation)
