"""`codeagent tool NAME` answered by a warm daemon: a read-only tool only (the daemon refuses the
others, which then run in this process: a shell tool's --stream output and its sandbox belong to
this terminal, and the journal and checks of an edit run where the user's command runs).

The command line is read as via_daemon.py reads the semantic commands (quickparse.py, the
canonical form; argparse reads anything else); the --args JSON as the normal path reads it.
"""

from __future__ import annotations

import sys

from ..daemon.wire import ask_tool
from .arguments import resolved_root
from .output import EXIT_FAILED, EXIT_OK, EXIT_USAGE, UsageError, print_json, writes_encoded
from .quickparse import parse
from .tool_command import ARGUMENTS, parse_args_json

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence


def try_tool(argv: Sequence[str]) -> int | None:
    """The exit code of a read-only tool's call the daemon answered; None when the normal path must run it."""
    args = parse(ARGUMENTS, argv)
    if args is None or args.no_daemon or args.stream:
        return None
    try:
        root = resolved_root(args.root)
        if root is None:
            return None
        call_args = parse_args_json(args.args)
    except (UsageError, OSError, ValueError):
        return None
    if not isinstance(call_args, dict):
        return None
    answered = ask_tool(root, args.name, call_args, read_only=True, head_only=writes_encoded(sys.stdout))
    if answered is None:
        return None
    result, encoded = answered
    if not result.get("success") and (result.get("data") or {}).get("usage_error"):
        print(f"codeagent: error: {result.get('error')}", file=sys.stderr)
        return EXIT_USAGE
    print_json(result, encoded)
    return EXIT_OK if result.get("success") else EXIT_FAILED  # (read-only: nothing to undo)
