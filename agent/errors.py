"""Exceptions raised inside the agent package.

The tree (tools catch these at one boundary, the registry, and turn them into ToolResults)::

    CodeagentError
    ├── WorkspaceError                 path and file problems
    │   ├── OutsideWorkspaceError      a path resolves outside the root (or is otherwise unsafe)
    │   ├── ProtectedPathError         a write aimed at .git/ or the tool folder
    │   ├── FileMissingError           the file does not exist
    │   ├── NotAFileError              a folder (or something else) where a file was expected
    │   ├── FileTooLargeError          over the read cap
    │   ├── BinaryFileError            not decodable as text
    │   ├── EncodingError              new text cannot be encoded in the file's encoding
    │   ├── StaleFileError             the file changed since it was read
    │   └── JournalError               nothing to undo, or undo impossible
    │       └── UnauthenticatedEntryError  a journal entry without a valid MAC (never replayed)
    ├── ToolUsageError                 unknown tool, bad arguments (CLI exit 2)
    ├── ToolFailure                    a tool's own, expected failure with a message for the model
    └── LLMError                       the model endpoint failed (agent/llm.py translates openai's errors)
        ├── LLMAuthError               credentials refused (401/403): stop at once
        ├── LLMUnavailable             transient failures (429, 5xx, timeouts, resets) outlasted the retries
        ├── LLMRequestError            the endpoint refused the request itself (400, 404: wrong model, ...)
        └── LLMFormatError             the model's replies could not be read as actions, even after re-asks
"""

from __future__ import annotations


class CodeagentError(Exception):
    """Base of every error this package raises on purpose."""


class WorkspaceError(CodeagentError):
    """A path or file operation was refused or failed."""


class OutsideWorkspaceError(WorkspaceError):
    """A path resolves outside the workspace root."""


class ProtectedPathError(WorkspaceError):
    """A write aimed at a protected location (.git/, the tool folder)."""


class FileMissingError(WorkspaceError):
    """The file does not exist."""


class NotAFileError(WorkspaceError):
    """The path exists but is not a regular file."""


class FileTooLargeError(WorkspaceError):
    """The file is larger than the configured read cap."""


class BinaryFileError(WorkspaceError):
    """The file is not text in any encoding we can detect."""


class EncodingError(WorkspaceError):
    """The new text cannot be written in the file's encoding."""


class StaleFileError(WorkspaceError):
    """The file changed on disk since the edit was computed."""


class JournalError(WorkspaceError):
    """Undo is impossible (nothing recorded, or files changed since)."""


class UnauthenticatedEntryError(JournalError):
    """A journal entry whose MAC is missing or wrong: forged, or from before signed journals."""


class ToolUsageError(CodeagentError):
    """The call itself is wrong: unknown tool, malformed or invalid arguments."""


class ToolFailure(CodeagentError):
    """A tool's expected failure; the message is what the model reads."""


class LLMError(CodeagentError):
    """The model endpoint failed; the message says what to do about it."""


class LLMAuthError(LLMError):
    """The endpoint refused the credentials."""


class LLMUnavailable(LLMError):
    """Transient failures went on past the retries."""


class LLMRequestError(LLMError):
    """The endpoint refused the request (bad model name, unsupported parameter, ...)."""

    def __init__(self, message: str, *, status: int | None = None):
        super().__init__(message)
        self.status = status


class LLMFormatError(LLMError):
    """The model's replies could not be parsed as actions, even after re-asking."""
