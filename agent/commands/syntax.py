"""`codeagent index`: build or refresh the workspace's symbol index (the cache find_symbol and
list_symbols use), with a progress bar on a terminal."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

from .context import make_context
from .index_fast import index_key
from .output import EXIT_OK, print_json


def cmd_index(args: argparse.Namespace) -> int:
    key = index_key(Path(os.path.realpath(os.path.expanduser(args.root))))  # before anything is read
    with make_context(args.root) as ctx:
        from ..services import get_index  # the syntax layer loads only for this command

        index = get_index(ctx)
        if not ctx.settings.warnings:  # (the fast path would not repeat them)
            index.walk_key = key
        if args.rebuild:
            index.clear()
        stats = index.refresh(progress=False if args.quiet else None)
        data: dict[str, Any] = {
            "files": stats.files, "parsed": stats.parsed, "removed": stats.removed, "workers": stats.workers,
            "seconds": round(stats.seconds, 3), "cache": str(index.store.path) if index.store.path else None,
            "problem": stats.problem,
        }
    if args.json:
        print_json(data)
    else:
        print(f"indexed {data['files']} source files ({data['parsed']} parsed, {data['removed']} removed, "
              f"{data['workers']} process{'es' if data['workers'] > 1 else ''}) in {data['seconds']:.2f}s")
        if data["problem"]:
            print(f"note: {data['problem']}", file=sys.stderr)
    return EXIT_OK


def register(sub: Any) -> None:
    p = sub.add_parser("index", help="build or refresh the symbol index of the workspace")
    p.add_argument("--root", default=".", help="workspace root (default: the current folder)")
    p.add_argument("--rebuild", action="store_true", help="forget the cached index and parse everything again")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.add_argument("--json", action="store_true", help="print a JSON summary")
    p.set_defaults(func=cmd_index)
