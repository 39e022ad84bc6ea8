"""Errors of the shell family (all are ToolFailures: the registry turns them into failed results).

    ToolFailure
    ├── CommandRefused       the policy refused the command (the message names rule and part)
    ├── SandboxUnavailable   no OS sandbox can start, and the configuration did not turn it off
    ├── UnsafeWorkspace      the workspace's layout would let a command change a protected path
    ├── CommandSetupError    the command could not be prepared or its results kept (disk full, ...)
    └── PolicyConfigError    a policy rule in the configuration is invalid
"""

from __future__ import annotations

from ..errors import ToolFailure


class CommandRefused(ToolFailure):
    """The policy refused the command."""


class SandboxUnavailable(ToolFailure):
    """No OS sandbox can start here."""


class PolicyConfigError(ToolFailure):
    """A configured policy rule is invalid."""


class UnsafeWorkspace(ToolFailure):
    """A protected workspace path (see protect.py) is a symlink: commands are refused."""


class CommandSetupError(ToolFailure):
    """Preparing the command or keeping its output failed (no space left, permissions)."""
