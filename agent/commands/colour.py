"""Colour for what a command prints on a terminal: diff lines and `path:line:col` locations.
Off when stdout is not a terminal, with NO_COLOR set (https://no-color.org) or TERM=dumb; the
text is the same either way, only styled. rich (already a dependency) is imported only then, so
a piped command, such as the warm-daemon path's benchmark, pays nothing for it (nor for the
regular expressions of colour_styles.py)."""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import TextIO


def wanted(stream: TextIO) -> bool:
    if os.environ.get("NO_COLOR") or os.environ.get("TERM") == "dumb":
        return False
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def print_text(text: str, stream: TextIO | None = None) -> None:
    """`print(text)`, coloured when the stream is a terminal that wants colour."""
    out = stream or sys.stdout
    if not wanted(out):
        out.write(text + "\n")  # (print's two writes are two system calls on an unbuffered stdout)
        return
    from rich.console import Console
    from rich.text import Text

    from .colour_styles import line_styles

    styled = Text(no_wrap=True, end="")
    for i, line in enumerate(text.split("\n")):
        if i:
            styled.append("\n")
        for piece, style in line_styles(line):
            styled.append(piece, style=style or None)
    Console(file=out, highlight=False, soft_wrap=True, emoji=False, markup=False).print(styled)
