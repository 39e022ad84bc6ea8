"""Keeping a long-lived session's language servers within bounds, between requests only: the
daemon, the MCP server and an agent run call in here between two tool calls (none runs then),
so no request is ever cut short:

- a server whose process tree holds more than `lsp.server_memory_limit_mb` after a request is
  stopped and started again at once (it re-indexes while nobody waits on it); the restart is said
  in the log and in the next tool result (`data["server_notes"]`; the CLI prints it on stderr, the
  MCP server and the agent loop add it to the text the model reads);
- a server no request has used for `lsp.server_idle_timeout` seconds is stopped (the daemon itself
  may live on, serving searches); the next request that needs it starts it again, as on first use.
"""

from __future__ import annotations

import logging
import threading
import time

from lsp_bridge import LspSession

from ..result import ToolResult
from ..toolcontext import ToolContext
from .sessions import running_sessions

log = logging.getLogger("codeagent.servers")

MIB = 1024 * 1024
MAX_NOTES = 8  # restarts said in one result (a tiny limit restarts after every request)


class ServerUpkeep:
    def __init__(self, ctx: ToolContext) -> None:
        self._ctx = ctx
        self._notes: list[str] = []
        self._restarting: list[threading.Thread] = []

    def after_request(self) -> None:
        """Restart every running server over the memory limit."""
        limit_mb = self._ctx.settings.lsp.server_memory_limit_mb
        for session in running_sessions(self._ctx):
            if session.busy:  # another thread's request (a warm-up, a restart) is under way: next time
                continue
            pid, held = session.pid, session.memory()
            if held is None or held <= limit_mb * MIB:
                continue
            note = (f"the {session.spec.name} server (pid {pid}) held {held / MIB:.0f} MiB, over "
                    f"lsp.server_memory_limit_mb = {limit_mb}: restarted after the last request")
            log.warning("%s", note)
            session.stop()
            if len(self._notes) < MAX_NOTES:
                self._notes.append(note)
            thread = threading.Thread(target=self._restart, args=(session,), daemon=True)
            thread.start()
            self._restarting = [t for t in self._restarting if t.is_alive()] + [thread]

    def _restart(self, session: LspSession) -> None:
        started = time.monotonic()
        try:
            session.ready(self._ctx.settings.lsp.ready_timeout)
        except Exception as exc:  # the next request that needs it reports the problem properly
            log.warning("restarting the %s server failed: %s", session.spec.name, exc)
        else:
            log.info("%s server restarted (pid %s), ready after %.1f s", session.spec.name, session.pid,
                     time.monotonic() - started)

    def stop_idle(self) -> None:
        """Stop every running server unused for `lsp.server_idle_timeout` seconds."""
        idle_timeout = self._ctx.settings.lsp.server_idle_timeout
        now = time.monotonic()
        for session in running_sessions(self._ctx):
            idle = now - session.last_used
            if idle >= idle_timeout and not session.busy:  # (a restart or warm-up under way is a use)
                log.info("the %s server (pid %s) was idle for %.0f s: stopped", session.spec.name, session.pid, idle)
                session.stop()

    def take_notes(self) -> list[str]:
        """What happened to the servers since the last result (said once)."""
        notes, self._notes = self._notes, []
        return notes

    def noted(self, result: ToolResult) -> ToolResult:
        """`result` with what happened to the servers since the last result, for a model to read."""
        notes = self.take_notes()
        if not notes:
            return result
        said = "\n".join(f"[note: {note}]" for note in notes)
        return ToolResult(success=result.success, output=f"{result.output}\n{said}" if result.output else said,
                          error=result.error, data={**result.data, "server_notes": notes})
