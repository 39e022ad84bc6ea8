"""Navigation commands: `codeagent type|calls|impls|hierarchy PATH:LINE:COL` and
`codeagent fix PATH:LINE:COL [--apply TITLE]`, each one tool of agent/tools/navigation.py run in
the workspace's daemon (servers warm between calls; a warm one answers in via_daemon.py before
this module loads) or in this process (`--no-daemon`). The grammar is navigation_arguments.py.
The symbol edits run through `codeagent tool replace_symbol|insert_before_symbol|insert_after_symbol`."""

from __future__ import annotations

import argparse
from typing import Any

from .arguments import add_common
from .code import _root, _settings, run_tool
from .navigation_arguments import ARGUMENTS, EXCLUSIVE, HELP, tool_args
from .output import emit, print_undo_hint


def cmd_navigation(args: argparse.Namespace) -> int:
    root = _root(args.root)
    settings = _settings(root)
    name, call_args = tool_args(args.command, args, root)
    result = run_tool(root, settings, name, call_args, use_daemon=not args.no_daemon)
    code = emit(bool(args.json), result)
    print_undo_hint(result, args.root)  # `fix --apply` wrote a journaled edit
    return code


def register(sub: Any) -> None:
    for command, help_text in HELP.items():
        p = sub.add_parser(command, help=help_text)
        exclusive = EXCLUSIVE.get(command, ())
        group = p.add_mutually_exclusive_group() if exclusive else None
        for flags, kw in ARGUMENTS[command]:
            (group if group is not None and flags[0] in exclusive else p).add_argument(*flags, **kw)
        add_common(p)
        p.set_defaults(func=cmd_navigation)
