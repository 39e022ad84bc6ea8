"""`codeagent def|refs|rename|diagnostics`, the navigation commands (`type|calls|impls|hierarchy|fix`)
and `codeagent tool NAME` (read-only tools, tool_via_daemon.py) answered by the workspace's warm
daemon, before any heavy import.

With a daemon up, a call is a few milliseconds of work; the CLI's own start-up (the settings
models, the tool registry) took ~0.25 s of it. Here the command is read with the argument tables
alone (quickparse.py: its canonical form; argparse reads anything else) and sent to the daemon
with a fingerprint of the settings' sources (config files, environment) instead of the settings
themselves (daemon/wire.py). The daemon answers when an earlier, full call told it that
fingerprint matches its settings; in every other case — no daemon, another build, a fingerprint
it does not know, `--no-daemon`, `--compare`, anything unusual in the arguments — `try_fast`
returns None and the normal path runs (and reports any error itself).

This module and what it imports load no pathlib, typing, re, argparse, enum or json: a warm
call's whole process is ~60 ms, and those were ~25 ms of it (tests/test_fast_path_imports.py).
"""

from __future__ import annotations

import os
import sys

from ..daemon.wire import ask_tool
from . import navigation_arguments as navigation
from .arguments import ARGUMENTS, COMMON, NO_DAEMON, TOOLS, resolved_root, tool_args
from .output import EXIT_USAGE, UsageError, emit, print_undo_hint, writes_encoded
from .quickparse import Parsed, parse

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    from collections.abc import Sequence
    from typing import Any

def try_fast(argv: Sequence[str]) -> int | None:
    """Run the command through a warm daemon; None when the normal path must handle it."""
    if not argv or os.environ.get("CODEAGENT_LSP_DAEMON") == "never":
        return None
    if argv[0] == "tool":
        from .tool_via_daemon import try_tool  # (json, for the --args, only here)

        return try_tool(argv[1:])
    call = semantic_call(argv)
    if call is None:
        return None
    # --json: the daemon's bytes are printed as they are, so only the result's head is read
    answered = ask_tool(call.root, call.tool, call.tool_args, head_only=call.args.json and writes_encoded(sys.stdout))
    if answered is None:
        return None
    return print_result(call, *answered)


class SemanticCall:  # (not a dataclass or NamedTuple: their imports cost the fast path ~5-10 ms)
    """`codeagent def|refs|rename|diagnostics` or a navigation command, read from its command line."""

    __slots__ = ("args", "root", "tool", "tool_args")

    def __init__(self, args: Parsed | argparse.Namespace, root: str, tool: str, tool_args: dict[str, Any]) -> None:
        self.args = args
        self.root = root  # resolved, as `Path(--root).expanduser().resolve()` has it
        self.tool = tool
        self.tool_args = tool_args


def command_words(command: str, words: Sequence[str]) -> Parsed | None:
    """The command's words read by its own grammar (arguments.py, navigation_arguments.py) plus
    --root, --json and --no-daemon; None when argparse must read them (quickparse.py)."""
    own = ARGUMENTS[command] if command in TOOLS else navigation.ARGUMENTS[command]
    return parse((*own, *COMMON, NO_DAEMON), words, navigation.EXCLUSIVE.get(command, ()))


def semantic_call(argv: Sequence[str]) -> SemanticCall | None:
    """The command's tool call, or None when it is not one the daemon may answer as it stands."""
    if not argv or (argv[0] not in TOOLS and argv[0] not in navigation.TOOLS):
        return None
    command = argv[0]
    try:
        args = command_words(command, argv[1:])
        if args is None or args.no_daemon or getattr(args, "compare", False) or getattr(args, "view", False):
            return None
        root = resolved_root(args.root)
        if root is None:
            return None
        if command in TOOLS:
            name, call_args = TOOLS[command], tool_args(command, args, root)  # type: ignore[arg-type]
        else:
            name, call_args = navigation.tool_args(command, args, root)  # type: ignore[arg-type]
    except (UsageError, OSError, ValueError):
        return None
    return SemanticCall(args, root, name, call_args)


def print_result(call: SemanticCall, result: dict[str, Any], encoded: bytes | None = None) -> int:
    """Print a tool result exactly as the normal path does (`encoded`: the result as the daemon
    sent it, printed as it is with --json); the exit code."""
    if not result.get("success") and (result.get("data") or {}).get("usage_error"):
        print(f"codeagent: error: {result.get('error')}", file=sys.stderr)
        return EXIT_USAGE
    code = emit(call.args.json, result, encoded=encoded)
    print_undo_hint(result, call.args.root)
    return code
