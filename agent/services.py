"""Shared services a ToolContext hands out, built on first use: the workspace's syntax index.
(The language-server sessions are semantic/sessions.py's.)"""

from __future__ import annotations

from .syntax import SymbolIndex
from .syntax.workers import no_progress
from .toolcontext import ToolContext


def get_index(ctx: ToolContext) -> SymbolIndex:
    """The workspace's symbol index, shared by every tool call of the session."""
    return ctx.service(
        "syntax.index",
        lambda: SymbolIndex.for_workspace(ctx.workspace, ctx.settings.syntax,
                                          show_progress=ctx.show_progress or no_progress),
        close=lambda index: index.close(),
    )
