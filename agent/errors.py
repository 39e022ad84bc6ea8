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
    ├── ToolUsageError                 unknown tool, bad arguments (CLI exit 2)
    └── ToolFailure                    a tool's own, expected failure with a message for the model
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


class ToolUsageError(CodeagentError):
    """The call itself is wrong: unknown tool, malformed or invalid arguments."""


class ToolFailure(CodeagentError):
    """A tool's expected failure; the message is what the model reads."""
