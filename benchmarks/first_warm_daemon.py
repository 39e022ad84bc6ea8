"""The daemon with a record of every candidate parse (a profiling tool, not part of the suite).

    python benchmarks/first_warm_daemon.py --root ROOT --state DIR [--warm LANG]   # as agent.daemon.server

first_warm.py starts this. Appends one JSON line per connection to $CODEAGENT_TRACE_OUT: the marks
of daemon_trace.py's stages that matter here (request accepted, search started, the prepare pool's
turn, the answer read, unconfirmed_hits, reply sent), and each code_occurrences call that parsed a
file (or batch of files) since the last record: [rel, characters, start, end, thread CPU seconds,
thread name ("/worker" added when the parse worker process took it), files]. Parses between
requests (the continuation) land in the next connection's record, with their times."""

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

PARSES: list[tuple[str, int, float, float, float, str, int]] = []


def _record_each_file(filecache: Any) -> None:
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
                           threading.current_thread().name, 1))
    filecache.FileCache.code_occurrences = occurrences


def _record_each_batch(filecache: Any, name_parses: Any) -> None:
    """One record per batch parsed: its first file, its characters and file count; the thread's
    name gets "/worker" when the parse worker process took the batch (then its CPU is not here)."""
    plain = name_parses.parse_for_name

    @functools.wraps(plain)
    def parse_for_name(files: list[tuple[str, str, str]], name: str, worker: Any, *args: Any) -> Any:
        before = worker.parsed if worker is not None else 0
        c0, t0 = time.thread_time(), time.perf_counter()
        try:
            return plain(files, name, worker, *args)
        finally:
            handed = worker is not None and worker.parsed > before
            thread = threading.current_thread().name
            base, _, rest = thread.partition("_")
            PARSES.append((files[0][0] if len(files) == 1 else f"{files[0][0]} (+{len(files) - 1})",
                           sum(len(text) for _rel, _language, text in files), t0, time.perf_counter(),
                           time.thread_time() - c0, f"{base}/worker_{rest}" if handed else thread, len(files)))
    filecache.parse_for_name = parse_for_name


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
    try:  # this code: the parses of a batch of candidates, maybe in the parse worker process
        from agent.semantic import name_parses
    except ImportError:  # older code (CODEAGENT_BENCH_CODE): one file per code_occurrences call
        _record_each_file(filecache)
    else:
        _record_each_batch(filecache, name_parses)
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
