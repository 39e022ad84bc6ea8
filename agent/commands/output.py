"""How every command ends: exit codes, the usage error, printing JSON and a tool's result.
Standard library only: the warm-daemon path (via_daemon.py) runs on nothing else."""

from __future__ import annotations

import json
import os
import sys
from typing import Any

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
            print(text if text is not None else result.get("output", ""))
        else:
            if result.get("output"):
                print(result["output"])
            print(f"codeagent: {result.get('error')}", file=sys.stderr)
        sys.stdout.flush()
    except BrokenPipeError:  # `codeagent refs ... | head`: the reader has all it wanted
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return EXIT_OK if result.get("success") else EXIT_FAILED
