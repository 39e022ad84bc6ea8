"""`codeagent mcp`: serve the tools to MCP clients over stdio."""

from __future__ import annotations

import argparse
import os
import signal
import sys
import threading
from typing import TYPE_CHECKING, Any

from ..bootstrap import load_all_tools
from .context import make_context
from .output import EXIT_OK

if TYPE_CHECKING:
    from ..toolcontext import ToolContext

MCP_TOOLSETS = ("text", "semantic", "all")
EXIT_GRACE = 10.0  # seconds cleanup may take before the process ends regardless


def _hard_exit_later(code: int) -> None:
    """End the process after EXIT_GRACE even if a thread (a blocked stdin read) holds it up."""
    timer = threading.Timer(EXIT_GRACE, os._exit, args=(code,))
    timer.daemon = True
    timer.start()


def _on_signal(ctx: ToolContext) -> Any:
    def stop(signum: int, frame: Any) -> None:
        # The SDK reads stdin in a worker thread that a signal cannot unblock, so unwinding the
        # event loop would wait for input that never comes: stop the language servers, then go.
        _hard_exit_later(0)
        ctx.close()
        sys.stderr.flush()
        os._exit(0)

    return stop


def cmd_mcp(args: argparse.Namespace) -> int:
    from ..mcp_server import serve  # the SDK is only imported by the command that needs it

    registry = load_all_tools()
    ctx = make_context(args.root)
    for sig in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
        signal.signal(sig, _on_signal(ctx))
    print(f"codeagent mcp: serving {len(registry.tools(args.tools))} tools for {ctx.workspace.root} on stdio",
          file=sys.stderr)
    serve(ctx, registry, args.tools)  # returns when the client closes stdin; ctx is closed by then
    _hard_exit_later(EXIT_OK)
    return EXIT_OK


def register(sub: Any) -> None:
    p = sub.add_parser("mcp", help="run an MCP server on stdio exposing the tools (for Claude Code, Cursor, ...)")
    p.add_argument("--root", default=".", help="workspace root (default: the current folder)")
    p.add_argument("--tools", default="all", choices=MCP_TOOLSETS,
                   help="which tools to serve: text (files, search, edits), semantic (text + code tools), all")
    p.set_defaults(func=cmd_mcp)
