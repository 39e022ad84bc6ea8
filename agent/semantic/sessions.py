"""The language servers of a tool session: one shared `SessionPool` per ToolContext (a ctx service,
stopped when the context closes), configured from `settings.lsp`.

Use `session_for(ctx, language)` to get a server (started lazily by the bridge), and
`running_sessions(ctx)` for the ones already up (checks that must never start a server).
"""

from __future__ import annotations

import dataclasses
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from lsp_bridge.errors import BridgeError, ServerCrashed, ServerNotInstalled, ServerStartError
from lsp_bridge.servers import get_spec

from ..languages import language_ids
from ..textcodec import decode_text
from ..toolcontext import ToolContext
from ..walk import SERVER_SKIPPED

if TYPE_CHECKING:  # the protocol layer loads with the first session (a syntactic command never needs it)
    from lsp_bridge import LspSession, SessionPool

LSP_SERVICE = "lsp"
_announced: set[tuple[int, str]] = set()  # (pool, language) whose fallback server was named
# Why a server cannot be used, so a syntactic fallback applies (any other bridge error is an error).
UNAVAILABLE = (ServerNotInstalled, ServerStartError, ServerCrashed)
_CUSTOM_SERVICE = "lsp.custom"  # sessions started with a configured command line


def _settings_servers(ctx: ToolContext) -> dict[str, str]:
    lsp = ctx.settings.lsp
    return {"python": lsp.python_server, "typescript": lsp.typescript_server}


def _make_pool(ctx: ToolContext) -> SessionPool:
    from lsp_bridge.pool import SessionPool

    lsp = ctx.settings.lsp
    try:
        return SessionPool(
            servers=_settings_servers(ctx),
            cache_dir=Path(lsp.install_dir).expanduser() if lsp.install_dir else None,
            auto_install=lsp.auto_install,
            request_timeout=lsp.request_timeout,
            ready_timeout=lsp.ready_timeout,
            watch_files=lsp.watch_files,
            language_ids={language: language_ids(language) for language in ("python", "typescript")},
            skip_dirs=SERVER_SKIPPED,
            decode=decode_text,  # the server sees each file's text as the workspace decodes it
            fallback=lsp.server_fallback,
        )
    except BridgeError as exc:  # an unknown server name in the configuration (the registry reports it)
        exc.add_note("lsp settings")
        raise


def get_pool(ctx: ToolContext) -> SessionPool:
    """The context's shared pool (created on first use, closed with the context)."""
    return ctx.service(LSP_SERVICE, lambda: _make_pool(ctx), close=lambda pool: pool.close_all())


def _custom_sessions(ctx: ToolContext) -> dict[str, LspSession]:
    def stop_all(sessions: dict[str, LspSession]) -> None:
        for session in sessions.values():
            session.stop()

    return ctx.service(_CUSTOM_SERVICE, dict, close=stop_all)


def session_for(ctx: ToolContext, language: str) -> LspSession:
    """The server session for `language` ("python" or "typescript") in this workspace.
    Nothing starts until the first request. Raises BridgeError subclasses."""
    lsp = ctx.settings.lsp
    command = lsp.server_commands.get(language)
    if command:
        sessions = _custom_sessions(ctx)
        if language not in sessions:
            from lsp_bridge.session import LspSession

            spec = dataclasses.replace(get_spec(_settings_servers(ctx)[language]), language_ids=language_ids(language))
            sessions[language] = LspSession(
                ctx.workspace.root, spec, command=command, request_timeout=lsp.request_timeout,
                ready_timeout=lsp.ready_timeout, watch_files=lsp.watch_files, skip_dirs=SERVER_SKIPPED,
                decode=decode_text)
        return sessions[language]
    pool = get_pool(ctx)
    session = pool.get(ctx.workspace.root, language)
    fallback = pool.fallback(ctx.workspace.root, language)
    if fallback is not None and (id(pool), language) not in _announced:
        _announced.add((id(pool), language))  # said once per pool (one per session), on stderr
        print(f"codeagent: {fallback.note()}", file=sys.stderr)
    return session


def fallback_note(ctx: ToolContext, language: str) -> str | None:
    """Why this workspace's `language` is served by a fallback server (None when it is not)."""
    pool = get_pool(ctx)
    fallback = pool.fallback(ctx.workspace.root, language)
    return fallback.note() if fallback else None


def running_sessions(ctx: ToolContext) -> list[LspSession]:
    """Sessions whose server process is up now; never starts anything."""
    found: list[LspSession] = []
    if ctx.has_service(LSP_SERVICE):
        found.extend(get_pool(ctx).sessions())
    if ctx.has_service(_CUSTOM_SERVICE):
        found.extend(_custom_sessions(ctx).values())
    return [s for s in found if s.pid is not None]


def notify_changed(ctx: ToolContext, paths: Iterable[Path]) -> None:
    """Tell every running server that these files changed on disk (created, edited or deleted)."""
    targets = list(paths)
    if not targets:
        return
    for session in running_sessions(ctx):
        try:
            session.files_changed(targets)
        except BridgeError:
            # A server that died is restarted by its next request, which re-reads the disk anyway.
            continue


def server_unavailable(exc: BridgeError) -> str:
    """A one-line reason for the fallback notes."""
    kind = {ServerNotInstalled: "not installed", ServerStartError: "failed to start",
            ServerCrashed: "crashed"}.get(type(exc), "unavailable")
    return f"language server {kind}: {exc}"
