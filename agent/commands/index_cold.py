"""`codeagent index` when the cache must be built or brought up to date (index_fast.py declined):
the whole command, without the rest of the CLI.

The full CLI builds the parser of every command family first (the MCP server, the web view, the
refactor commands: ~0.15 s of imports) and opens a tool context through agent/bootstrap.py,
which imports the language-server side of the edit checks. The index needs none of it: the
settings, the workspace, the symbol index and a progress bar. The time saved is serial (nothing
parses until the worker processes start), and the workers are forked from a smaller process.
Anything this parser does not take as it is (--help, a usage error) goes to the full CLI,
which says it as for any command.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NoReturn

from ..config import ConfigError, load_settings
from ..errors import CodeagentError
from ..progressbar import terminal_progress
from ..syntax import SymbolIndex
from ..workspace import Workspace
from .config_warnings import show_config_warnings
from .index_fast import index_key
from .output import EXIT_OK, UsageError, print_json
from .run_guard import run_command


def add_index_arguments(p: argparse.ArgumentParser) -> None:
    """The arguments of `codeagent index` (the full CLI's subcommand takes the same)."""
    p.add_argument("--root", default=".", help="workspace root (default: the current folder)")
    p.add_argument("--rebuild", action="store_true", help="forget the cached index and parse everything again")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.add_argument("--json", action="store_true", help="print a JSON summary")


class Outcome:
    """Whether this process ran `codeagent index` to its end: then it holds nothing that needs
    the interpreter's orderly shutdown (the index is closed, its worker processes joined, the
    summary printed), and agent/entry.py ends it at once. The shutdown of the settings models
    and the syntax layer only delayed the end of the command."""

    finished = False


class _Declined(Exception):
    """The words are not a plain `index` call: the full CLI handles them."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise _Declined(message)


def parse_index_args(argv: Sequence[str]) -> argparse.Namespace | None:
    """The arguments of `codeagent index ARGV`, or None when the full CLI must parse them."""
    parser = _Parser(add_help=False, exit_on_error=False)
    add_index_arguments(parser)
    try:
        args, extra = parser.parse_known_args(list(argv))
    except (_Declined, argparse.ArgumentError):
        return None
    return None if extra else args


def run_index_command(argv: Sequence[str]) -> int | None:
    """Run `codeagent index ARGV` and return its exit code; None: the full CLI must run it."""
    args = parse_index_args(argv)
    if args is None:
        return None
    return run_command(lambda: index_command(args))


def _open_index(root: str) -> tuple[SymbolIndex, bool]:
    """The workspace's index, and whether its settings had warnings (printed on stderr).
    Errors are said as agent/commands/context.py's `make_context` says them."""
    try:
        settings = load_settings(root)
        show_config_warnings(settings)
        ws = Workspace(root, max_read_bytes=settings.workspace.max_read_bytes)
    except ConfigError as exc:
        raise UsageError(str(exc)) from exc
    except CodeagentError as exc:
        raise UsageError(f"--root {root!r}: {exc}") from exc
    index = SymbolIndex.for_workspace(ws, settings.syntax, show_progress=terminal_progress(settings.syntax.progress))
    return index, bool(settings.warnings)


def index_command(args: argparse.Namespace) -> int:
    """`codeagent index`: build or refresh the workspace's symbol index and say what it did."""
    key = index_key(Path(os.path.realpath(os.path.expanduser(args.root))))  # before anything is read
    index, warned = _open_index(args.root)
    try:
        if not warned:  # (the fast path would not repeat them)
            index.walk_key = key
        if args.rebuild:
            index.clear()
        stats = index.refresh(progress=False if args.quiet else None)
        data: dict[str, Any] = {
            "files": stats.files, "parsed": stats.parsed, "removed": stats.removed, "workers": stats.workers,
            "seconds": round(stats.seconds, 3), "cache": str(index.store.path) if index.store.path else None,
            "problem": stats.problem,
        }
    finally:
        index.close()
    if args.json:
        print_json(data)
    else:
        print(f"indexed {data['files']} source files ({data['parsed']} parsed, {data['removed']} removed, "
              f"{data['workers']} process{'es' if data['workers'] > 1 else ''}) in {data['seconds']:.2f}s")
        if data["problem"]:
            print(f"note: {data['problem']}", file=sys.stderr)
    Outcome.finished = True
    return EXIT_OK
