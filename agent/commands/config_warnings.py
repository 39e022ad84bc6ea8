"""What loading the settings ignored (project security settings), said once per command on
stderr. Its own module so that a command may say them without importing the tool context
(agent/commands/index_cold.py)."""

from __future__ import annotations

import sys

from ..config import Settings

_shown_warnings: set[str] = set()  # each warning once per command, however often settings are read


def show_config_warnings(settings: Settings) -> None:
    """Print what loading the settings ignored (project security settings) on stderr, once."""
    for warning in settings.warnings:
        if warning not in _shown_warnings:
            _shown_warnings.add(warning)
            print(f"codeagent: {warning}", file=sys.stderr)
