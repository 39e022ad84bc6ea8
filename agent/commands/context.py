"""The tool context of one command: agent/bootstrap.py's `open_context`, with its errors said
as command-line usage errors (exit 2)."""

from __future__ import annotations

from typing import Any

from ..bootstrap import open_context
from ..config import ConfigError
from ..errors import CodeagentError
from ..toolcontext import ToolContext
from .config_warnings import show_config_warnings as show_config_warnings
from .output import UsageError


def make_context(root: str, **kw: Any) -> ToolContext:
    """`kw` goes to open_context (settings, run_id, on_output); pass the command's settings when it
    has loaded them, so that they are loaded once. Settings warnings are printed on stderr."""
    try:
        ctx = open_context(root, **kw)
        show_config_warnings(ctx.settings)
        return ctx
    except ConfigError as exc:
        raise UsageError(str(exc)) from exc
    except CodeagentError as exc:
        raise UsageError(f"--root {root!r}: {exc}") from exc
