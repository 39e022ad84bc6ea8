"""How every command ends: exit codes, the usage error, printing JSON and a tool's result.
Standard library only: the warm-daemon path (via_daemon.py) runs on nothing else."""

from __future__ import annotations

import json
import os
import shlex
import sys
from typing import Any

from .colour import print_text

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2


class UsageError(Exception):
    """A command-line usage error (exit 2)."""


def print_json(obj: Any) -> None:
    sys.stdout.write(json.dumps(obj, ensure_ascii=False, indent=None, default=str) + "\n")


def emit(as_json: bool, result: dict[str, Any], text: str | None = None) -> int:
    """Print a tool's result (one JSON object with `as_json`, else its output, errors on stderr);
    the exit code."""
    try:
        if as_json:
            print_json(result)
        elif result.get("success"):
            print_text(text if text is not None else result.get("output", ""))
        else:
            if result.get("output"):
                print_text(result["output"])
            print(f"codeagent: {result.get('error')}", file=sys.stderr)
        sys.stdout.flush()
    except BrokenPipeError:  # `codeagent refs ... | head`: the reader has all it wanted
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return EXIT_OK if result.get("success") else EXIT_FAILED


def print_undo_hint(result: dict[str, Any], root: str) -> None:
    """After a call that wrote files (a journal entry), one line on stderr saying how to undo it;
    stderr, so that stdout stays the result (or the one JSON object)."""
    if not result.get("success") or not (result.get("data") or {}).get("journal_id"):
        return
    try:
        here = os.path.realpath(root) == os.path.realpath(os.getcwd())
    except OSError:
        here = False
    where = "" if here else f" --root {shlex.quote(root)}"
    print(f"codeagent: undo this with `codeagent undo{where}`", file=sys.stderr)
