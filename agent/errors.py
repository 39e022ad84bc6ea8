"""Exceptions raised inside the agent package: the whole tree, wherever each class is defined.

Tools raise these; the registry (agent/registry.py, `Registry.execute`) is the one boundary where
they, lsp_bridge's BridgeError and OSError become a failed ToolResult. Entry points catch what
escapes outside a tool call (the CLI: UsageError → exit 2, CodeagentError → exit 1)::

    CodeagentError                       errors.py
    ├── WorkspaceError                   path and file problems
    │   ├── OutsideWorkspaceError        a path resolves outside the root (or is otherwise unsafe)
    │   ├── ProtectedPathError           a write aimed at .git/ or the tool folder
    │   ├── FileMissingError             the file does not exist
    │   ├── NotAFileError                a folder (or something else) where a file was expected
    │   ├── FileTooLargeError            over the read cap
    │   ├── BinaryFileError              not decodable as text
    │   ├── EncodingError                new text cannot be encoded in the file's encoding
    │   ├── StaleFileError               the file changed since it was read
    │   └── JournalError                 nothing to undo, or undo impossible
    │       └── UnauthenticatedEntryError  a journal entry without a valid MAC (never replayed)
    ├── ToolUsageError                   unknown tool, bad arguments (CLI exit 2)
    ├── ToolFailure                      a tool's own, expected failure with a message for the model
    │   ├── CommandRefused               shell/errors.py: the command policy refused a command
    │   ├── SandboxUnavailable           shell/errors.py: no working OS sandbox (and sandbox != off)
    │   └── PolicyConfigError            shell/errors.py: the shell policy settings are invalid
    ├── LLMError                         the model endpoint failed (agent/llm.py translates openai's errors)
    │   ├── LLMAuthError                 credentials refused (401/403): stop at once
    │   ├── LLMUnavailable               transient failures (429, 5xx, timeouts, resets) outlasted the retries
    │   ├── LLMRequestError              the endpoint refused the request itself (400, 404: wrong model, ...)
    │   ├── LLMFormatError               the model's replies could not be read as actions, even after re-asks
    │   └── ProtocolChanged              llm.py: native tool calls refused; switched to JSON actions, ask again
    ├── ConfigError                      config.py: a settings file or variable is invalid
    ├── DaemonError                      daemon/protocol.py: the daemon cannot be reached or answered badly
    │   └── NoDaemon                     no daemon runs for this workspace
    ├── UnsupportedLanguageError         syntax/languages.py: no grammar for this file
    ├── ContextOverflowError             context.py: the prompt cannot fit the model's window
    ├── TrajectoryError                  trajectory.py: a run log cannot be read or replayed
    └── CheckpointError                  checkpoint.py: the git checkpoint failed

Translated where they are raised, never escaping their module: openai's errors (→ LLMError, in
llm.py), BridgeError (→ a failed ToolResult, in the registry; code that knows more context adds it
with `exc.add_note`), pydantic's ValidationError (→ ToolUsageError, in the registry).
Outside the tree on purpose: UsageError (commands/output.py, the command line's own), the loop's
`Stop` family (loop.py: Finished, LimitReached, Stuck, ModelFailed, Interrupted — control flow that
ends a run), and module-private signals (PatchError, ParseRefused, WordError, RgUnusable, StuckError,
ActionFormatError) that their module turns into one of the above.
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
