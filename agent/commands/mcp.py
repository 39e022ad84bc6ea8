"""`codeagent mcp`: serve the tools to MCP clients over stdio."""

from __future__ import annotations

import argparse
import signal
import sys
from typing import Any

from ..cli import EXIT_OK, make_context
from ..registry import load_all_tools

MCP_TOOLSETS = ("text", "semantic", "all")


def _stop_on_sigterm(signum: int, frame: Any) -> None:
    # unwinds the server like a closed stdin, so the language servers are stopped on the way out
    raise SystemExit(0)


def cmd_mcp(args: argparse.Namespace) -> int:
    from ..mcp_server import serve  # the SDK is only imported by the command that needs it

    registry = load_all_tools()
    ctx = make_context(args.root)
    signal.signal(signal.SIGTERM, _stop_on_sigterm)
    print(f"codeagent mcp: serving {len(registry.tools(args.tools))} tools for {ctx.workspace.root} on stdio",
          file=sys.stderr)
    serve(ctx, registry, args.tools)
    return EXIT_OK


def register(sub: Any) -> None:
    p = sub.add_parser("mcp", help="run an MCP server on stdio exposing the tools (for Claude Code, Cursor, ...)")
    p.add_argument("--root", default=".", help="workspace root (default: the current folder)")
    p.add_argument("--tools", default="all", choices=MCP_TOOLSETS,
                   help="which tools to serve: text (files, search, edits), semantic (text + code tools), all")
    p.set_defaults(func=cmd_mcp)
