"""`codeagent move TARGET DEST`: move a top-level symbol to another module (the move_symbol tool)."""

from __future__ import annotations

import argparse
from typing import Any

from .arguments import add_common, parse_target
from .code import _emit, _root, _settings, run_tool
from .compare_ops import COMPARE_HELP, emit_compared


def cmd_move(args: argparse.Namespace) -> int:
    root = _root(args.root)
    settings = _settings(root)
    tool_args = {**parse_target(args.target, root), "dest": args.dest, "dry_run": bool(args.dry_run or args.compare),
                 "keep_alias": bool(args.keep_alias), "check_diagnostics": bool(args.check)}
    # the plan needs no language server: the daemon (warm servers) only pays off for --check
    check = bool(args.check)
    result = run_tool(root, settings, "move_symbol", tool_args, use_daemon=check and not args.no_daemon,
                      early_server=check, tool_module="move")
    if args.compare:
        return emit_compared(args, root, settings, result, "move", dest=args.dest)
    return _emit(args, result)


def register(sub: Any) -> None:
    p = sub.add_parser("move", help="move a top-level function/class/variable to another module, fixing every "
                       "import (one undo)")
    p.add_argument("target", help="PATH:LINE:COL on the definition's name, PATH::NAME or a name")
    p.add_argument("dest", help="destination file relative to --root (created when missing)")
    p.add_argument("--dry-run", action="store_true", help="print the diff; write nothing")
    p.add_argument("--compare", action="store_true", help=COMPARE_HELP)
    p.add_argument("--keep-alias", action="store_true", help="leave a re-export at the old place")
    p.add_argument("--check", action="store_true",
                   help="after writing, wait for the language server and report the errors the move introduced")
    add_common(p)
    p.set_defaults(func=cmd_move)
