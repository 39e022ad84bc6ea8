"""The tool context of one command: agent/bootstrap.py's `open_context`, with its errors said
as command-line usage errors (exit 2)."""

from __future__ import annotations

import sys
from typing import Any

from ..bootstrap import open_context
from ..config import ConfigError, Settings
from ..errors import CodeagentError
from ..toolcontext import ToolContext
from .output import UsageError

_shown_warnings: set[str] = set()  # each warning once per command, however often settings are read


def show_config_warnings(settings: Settings) -> None:
    """Print what loading the settings ignored (project security settings) on stderr, once."""
    for warning in settings.warnings:
        if warning not in _shown_warnings:
            _shown_warnings.add(warning)
            print(f"codeagent: {warning}", file=sys.stderr)


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
