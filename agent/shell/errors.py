"""Errors of the shell family (all are ToolFailures: the registry turns them into failed results).

    ToolFailure
    ├── CommandRefused       the policy refused the command (the message names rule and part)
    ├── SandboxUnavailable   no OS sandbox can start, and the configuration did not turn it off
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
