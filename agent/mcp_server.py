"""The MCP server: our tools for any MCP client (Claude Code, Cursor, ...), over stdio.

Built on the official SDK's low-level `Server` (mcp 2.x renamed FastMCP to MCPServer, which
derives schemas from function signatures; ours come from the registry, so the low-level API
serves them as they are: one source of truth for names, parameter schemas and descriptions).
One ToolContext lives for the whole session, so language servers and the syntax index stay
warm between calls; it is closed when the client closes stdin. Between calls its servers are
kept within bounds as the daemon's are (agent/semantic/upkeep.py): one over
`lsp.server_memory_limit_mb` is restarted right after the call that left it there (the next
result says so), one unused for `lsp.server_idle_timeout` is stopped. A call the client cancels (or
abandons by closing the session) stops at once: its command is killed, not left to its timeout.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from typing import Any

import anyio
import anyio.abc
import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server

from . import __version__
from .mcp_stdio import stdio_transport
from .registry import Registry, Tool
from .result import ToolResult, bounded
from .semantic.session_watch import watch_later
from .semantic.upkeep import ServerUpkeep
from .toolcontext import ToolContext

INSTRUCTIONS = (
    "Code tools for the workspace {root}: read, search and edit files (every edit is atomic and journaled; "
    "`codeagent undo` reverts the last one), plus semantic tools backed by tree-sitter and real language "
    "servers (find_references, rename_symbol, ...). Paths are relative to the workspace root."
)
CUT_NOTE = "narrow the request (a line range, a path, a glob, max_results) to see the rest"
MAX_IDLE_CHECK_SECONDS = 30.0  # how often idle servers are looked for (sooner for a short idle timeout)


def mcp_tool(tool: Tool) -> types.Tool:
    """The MCP form of a registry tool: same name, description and parameter schema."""
    return types.Tool(
        name=tool.name,
        description=tool.description,
        input_schema=tool.parameters_schema(),
        annotations=types.ToolAnnotations(
            read_only_hint=tool.read_only,
            destructive_hint=tool.mutating or tool.shell,
            idempotent_hint=tool.read_only,
            open_world_hint=tool.shell,
        ),
    )


def _fit(value: Any, max_string: int, max_items: int) -> Any:
    """A copy of JSON data with long strings cut (head and tail) and long lists shortened."""
    if isinstance(value, str):
        return bounded(value, max_string)
    if isinstance(value, list):
        items = [_fit(v, max_string, max_items) for v in value[:max_items]]
        if len(value) > max_items:
            items.append(f"[... {len(value) - max_items} more items cut; {CUT_NOTE}]")
        return items
    if isinstance(value, dict):
        return {str(k): _fit(v, max_string, max_items) for k, v in value.items()}
    return value


def fit_structured(data: dict[str, Any], budget: int) -> dict[str, Any]:
    """`data` as JSON-safe values within `budget` characters of JSON, cutting the largest parts."""
    safe: dict[str, Any] = json.loads(json.dumps(data, default=str))
    if len(json.dumps(safe)) <= budget:
        return safe
    max_string, max_items = budget // 2, 1000
    while max_string > 200:
        fitted: dict[str, Any] = _fit(safe, max_string, max_items)
        if len(json.dumps(fitted)) <= budget:
            fitted["cut"] = f"parts of this result were cut to fit {budget} characters; {CUT_NOTE}"
            return fitted
        max_string, max_items = max_string // 2, max(10, max_items // 2)
    return {"cut": f"the structured result was over {budget} characters and was left out; {CUT_NOTE}"}


def call_result(result: ToolResult, *, max_text: int, max_structured: int) -> types.CallToolResult:
    """A tool result as MCP sends it: the text the model reads, plus the whole result as data."""
    if result.success:
        text = result.output or "(no output)"
    else:
        text = (result.error or "the tool failed") + (f"\n{result.output}" if result.output else "")
    if len(text) > max_text:
        text = bounded(text, max_text) + f"\n[the result was cut to {max_text} characters; {CUT_NOTE}]"
    structured = fit_structured(result.to_dict(), max_structured)
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=text)], structured_content=structured, is_error=not result.success
    )


class ToolServer:
    """Serves one registry's tools with one long-lived ToolContext."""

    def __init__(self, ctx: ToolContext, registry: Registry, toolset: str):
        self.ctx = ctx
        self.registry = registry
        self.tools = {t.name: t for t in registry.tools(toolset)}
        self.semantic_started = False
        self._lock = anyio.Lock()  # calls run one at a time: one journal, one set of language servers
        self.upkeep = ServerUpkeep(ctx)  # under the lock, between calls
        watch_later(ctx)  # searches keep their walk under a folder watch, as in the daemon (from the first)
        self._tasks: anyio.abc.TaskGroup | None = None
        settings = ctx.settings.mcp
        self.max_text, self.max_structured = settings.max_text_chars, settings.max_structured_chars
        self.progress_interval = settings.progress_interval
        instructions = INSTRUCTIONS.format(root=ctx.workspace.root)
        if ctx.settings.warnings:  # the project's ignored security settings, for the client to show
            instructions += " Configuration: " + "; ".join(ctx.settings.warnings)
        self.server: Server[Any] = Server(
            "codeagent", version=__version__, instructions=instructions,
            on_list_tools=self.list_tools, on_call_tool=self.call_tool,
        )

    async def list_tools(
        self, ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return types.ListToolsResult(tools=[mcp_tool(t) for t in self.tools.values()])

    async def call_tool(self, ctx: ServerRequestContext[Any], params: types.CallToolRequestParams) -> types.CallToolResult:
        name, args = params.name, params.arguments or {}
        if name not in self.tools:
            known = ", ".join(sorted(self.tools))
            result = ToolResult.fail(f"unknown tool {name!r}; this server has: {known}", usage_error=True)
            return call_result(result, max_text=self.max_text, max_structured=self.max_structured)
        first_semantic = self.tools[name].toolset == "semantic" and not self.semantic_started
        self.semantic_started = self.semantic_started or first_semantic
        async with self._lock:
            outcome: list[ToolResult] = []
            finished = threading.Event()

            def work() -> ToolResult:
                try:
                    return self.registry.call(self.ctx, name, dict(args))
                finally:
                    finished.set()

            self.ctx.cancel.clear()
            try:
                async with anyio.create_task_group() as group:
                    group.start_soon(self._progress, ctx, name, first_semantic, outcome)
                    # abandon_on_cancel: a cancelled request (the client gave up, or closed the session)
                    # must not wait for the thread; the thread is told to stop instead, below
                    outcome.append(self.upkeep.noted(await anyio.to_thread.run_sync(work, abandon_on_cancel=True)))
                    group.cancel_scope.cancel()
            except anyio.get_cancelled_exc_class():
                self.ctx.cancel.set()  # a running command is killed at once (runner.py)
                with anyio.CancelScope(shield=True):  # keep calls one at a time: wait for the kill
                    while not finished.is_set():
                        await anyio.sleep(0.05)
                raise
        if self._tasks is not None:  # it waits for the lock: it runs once this call has answered
            self._tasks.start_soon(self._between_calls, self.upkeep.after_request)
        return call_result(outcome[0], max_text=self.max_text, max_structured=self.max_structured)

    async def _between_calls(self, job: Callable[[], None]) -> None:
        async with self._lock:
            await anyio.to_thread.run_sync(job)

    async def _idle_stops(self) -> None:
        every = min(MAX_IDLE_CHECK_SECONDS, max(self.ctx.settings.lsp.server_idle_timeout / 4, 0.5))
        while True:
            await anyio.sleep(every)
            await self._between_calls(self.upkeep.stop_idle)

    async def _progress(self, ctx: ServerRequestContext[Any], name: str, first_semantic: bool,
                        done: list[ToolResult]) -> None:
        """While a call runs, tell the client (if it asked for progress) that it is still going."""
        start = time.monotonic()
        what = ("first semantic call: starting the language server and indexing the workspace"
                if first_semantic else f"{name} is running")
        if first_semantic:
            await _report(ctx, 0.0, what)
        while not done:
            await anyio.sleep(self.progress_interval)
            if not done:
                elapsed = time.monotonic() - start
                await _report(ctx, elapsed, f"{what} ({elapsed:.0f} s)")

    async def serve_stdio(self) -> None:
        async with anyio.create_task_group() as tasks:
            self._tasks = tasks
            tasks.start_soon(self._idle_stops)
            async with stdio_transport() as (read_stream, write_stream):
                await self.server.run(read_stream, write_stream, self.server.create_initialization_options())
            tasks.cancel_scope.cancel()  # stdin closed: no more upkeep


async def _report(ctx: ServerRequestContext[Any], progress: float, message: str) -> None:
    try:
        await ctx.session.report_progress(progress, None, message)
    except Exception:  # progress is a courtesy: a client that went away must not fail the call
        return


def serve(ctx: ToolContext, registry: Registry, toolset: str) -> None:
    """Run the MCP server on stdin/stdout until the client closes stdin, then close `ctx`."""
    server = ToolServer(ctx, registry, toolset)
    try:
        anyio.run(server.serve_stdio)
    finally:
        ctx.close()
