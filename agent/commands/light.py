"""What the semantic commands need before any heavy import: exit codes, the usage error, target
parsing (`PATH:LINE:COL`, `PATH::NAME_PATH`, `NAME_PATH`) and printing a tool's result. Standard
library only: the warm-daemon fast path (agent/commands/fast.py) runs on nothing else."""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path
from typing import Any

from ..languages import SOURCE_SUFFIXES

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2

_POSITION = re.compile(r"^(?P<path>.+):(?P<line>\d+):(?P<col>\d+)$")
_LINE_ONLY = re.compile(r"^(?P<path>.+):(?P<line>\d+)$")
_IN_FILE = re.compile(r"^(?P<path>.+?)::(?P<symbol>.+)$")
_SOURCE_SUFFIXES = SOURCE_SUFFIXES  # a bare name ending like a source file is a path typed without PATH:
POSITION_ONLY, LINE_ONLY = _POSITION, _LINE_ONLY  # `diagnostics PATH:LINE[:COL]` checks the whole file


class UsageError(Exception):
    """A command-line usage error (exit 2)."""


def print_json(obj: Any) -> None:
    sys.stdout.write(json.dumps(obj, ensure_ascii=False, indent=None, default=str) + "\n")


def file_arg(raw: str, root: Path) -> str:
    """A path as typed: relative to the current folder when it exists there inside the root,
    otherwise relative to the root."""
    given = Path(raw)
    if given.is_absolute():
        return raw
    here = (Path.cwd() / given).resolve()
    if here.exists() and (here == root or root in here.parents):
        return str(here)
    return raw


def parse_target(raw: str, root: Path) -> dict[str, Any]:
    """`PATH:LINE:COL` | `PATH::NAME_PATH` | `NAME_PATH` → the position arguments of a tool."""
    text = raw.strip()
    if m := _POSITION.match(text):
        line, col = int(m["line"]), int(m["col"])
        if line < 1 or col < 1:
            raise UsageError(f"{raw!r}: LINE and COL are 1-based")
        return {"file_path": file_arg(m["path"], root), "line": line, "column": col}
    if m := _IN_FILE.match(text):
        return {"file_path": file_arg(m["path"], root), "symbol": m["symbol"]}
    if _LINE_ONLY.match(text):
        raise UsageError(f"{raw!r}: give the column too, as PATH:LINE:COL (1-based, in characters)")
    if "/" in text or text.endswith(_SOURCE_SUFFIXES) or not text:
        raise UsageError(f"{raw!r}: expected PATH:LINE:COL, PATH::NAME or a symbol name such as Class.method")
    return {"symbol": text}


def emit(as_json: bool, result: dict[str, Any], text: str | None = None) -> int:
    """Print a tool's result (one JSON object with `as_json`, else its output, errors on stderr);
    the exit code."""
    try:
        if as_json:
            print_json(result)
        elif result.get("success"):
            print(text if text is not None else result.get("output", ""))
        else:
            if result.get("output"):
                print(result["output"])
            print(f"codeagent: {result.get('error')}", file=sys.stderr)
        sys.stdout.flush()
    except BrokenPipeError:  # `codeagent refs ... | head`: the reader has all it wanted
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return EXIT_OK if result.get("success") else EXIT_FAILED
