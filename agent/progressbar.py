"""The terminal's progress bar for long syntax-index refreshes (rich, on stderr).

The syntax layer never draws: it calls a `ShowProgress` it was given (see syntax/workers.py).
Entry points (the CLI, the MCP server, the daemon) pass `terminal_progress(mode)`.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .syntax.workers import ShowProgress

PROGRESS_MIN_FILES = 200  # a smaller refresh ends before a bar would help


def terminal_progress(mode: str) -> ShowProgress:
    """A bar on stderr for refreshes of many files: `mode` is the syntax.progress setting
    (auto: only when stderr is a terminal; always; never). A caller's explicit True/False wins."""

    @contextmanager
    def show(total: int, wanted: bool | None) -> Iterator[Callable[[int], None]]:
        if wanted is None:
            wanted = mode != "never" and total >= PROGRESS_MIN_FILES and (mode == "always" or sys.stderr.isatty())
        if not (wanted and total > 0):
            yield lambda _count: None
            return
        bar = _Bar(total)
        try:
            yield bar.advance
        finally:
            bar.stop()

    return show


class _Bar:
    """Starts at the first `advance`, so that worker processes are forked before its drawing
    thread exists."""

    def __init__(self, total: int):
        self.total = total
        self._bar: Any = None
        self._task: Any = None

    def advance(self, count: int) -> None:
        if self._bar is None:
            from rich.console import Console
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

            self._bar = Progress(TextColumn("indexing symbols"), BarColumn(), MofNCompleteColumn(),
                                 TimeElapsedColumn(), console=Console(stderr=True), transient=True)
            self._bar.start()
            self._task = self._bar.add_task("index", total=self.total)
        self._bar.advance(self._task, count)

    def stop(self) -> None:
        if self._bar is not None:
            self._bar.stop()
