"""The MCP stdio transport with JSON-RPC's answer to unreadable lines.

The SDK's `stdio_server` turns a line that is not a JSON-RPC message into an exception on the
read stream, which the server logs and drops: a client that sent it waits forever. Here the
SDK transport is used as it is, and a small relay between it and the server answers each such
line, as JSON-RPC 2.0 requires, with an error whose id is null (the id cannot be known):
-32700 "Parse error" when the line is not JSON, -32600 "Invalid Request" when it is JSON but not
a JSON-RPC message. Everything else passes through unchanged.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
import mcp_types as types
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from mcp.server.stdio import stdio_server
from mcp.shared.message import SessionMessage
from pydantic import ValidationError

Incoming = SessionMessage | Exception


def error_for(exc: Exception) -> types.JSONRPCError:
    """The JSON-RPC error answering a line the SDK could not read as a message."""
    not_json = isinstance(exc, ValidationError) and any(e.get("type") == "json_invalid" for e in exc.errors())
    if not_json:
        error = types.ErrorData(code=types.PARSE_ERROR, message="Parse error: the line is not valid JSON")
    else:
        error = types.ErrorData(code=types.INVALID_REQUEST,
                                message="Invalid Request: the line is JSON but not a JSON-RPC 2.0 message")
    return types.JSONRPCError(jsonrpc="2.0", id=None, error=error)


async def _relay(source: Any, sink: MemoryObjectSendStream[Incoming], write: Any) -> None:
    async with sink:
        async for item in source:
            if isinstance(item, Exception):
                await write.send(SessionMessage(error_for(item)))
            else:
                await sink.send(item)


@asynccontextmanager
async def stdio_transport() -> AsyncIterator[tuple[MemoryObjectReceiveStream[Incoming], Any]]:
    """(read stream, write stream) for `Server.run`, over the process's stdin and stdout."""
    async with stdio_server() as (sdk_read, write):
        sink, read = anyio.create_memory_object_stream[Incoming](0)
        async with anyio.create_task_group() as group:
            group.start_soon(_relay, sdk_read, sink, write)
            try:
                yield read, write
            finally:
                group.cancel_scope.cancel()
