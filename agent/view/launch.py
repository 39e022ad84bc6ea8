"""What `codeagent view` runs (`cmd_view`), and the page `codeagent rename ... --compare --view`
opens (`view_comparison`): build the tool context, then serve. Imported only when called (it pulls
in uvicorn, Starlette, Jinja2 and the tools); `command.py` registers the command."""

from __future__ import annotations

import argparse
import secrets
from pathlib import Path
from typing import Any

from ..bootstrap import load_all_tools
from ..commands.context import make_context
from ..commands.output import EXIT_OK, UsageError
from .compare import build
from .server import BindError, serve


def cmd_view(args: argparse.Namespace) -> int:
    root = Path(args.root).expanduser()
    if not root.is_dir():
        raise UsageError(f"--root {args.root!r} is not a folder")
    eval_dir = Path(args.eval).expanduser().resolve() if args.eval else None
    if eval_dir is not None and not eval_dir.is_dir():
        raise UsageError(f"--eval {args.eval!r} is not a folder (give the --out folder of `codeagent eval`)")
    with make_context(str(root)) as ctx:
        try:
            serve(ctx, host=args.host, port=args.port, registry_factory=load_all_tools, open_browser=args.open,
                  path="/eval" if eval_dir else "/runs", eval_dir=eval_dir)
        except BindError as exc:
            raise UsageError(str(exc)) from exc
    return EXIT_OK


def view_comparison(root: Path, data: dict[str, Any], *, host: str = "127.0.0.1", port: int = 0,
                    open_browser: bool = True) -> int:
    """Serve the view with this comparison (a dry-run rename_symbol result's data with "compare")
    as a page of its own, and open it."""
    with make_context(str(root)) as ctx:
        cid = secrets.token_hex(4)
        try:
            serve(ctx, host=host, port=port, registry_factory=load_all_tools, open_browser=open_browser,
                  path=f"/compare/{cid}", comparisons={cid: build(ctx, data)})
        except BindError as exc:
            raise UsageError(str(exc)) from exc
    return EXIT_OK
