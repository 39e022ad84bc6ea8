"""Registration of `codeagent view`. The command lives in `launch.py`, imported only when it is
called: the web stack (uvicorn, Starlette, Jinja2, Pygments) would slow every other command."""

from __future__ import annotations

import argparse
import importlib
from typing import Any


def _cmd_view(args: argparse.Namespace) -> int:
    return int(importlib.import_module("agent.view.launch").cmd_view(args))


def register(sub: Any) -> None:
    p = sub.add_parser("view", help="a local web view of runs, edits and rename comparisons")
    p.add_argument("--root", default=".", help="workspace root (default: the current folder)")
    p.add_argument("--host", default="127.0.0.1",
                   help="address to listen on (default 127.0.0.1; 0.0.0.0 exposes it to the network)")
    p.add_argument("--port", type=int, default=0, help="port (default: any free port; the URL says which)")
    p.add_argument("--open", action="store_true", help="open the URL in the default browser")
    p.add_argument("--eval", metavar="DIR", help="also show the report of `codeagent eval --out DIR` (opens on it)")
    p.set_defaults(func=_cmd_view)
