"""The daemon with timestamps on each stage of a request (a profiling tool, not part of the suite).

    python benchmarks/daemon_trace.py --root ROOT --state DIR [--warm LANG]   # as agent.daemon.server

Wraps the functions that make up a warm find_references (a profiling script only: no code of the
daemon changes) and appends one JSON line per connection to $CODEAGENT_TRACE_OUT: a list of
[stage, perf_counter seconds, thread name], plus each daemon thread's schedstat (CPU ns, run-queue
wait ns) before and after. perf_counter is CLOCK_MONOTONIC on Linux, so the client's own stamps
(refs_trace.py) compare directly. refs_trace.py starts this and reads the lines."""

from __future__ import annotations

import asyncio
import functools
import json
import os
import re
import sys
import threading
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
# CODEAGENT_BENCH_CODE: another checkout's code (e.g. main's, for a before/after on the same run)
sys.path.insert(0, os.environ.get("CODEAGENT_BENCH_CODE", str(HERE.parent)))

EVENTS: list[tuple[str, float, str]] = []


def mark(stage: str) -> None:
    EVENTS.append((stage, time.perf_counter(), threading.current_thread().name))


def wrap(owner: object, attr: str, label: str) -> None:
    plain = getattr(owner, attr)
    if asyncio.iscoroutinefunction(plain):
        @functools.wraps(plain)
        async def timed_async(*args: Any, **kwargs: Any) -> Any:
            mark(f"{label}>")
            try:
                return await plain(*args, **kwargs)
            finally:
                mark(f"{label}<")
        setattr(owner, attr, timed_async)
        return

    @functools.wraps(plain)
    def timed(*args: Any, **kwargs: Any) -> Any:
        mark(f"{label}>")
        try:
            return plain(*args, **kwargs)
        finally:
            mark(f"{label}<")
    setattr(owner, attr, timed)


def schedstat() -> dict[str, list[int]]:
    out = {}
    for task in Path("/proc/self/task").iterdir():
        try:
            fields = (task / "schedstat").read_text().split()
            name = (task / "comm").read_text().strip()
        except OSError:
            continue
        out[f"{task.name}:{name}"] = [int(fields[0]), int(fields[1])]
    return out


def _gc_marks(phase: str, info: dict[str, Any]) -> None:
    """Each collection of the cyclic garbage collector, by generation ("gc2>" ... "gc2<")."""
    mark(f"gc{info['generation']}{'>' if phase == 'start' else '<'}")


def install() -> None:
    import gc

    gc.callbacks.append(_gc_marks)
    from agent.daemon import protocol, server
    from agent.semantic import name_occurrences, references, upkeep
    from agent.tools import code
    from lsp_bridge import client, documents, session

    wrap(server, "peer_refusal", "accepted")
    # After-request work of the previous connection (its marks land in the next request's record)
    wrap(upkeep.ServerUpkeep, "after_request", "after:upkeep")
    wrap(server.Daemon, "_after_request", "after:_after_request")
    from agent.semantic import filecache
    wrap(filecache.FileCache, "code_occurrences", "code_occurrences")
    wrap(server, "recv_message", "recv")
    wrap(server.Daemon, "answer", "answer")
    wrap(server.CachedCalls, "call", "calls.call")
    wrap(code, "resolve_target", "resolve_target")
    wrap(code, "_find_references", "find_references")
    wrap(references, "NameSearch", "NameSearch()")
    wrap(session.LspSession, "references", "session.references")
    wrap(session.LspSession, "_attempt", "loop:_attempt")
    wrap(session.LspSession, "_ensure_client", "loop:ensure_client")
    wrap(session.LspSession, "_prepare", "loop:prepare")
    wrap(session.LspSession, "_settle_scan", "loop:settle_scan")
    wrap(documents.DocumentStore, "scan", "docs.scan")
    wrap(client.BridgeClient, "request", "loop:request")
    dispatch = client.BridgeClient._dispatch

    def dispatched(self: Any, body: bytes) -> None:  # named by its method (a notification) or "answer"
        found = re.search(rb'"method"\s*:\s*"([^"]+)"', body[:300])
        label = f"loop:dispatch {found.group(1).decode() if found else 'answer'} {len(body)}B"
        mark("loop:dispatch>")
        try:
            dispatch(self, body)
        finally:
            mark(label)
    client.BridgeClient._dispatch = dispatched  # type: ignore[method-assign]
    wrap(client.BridgeClient, "_answer", "loop:answer")
    from pygls.protocol import json_rpc
    wrap(json_rpc.JsonRPCProtocol, "_send_data", "loop:write")
    wrap(session.convert, "plain_locations", "plain_locations")
    wrap(name_occurrences.NameSearch, "start", "search.start")
    wrap(name_occurrences.NameSearch, "_files", "search._files")
    wrap(name_occurrences.NameSearch, "_prepare", "search._prepare")
    wrap(references, "from_locations", "from_locations")
    wrap(references, "unconfirmed_hits", "unconfirmed_hits")
    wrap(references, "page", "page")
    wrap(references, "whole_page", "whole_page")
    wrap(references, "bounded", "bounded")
    wrap(references.ToolResult, "to_dict", "to_dict")
    plain_send = protocol.send_message

    def send(sock: Any, obj: dict[str, Any]) -> None:
        mark("send>")
        plain_send(sock, obj)
        mark("send<")
    server.send_message = send  # type: ignore[assignment]
    plain_dumps = json.dumps

    handle = server.Daemon.handle
    out = os.environ["CODEAGENT_TRACE_OUT"]

    def traced(self: Any, conn: Any) -> Any:
        before = schedstat()
        try:
            return handle(self, conn)
        finally:
            after = schedstat()
            events = list(EVENTS)
            EVENTS.clear()
            with open(out, "a") as fh:
                fh.write(plain_dumps({"events": events, "sched_before": before, "sched_after": after,
                                         "threads": {str(t.native_id): t.name for t in threading.enumerate()}}) + "\n")
    server.Daemon.handle = traced  # type: ignore[method-assign]


def main() -> int:
    install()
    from agent.daemon import server
    return server.main(sys.argv[1:])


if __name__ == "__main__":
    sys.exit(main())
