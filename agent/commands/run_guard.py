"""The one boundary where a command's errors become its message and exit code: the full CLI
(agent/cli.py) and `codeagent index`'s early path (index_cold.py) both end here. Not in output.py,
which the warm fast path imports: that path must not load agent.errors' classes."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable

from ..errors import CodeagentError
from .output import EXIT_FAILED, EXIT_OK, EXIT_USAGE, UsageError


def run_command(call: Callable[[], int]) -> int:
    """Run a parsed command and translate what it raised into its message and exit code (the one
    boundary: the full CLI and `codeagent index`'s early path both end here)."""
    try:
        return int(call())
    except UsageError as exc:
        print(f"codeagent: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except CodeagentError as exc:
        print(f"codeagent: {exc}", file=sys.stderr)
        return EXIT_FAILED
    except KeyboardInterrupt:
        print("codeagent: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # `codeagent tools | head`: the reader has all it wanted
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_OK

