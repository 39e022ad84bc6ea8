"""Refactoring commands beyond rename: `codeagent signature TARGET "NEW_PARAMS" [--value NAME=EXPR ...]`
and `codeagent delete TARGET`. Exit 0 done, 1 refused or failed (nothing changed), 2 usage error."""

from __future__ import annotations

import argparse
from typing import Any

from .arguments import add_common, parse_target
from .code import _emit, _root, _settings, run_tool
from .compare_ops import COMPARE_HELP, emit_compared
from .output import UsageError


def _values(raw: list[str] | None) -> dict[str, str]:
    out: dict[str, str] = {}
    for item in raw or []:
        name, sep, expr = item.partition("=")
        if not sep or not name.strip().isidentifier() or not expr.strip():
            raise UsageError(f"--value takes NAME=EXPR, e.g. --value fill='\"\"': {item!r}")
        out[name.strip()] = expr.strip()
    return out


def cmd_signature(args: argparse.Namespace) -> int:
    root = _root(args.root)
    settings = _settings(root)
    values = _values(args.value)
    tool_args = {**parse_target(args.target, root), "new_params": args.new_params, "values": values,
                 "dry_run": bool(args.dry_run or args.compare), "check_diagnostics": args.check}
    result = run_tool(root, settings, "change_signature", tool_args, use_daemon=not args.no_daemon,
                      tool_module="refactor")
    if args.compare:
        return emit_compared(args, root, settings, result, "signature", new_params=args.new_params, values=values)
    return _emit(args, result)


def cmd_delete(args: argparse.Namespace) -> int:
    root = _root(args.root)
    settings = _settings(root)
    tool_args = {**parse_target(args.target, root), "dry_run": bool(args.dry_run or args.compare),
                 "check_diagnostics": args.check}
    result = run_tool(root, settings, "safe_delete", tool_args, use_daemon=not args.no_daemon,
                      tool_module="refactor")
    if args.compare:
        return emit_compared(args, root, settings, result, "delete")
    return _emit(args, result)


def register(sub: Any) -> None:
    target_help = "PATH:LINE:COL on the name at its definition (1-based, columns in characters), or a name path"
    check_help = "after writing, wait for the language server to report the errors the change introduced"

    p = sub.add_parser("signature", help="change a function's parameters and every call site (one undo)")
    p.add_argument("target", help=target_help)
    p.add_argument("new_params", help="the new parameter list, parenthesized: \"(self, path, *, encoding='utf-8')\"")
    p.add_argument("--value", action="append", metavar="NAME=EXPR",
                   help="what every call site passes for a new parameter without a default (repeatable)")
    p.add_argument("--dry-run", action="store_true", help="print the diff; write nothing")
    p.add_argument("--compare", action="store_true", help=COMPARE_HELP)
    p.add_argument("--check", action="store_true", help=check_help)
    add_common(p)
    p.set_defaults(func=cmd_signature)

    p = sub.add_parser("delete", help="delete a definition nothing references (else list the references)")
    p.add_argument("target", help=target_help)
    p.add_argument("--dry-run", action="store_true", help="print the diff; write nothing")
    p.add_argument("--compare", action="store_true", help=COMPARE_HELP)
    p.add_argument("--check", action="store_true", help=check_help)
    add_common(p)
    p.set_defaults(func=cmd_delete)
