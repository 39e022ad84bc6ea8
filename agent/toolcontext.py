"""What a tool call runs with: the workspace, settings, long-lived services and edit checks.

Entry points build it (agent/bootstrap.py: `open_context` loads the settings once and installs
the post-edit checks); nothing below the tools creates one."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from .config import Settings
from .result import CheckOutcome
from .workspace import Applied, Workspace

if TYPE_CHECKING:
    from .syntax.workers import ShowProgress

__all__ = ["CheckOutcome", "EditCheck", "ToolContext"]

T = TypeVar("T")


class EditCheck(Protocol):
    """Runs after every mutating tool (syntax guard, diagnostics delta). May reject the change."""

    name: str

    def check(self, ctx: ToolContext, applied: Applied) -> CheckOutcome: ...


class ToolContext:
    """Shared by every tool call of one session (CLI call, agent run, MCP session)."""

    def __init__(
        self,
        workspace: Workspace,
        settings: Settings | None = None,
        *,
        run_id: str | None = None,
        on_output: Callable[[str], None] | None = None,
        show_progress: ShowProgress | None = None,
        one_call: bool = False,
    ):
        self.workspace = workspace
        self.settings = settings or Settings()
        self.run_id = run_id
        self.on_output = on_output  # streaming callback for long-running tools (shell)
        # Set when the caller gives up on the running call (an MCP client cancelled it): long-running
        # tools (shell commands) stop at once. The caller clears it before each call.
        self.cancel = threading.Event()
        self.show_progress = show_progress  # how a long index refresh reports (None: silently)
        # The session makes one tool call and ends (`codeagent tool`): what a service would keep
        # for a next call (search_in_files' walk stamps) is not worth its cost.
        self.one_call = one_call
        self._edit_checks: list[EditCheck] = []
        self._deferred_checks: Callable[[], list[EditCheck]] | None = None
        self._services: dict[str, Any] = {}
        self._closers: list[Callable[[], None]] = []
        # Run before every tool call (Registry.execute), on the calling thread: a long-lived
        # session's look at its folder watch (agent/semantic/session_watch.py).
        self.before_call: list[Callable[[], object]] = []
        self._lock = threading.RLock()

    @property
    def edit_checks(self) -> list[EditCheck]:
        """The checks every mutating tool runs after its edit, in order (agent/commit.py). Those
        an entry point deferred come first, made on first use: a session that never edits (a
        one-shot search) never imports the syntax guard or the diagnostics stack."""
        if self._deferred_checks is not None:
            with self._lock:  # (cleared only once the checks are in: no thread sees a list without them)
                make = self._deferred_checks
                if make is not None:
                    self._edit_checks[:0] = make()
                    self._deferred_checks = None
        return self._edit_checks

    def defer_checks(self, make: Callable[[], list[EditCheck]]) -> None:
        """`make()` gives the first edit checks when `edit_checks` is first read (bootstrap.py)."""
        self._deferred_checks = make

    def service(self, key: str, factory: Callable[[], T], *, close: Callable[[T], None] | None = None) -> T:
        """A lazily created, shared object (a language-server manager, the syntax index)."""
        with self._lock:
            if key not in self._services:
                obj = factory()
                self._services[key] = obj
                if close is not None:
                    self._closers.append(lambda: close(obj))
            return self._services[key]

    def has_service(self, key: str) -> bool:
        return key in self._services

    def close(self) -> None:
        """Stop every service (language servers, pools). Safe to call twice."""
        closers, self._closers = self._closers, []
        for closer in reversed(closers):
            with contextlib.suppress(Exception):  # closing must never raise out of cleanup
                closer()
        self._services.clear()

    def __enter__(self) -> ToolContext:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
