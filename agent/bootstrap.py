"""What every entry point (the CLI, the MCP server, the daemon, an agent run) does first: load
the settings once, build the ToolContext with its post-edit checks and the terminal's progress
bar, and load the tool modules into the registry.

It sits above the tools and the layers they use, so those layers never reach up: they receive
the context, the checks and the progress bar from here.
"""

from __future__ import annotations

import importlib
import os
from typing import Any

from . import tools
from .config import Settings, SyntaxSettings, load_settings
from .progressbar import terminal_progress
from .registry import REGISTRY, Registry
from .toolcontext import EditCheck, ToolContext
from .tools import TOOL_MODULES
from .workspace import Workspace


def open_context(root: str | os.PathLike[str], *, settings: Settings | None = None, **kw: Any) -> ToolContext:
    """The ToolContext of one session on `root`: `settings` (loaded from `root` when not given),
    the default edit checks installed, index progress drawn on the terminal. `kw` goes to
    ToolContext (run_id, on_output). Raises ConfigError or a workspace error (CodeagentError)."""
    settings = settings or load_settings(root)
    ws = Workspace(root, max_read_bytes=settings.workspace.max_read_bytes)
    kw.setdefault("show_progress", terminal_progress(settings.syntax.progress))
    ctx = ToolContext(ws, settings, **kw)
    install_default_checks(ctx)
    return ctx


def install_default_checks(ctx: ToolContext) -> None:
    """The edit checks every session runs, in order: the syntax guard (may reject), then the
    semantic ones (they only act when a language server already runs). They are made when the
    session first reads ctx.edit_checks (its first edit): their modules (tree-sitter, the
    language-server stack) cost a one-shot read-only call ~0.1 s of imports it never uses."""
    syntax = ctx.settings.syntax
    ctx.defer_checks(lambda: default_checks(syntax))


def default_checks(syntax: SyntaxSettings) -> list[EditCheck]:
    """The syntax guard on these settings, then the language servers' sync and diagnostics delta."""
    from .semantic.diagnostics import DiagnosticsDelta, ServerSync
    from .syntax.guard import SyntaxGuard

    return [SyntaxGuard(syntax), ServerSync(), DiagnosticsDelta()]


def load_all_tools() -> Registry:
    """Import every tool module (importing registers its tools) and return the full registry."""
    return load_tools(*TOOL_MODULES)


def load_tools(*modules: str) -> Registry:
    """Import only these tool modules (names in agent.tools.TOOL_MODULES) and return the registry:
    a one-shot command that needs one tool skips the import of all the others (the language-server
    stack among them when its tool needs no server)."""
    for name in modules:
        if name not in TOOL_MODULES:
            raise ValueError(f"not a tool module: {name!r}")
        importlib.import_module(f"{tools.__name__}.{name}")
    return REGISTRY
