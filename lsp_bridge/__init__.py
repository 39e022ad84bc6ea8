"""A language-server client: processes, protocol, positions, workspace edits.

This package never imports `agent`; the agent's semantic tools sit on top of it.

Positions are 0-based lines and 0-based columns counted in code points (Python str indices) of the
file's text as read from disk (UTF-8, BOM dropped, "\\n" line endings); `positions.py` converts to
the server's encoding. Typical use::

    pool = SessionPool()
    session = pool.get(root, "python")          # "python" | "typescript" (.ts/.tsx/.js/.jsx)
    session.ready(timeout=120)                  # optional: requests wait for readiness themselves
    refs = session.references(path, Position(3, 4))
    edits = session.rename(path, Position(3, 4), "new_name")   # list[FileEdits]; nothing written
    new_text = apply_changes(old_text, edits[0].changes)
    session.files_changed([path])               # after writing files
    pool.close_all()

Additions to the contract (old names unchanged): `LspSession.type_definition(path, pos)`,
`.pid`, `.restarts`, `.ready_after`, `.hidden_files`, `.encoding`; `RequestTimeout.stuck`; errors `ProtocolViolation` (a ServerCrashed), `StaleFile` (an InvalidEdit) and
`RequestFailed`; `SessionPool(servers=..., cache_dir=..., auto_install=..., settings=...,
request_timeout=..., ready_timeout=..., start_timeout=...)`; `edits.validate_changes`.
"""

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from lsp_bridge.edits import apply_changes, validate_changes
    from lsp_bridge.errors import (
        BridgeError,
        InvalidEdit,
        NotReady,
        ProtocolViolation,
        RenameRefused,
        RequestFailed,
        RequestTimeout,
        ServerCrashed,
        ServerNotInstalled,
        ServerStartError,
        StaleFile,
    )
    from lsp_bridge.pool import SessionPool
    from lsp_bridge.servers import DEFAULT_SERVERS, SERVERS, ServerSpec, default_cache_dir, install_servers
    from lsp_bridge.session import LspSession
    from lsp_bridge.types import Diagnostic, FileEdits, FileLocation, Position, Range, TextChange

# Loaded on first use: the protocol types take ~0.3 s to import, and a command that starts a server
# early (lsp_bridge.processes) or only resolves server commands must not pay for them first.
_HOMES = {
    "apply_changes": "edits", "validate_changes": "edits", "SessionPool": "pool", "LspSession": "session",
    "DEFAULT_SERVERS": "servers", "SERVERS": "servers", "ServerSpec": "servers", "default_cache_dir": "servers",
    "install_servers": "servers", "Diagnostic": "types", "FileEdits": "types", "FileLocation": "types",
    "Position": "types", "Range": "types", "TextChange": "types",
}


def __getattr__(name: str) -> Any:
    import importlib

    module = _HOMES.get(name, "errors" if name in __all__ else None)
    if module is None:
        raise AttributeError(f"module 'lsp_bridge' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"lsp_bridge.{module}"), name)
    globals()[name] = value
    return value


__all__ = [
    "DEFAULT_SERVERS",
    "SERVERS",
    "BridgeError",
    "Diagnostic",
    "FileEdits",
    "FileLocation",
    "InvalidEdit",
    "LspSession",
    "NotReady",
    "Position",
    "ProtocolViolation",
    "Range",
    "RenameRefused",
    "RequestFailed",
    "RequestTimeout",
    "ServerCrashed",
    "ServerNotInstalled",
    "ServerSpec",
    "ServerStartError",
    "SessionPool",
    "StaleFile",
    "TextChange",
    "apply_changes",
    "default_cache_dir",
    "install_servers",
    "validate_changes",
]
