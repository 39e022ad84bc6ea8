"""The daemon with a record of every candidate parse (a profiling tool, not part of the suite).

    python benchmarks/first_warm_daemon.py --root ROOT --state DIR [--warm LANG]   # as agent.daemon.server

first_warm.py starts this. Appends one JSON line per connection to $CODEAGENT_TRACE_OUT: the marks
of daemon_trace.py's stages that matter here (request accepted, search started, the prepare pool's
turn, the answer read, unconfirmed_hits, reply sent), and each code_occurrences call that parsed a
file since the last record: [rel, characters, start, end, thread CPU seconds, thread name]. Parses
between requests (the continuation) land in the next connection's record, with their times."""

from __future__ import annotations

import functools
import json
import os
import sys
import threading
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, os.environ.get("CODEAGENT_BENCH_CODE", str(HERE.parent)))
sys.path.insert(1, str(HERE))

from daemon_trace import EVENTS, mark, schedstat, wrap  # noqa: E402

PARSES: list[tuple[str, int, float, float, float, str]] = []


def install() -> None:
    from agent.daemon import server
    from agent.semantic import filecache, name_occurrences, references
    from lsp_bridge import client, session

    wrap(server, "peer_refusal", "accepted")
    wrap(server.Daemon, "answer", "answer")
    wrap(name_occurrences.NameSearch, "start", "search.start")
    wrap(name_occurrences.NameSearch, "_prepare", "search._prepare")
    wrap(name_occurrences.NameSearch, "stop_preparing", "stop_preparing")
    wrap(references, "unconfirmed_hits", "unconfirmed_hits")
    wrap(session.LspSession, "references", "session.references")
    wrap(client.BridgeClient, "_answer", "loop:answer")
    plain = filecache.FileCache.code_occurrences

    @functools.wraps(plain)
    def occurrences(self: Any, rel: str, language: str, name: str, **kw: Any) -> Any:
        if self.cached_occurrences(rel, name) is not None:
            return plain(self, rel, language, name, **kw)
        c0, t0 = time.thread_time(), time.perf_counter()
        try:
            return plain(self, rel, language, name, **kw)
        finally:
            PARSES.append((rel, len(self.text(rel) or ""), t0, time.perf_counter(), time.thread_time() - c0,
                           threading.current_thread().name))
    filecache.FileCache.code_occurrences = occurrences  # type: ignore[method-assign]
    plain_send = server.send_message

    def send(sock: Any, obj: dict[str, Any]) -> None:
        plain_send(sock, obj)
        mark("sent")
    server.send_message = send  # type: ignore[assignment]
    handle = server.Daemon.handle
    out = os.environ["CODEAGENT_TRACE_OUT"]

    def traced(self: Any, conn: Any) -> Any:
        before = schedstat()
        try:
            return handle(self, conn)
        finally:
            after = schedstat()
            events, parses = list(EVENTS), list(PARSES)
            EVENTS.clear()
            PARSES.clear()
            with open(out, "a") as fh:
                fh.write(json.dumps({"events": events, "parses": parses, "sched_before": before,
                                     "sched_after": after}) + "\n")
    server.Daemon.handle = traced  # type: ignore[method-assign]


def main() -> int:
    install()
    from agent.daemon import server
    return server.main(sys.argv[1:])


if __name__ == "__main__":
    sys.exit(main())
