"""`codeagent def|refs|rename|diagnostics`, the navigation commands (`type|calls|impls|hierarchy|fix`)
and `codeagent tool NAME` (read-only tools) answered by the workspace's warm daemon, before any
heavy import.

With a daemon up, a call is a few milliseconds of work; the CLI's own start-up (the settings
models, the tool registry) took ~0.25 s of it. Here the command is parsed with the standard
library only and sent to the daemon with a fingerprint of the settings' sources (config files,
environment) instead of the settings themselves. The daemon answers when an earlier, full call
told it that fingerprint matches its settings; in every other case — no daemon, another build, a
fingerprint it does not know, `--no-daemon`, `--compare`, anything unusual in the arguments —
`try_fast` returns None and the normal path runs (and reports any error itself).
"""

from __future__ import annotations

import _socket  # the C module: socket.py's import builds its enums (~3 ms of a warm call)
import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NamedTuple

from . import navigation_arguments as navigation
from . import tool_command
from .arguments import ARGUMENTS, COMMON, NO_DAEMON, TOOLS, tool_args
from .output import EXIT_FAILED, EXIT_OK, EXIT_USAGE, UsageError, emit, print_json, print_undo_hint

REQUEST_TIMEOUT = 3600.0  # a warm daemon answers in well under a second; this only bounds a hang


class _Unsized(argparse.HelpFormatter):
    """A width given: argparse makes a formatter per add_argument (to check metavars), and without
    one each imports shutil and asks the terminal its size (~3 ms of a warm call). This parser
    never prints help or usage."""

    def __init__(self, prog: str) -> None:
        super().__init__(prog, width=80)


class _Quiet(argparse.ArgumentParser):
    def __init__(self, prog: str) -> None:
        super().__init__(prog=prog, add_help=False, formatter_class=_Unsized)

    def error(self, message: str) -> Any:  # no usage text here: the normal path prints it
        raise UsageError(message)


def _parser(command: str) -> argparse.ArgumentParser:
    """The command's own grammar (arguments.py, navigation_arguments.py), without help: the
    normal path prints usage."""
    p = _Quiet(f"codeagent {command}")
    own = ARGUMENTS[command] if command in TOOLS else navigation.ARGUMENTS[command]
    for flags, kw in (*own, *COMMON, NO_DAEMON):
        p.add_argument(*flags, **kw)
    return p


def try_fast(argv: Sequence[str]) -> int | None:
    """Run the command through a warm daemon; None when the normal path must handle it."""
    if not argv or os.environ.get("CODEAGENT_LSP_DAEMON") == "never":
        return None
    if argv[0] == "tool":
        return _try_tool(argv[1:])
    call = semantic_call(argv)
    if call is None:
        return None
    reply = _ask(call.root, call.tool, call.tool_args)
    if reply is None:
        return None
    return print_result(call, reply["result"], reply.get("encoded"))


class SemanticCall(NamedTuple):  # (not a dataclass: that import costs the fast path ~10 ms)
    """`codeagent def|refs|rename|diagnostics` or a navigation command, parsed on the standard library alone."""

    args: argparse.Namespace
    root: Path
    tool: str
    tool_args: dict[str, Any]


def semantic_call(argv: Sequence[str]) -> SemanticCall | None:
    """The command's tool call, or None when it is not one the daemon may answer as it stands."""
    if not argv or (argv[0] not in TOOLS and argv[0] not in navigation.TOOLS):
        return None
    command = argv[0]
    try:
        args = _parser(command).parse_args(list(argv[1:]))
        if args.no_daemon or getattr(args, "compare", False) or getattr(args, "view", False):
            return None
        root = Path(args.root).expanduser().resolve()
        if not root.is_dir():
            return None
        if command in TOOLS:
            name, call_args = TOOLS[command], tool_args(command, args, root)
        else:
            name, call_args = navigation.tool_args(command, args, root)
    except (UsageError, SystemExit, OSError, ValueError):
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


def _try_tool(argv: Sequence[str]) -> int | None:
    """`codeagent tool NAME`: a read-only tool only (the daemon refuses the others, which then run
    in this process: a shell tool's --stream output and its sandbox belong to this terminal, and
    the journal and checks of an edit run where the user's command runs)."""
    p = _Quiet("codeagent tool")
    for flags, kw in tool_command.ARGUMENTS:
        p.add_argument(*flags, **kw)
    try:
        args = p.parse_args(list(argv))
        if args.no_daemon or args.stream:
            return None
        root = Path(args.root).expanduser().resolve()
        if not root.is_dir():
            return None
        call_args = tool_command.parse_args_json(args.args)
    except (UsageError, SystemExit, OSError, ValueError):
        return None
    if not isinstance(call_args, dict):
        return None
    reply = _ask(root, args.name, call_args, read_only=True)
    if reply is None:
        return None
    result: dict[str, Any] = reply["result"]
    if not result.get("success") and (result.get("data") or {}).get("usage_error"):
        print(f"codeagent: error: {result.get('error')}", file=sys.stderr)
        return EXIT_USAGE
    print_json(result, reply.get("encoded"))
    return EXIT_OK if result.get("success") else EXIT_FAILED  # (read-only: nothing to undo)


def _ask(root: Path, name: str, arguments: dict[str, Any], *, read_only: bool = False) -> dict[str, Any] | None:
    """The daemon's reply, with "encoded": its result's bytes as sent (protocol.encoded_result);
    None when no daemon answered this call."""
    from ..daemon.protocol import (
        DaemonError,
        daemon_socket,
        decode_message,
        encoded_result,
        inputs_id,
        install_id,
        recv_line,
        send_message,
    )

    try:
        sock_path = daemon_socket(root)
        if sock_path is None:
            return None
        # Which installation asks, not a walk of its code: the daemon sees code changes itself.
        message: dict[str, Any] = {"op": "tool", "build": install_id(), "inputs": inputs_id(root), "name": name, "args": arguments}
        if read_only:
            message["read_only"] = True
        sock = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
        try:
            sock.settimeout(5.0)
            sock.connect(str(sock_path))
            sock.settimeout(REQUEST_TIMEOUT)
            send_message(sock, message)
            line = recv_line(sock)
        finally:
            sock.close()
        reply = decode_message(line)
    except (OSError, DaemonError):
        return None
    if not reply.get("ok") or not isinstance(reply.get("result"), dict):
        return None  # another build, unknown settings, a daemon error: the normal path decides
    return {**reply, "encoded": encoded_result(line, reply)}
