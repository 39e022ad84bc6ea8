"""Shared services a ToolContext hands out, built on first use: the workspace's syntax index.
(The language-server sessions are semantic/sessions.py's.)"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .toolcontext import ToolContext

if TYPE_CHECKING:
    from .syntax import SymbolIndex


def get_index(ctx: ToolContext) -> SymbolIndex:
    """The workspace's symbol index, shared by every tool call of the session (imported here:
    a tool module that may need it, agent/tools/syntax.py, is loaded for calls that do not)."""
    from .syntax import SymbolIndex
    from .syntax.workers import no_progress

    return ctx.service(
        "syntax.index",
        lambda: SymbolIndex.for_workspace(ctx.workspace, ctx.settings.syntax,
                                          show_progress=ctx.show_progress or no_progress),
        close=lambda index: index.close(),
    )
