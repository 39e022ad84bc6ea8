"""Printing a long answer: through the user's pager ($PAGER, else `less -FRX`) when stdout is a
terminal and the text is taller than it; straight to stdout otherwise (piped, redirected, short).
Standard library only (the warm-daemon path imports it)."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys


def page_out(text: str) -> None:
    """Print `text` whole (a pager only scrolls it; nothing is ever cut)."""
    command = _pager(text)
    if command is not None:
        try:
            subprocess.run(command, input=text + "\n", text=True, check=False)
            return
        except OSError:
            pass  # no such pager: print it
    print(text)


def _pager(text: str) -> list[str] | None:
    if not sys.stdout.isatty() or not sys.stdin.isatty():
        return None
    rows = shutil.get_terminal_size((80, 24)).lines
    if text.count("\n") + 1 < rows:
        return None
    chosen = os.environ.get("PAGER")
    if chosen is not None:
        words = shlex.split(chosen)
        return words or None  # PAGER="" turns it off
    return ["less", "-FRX"] if shutil.which("less") else None
