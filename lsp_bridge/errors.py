"""The exceptions `lsp_bridge` raises; nothing else escapes its public API.

    BridgeError                   every failure of the bridge
    ├── ServerNotInstalled        the server's program is missing; the message says how to install it
    ├── ServerStartError          the program exists but did not start or failed `initialize`
    ├── ServerCrashed             the process exited (or was killed) while requests were pending
    │   └── ProtocolViolation     the server sent something that is not LSP (invalid JSON, huge frame)
    ├── RequestTimeout            no answer in time: cancelled; a server that stays silent is killed
    ├── NotReady                  the server did not finish indexing in time (results would be partial)
    ├── RenameRefused             prepareRename or rename said no; the message is the server's reason
    ├── InvalidEdit               a WorkspaceEdit edit is out of range, overlapping or unsupported
    │   └── StaleFile             a file changed on disk after the server computed its answer
    └── RequestFailed             the server answered a request with an error response

Errors of lower libraries (pygls, OSError, asyncio) are translated where they are caught:
`raise ServerCrashed(...) from exc`.
"""

from __future__ import annotations


class BridgeError(Exception):
    """Base class of every error the language-server bridge raises."""


class ServerNotInstalled(BridgeError):
    """The language server's program is not installed (and could not be installed)."""


class ServerStartError(BridgeError):
    """The server program was found but did not start or failed to initialize."""


class ServerCrashed(BridgeError):
    """The server process exited while a request was pending."""


class ProtocolViolation(ServerCrashed):
    """The server broke the protocol (invalid JSON, oversized message); it is treated as crashed."""


class RequestTimeout(BridgeError):
    """A request got no answer in time. It was cancelled ($/cancelRequest); `stuck` says the server
    did not even acknowledge the cancel, so it was killed (and restarts on next use)."""

    def __init__(self, message: str, *, stuck: bool = True) -> None:
        super().__init__(message)
        self.stuck = stuck


class NotReady(BridgeError):
    """The server was still indexing after the readiness timeout; its answers would be partial."""


class RenameRefused(BridgeError):
    """The server refused the rename at this position; the message is its reason."""


class InvalidEdit(BridgeError):
    """A workspace edit cannot be applied safely (out of range, overlapping, unsupported)."""


class StaleFile(InvalidEdit):
    """A file changed on disk after the server computed an answer that touches it."""


class RequestFailed(BridgeError):
    """The server answered with an error response."""

    def __init__(self, message: str, *, code: int | None = None) -> None:
        super().__init__(message)
        self.code = code
