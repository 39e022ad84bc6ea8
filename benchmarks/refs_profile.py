"""Where a warm find_references spends its time inside the daemon (not part of the test suite).

    python benchmarks/refs_profile.py --corpus django [--rounds 5] [--profile]

Runs the daemon's request handler in this process (agent.daemon.server.Daemon.answer, the
query cache off, the source listing read first as a daemon does after its first answer) on a
scratch copy of the corpus, and prints per target: wall and CPU time (this process: user+sys)
of the whole answer including the reply's JSON, the server request's share (LspSession.references,
from sending to the converted locations) and what remains: our own work. --profile adds a
cProfile of the answers (cumulative, top 40)."""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import json
import os
import pstats
import shutil
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
import bench_code  # noqa: E402

bench_code.use()  # an installed codeagent, else this checkout
sys.path.insert(0, str(HERE))
os.environ["CODEAGENT_QUERY_CACHE"] = "false"

from corpora import CACHE, CORPORA, search_dirs  # noqa: E402

from agent.config import load_settings  # noqa: E402
from agent.daemon.server import Daemon  # noqa: E402
from agent.semantic.name_continuation import continuations  # noqa: E402
from lsp_bridge.session import LspSession  # noqa: E402

_spans: list[float] = []
_plain = LspSession.references


def _timed_references(self, *args, **kwargs):  # type: ignore[no-untyped-def]
    started = time.perf_counter()
    try:
        return _plain(self, *args, **kwargs)
    finally:
        _spans.append(time.perf_counter() - started)


LspSession.references = _timed_references  # type: ignore[method-assign]

# --spans: the parts of one answer, by wrapping the functions that do them (a profiling script only)
SPANS: dict[str, list[float]] = {}


def _span(owner: object, attr: str, label: str) -> None:
    plain = getattr(owner, attr)
    if asyncio.iscoroutinefunction(plain):
        async def timed_async(*args, **kwargs):  # type: ignore[no-untyped-def]
            started = time.perf_counter()
            try:
                return await plain(*args, **kwargs)
            finally:
                SPANS.setdefault(label, []).append(time.perf_counter() - started)
        setattr(owner, attr, timed_async)
        return

    def timed(*args, **kwargs):  # type: ignore[no-untyped-def]
        started = time.perf_counter()
        try:
            return plain(*args, **kwargs)
        finally:
            SPANS.setdefault(label, []).append(time.perf_counter() - started)
    setattr(owner, attr, timed)


def _install_spans() -> None:
    from agent.semantic import references
    from agent.tools import code
    from lsp_bridge import client, session

    _span(client.BridgeClient, "request", "bridge: request sent → answer structured")
    _span(session.convert, "locations", "bridge: convert.locations")
    if hasattr(session.convert, "plain_locations"):  # a references result taken as plain JSON
        _span(session.convert, "plain_locations", "bridge: convert.plain_locations")
    _span(code, "resolve_target", "resolve_target")
    _span(references, "from_locations", "from_locations")
    _span(references, "unconfirmed_hits", "unconfirmed_hits (after the answer)")
    _span(references, "page", "page (each call)")
    _span(references, "bounded", "bounded")


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--corpus", default="django")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--profile", action="store_true")
    ap.add_argument("--spans", action="store_true", help="time the parts of each answer")
    ap.add_argument("--only", help="measure only the target of this name (the others still warm up)")
    args = ap.parse_args()
    if args.spans:
        _install_spans()
    corpus = CORPORA[args.corpus]
    source = corpus.tree(search_dirs(None))
    work = CACHE / "refs-profile" / source.name
    shutil.rmtree(work.parent, ignore_errors=True)
    shutil.copytree(source, work, symlinks=True)
    root = work.resolve()
    state = root / ".codeagent-profile-state"
    state.mkdir()
    daemon = Daemon(root, state, load_settings(root), warm=[corpus.language_id])
    base = {"op": "tool", "build": daemon.build, "settings": daemon.settings_id, "inputs": "profile"}

    def ask(rel: str, line: int, col: int) -> dict:
        daemon._idle.clear()
        try:
            reply = daemon.answer({**base, "name": "find_references",
                                   "args": {"file_path": rel, "line": line, "column": col,
                                            "include_declaration": True, "limit": 0}})
            json.dumps(reply, ensure_ascii=False).encode("utf-8")  # what send_message does
        finally:
            daemon._idle.set()
        return reply

    try:
        for _name, rel, line, col in corpus.targets:  # first answers: the server loads the project
            r = ask(rel, line, col)
            assert r["ok"] and r["result"]["success"], r
        daemon._after_request()
        assert daemon._listing_thread is not None
        daemon._listing_thread.join()
        for _name, rel, line, col in corpus.targets:
            ask(rel, line, col)
        # the files these first answers left unchecked are parsed between requests (a user's next
        # query comes seconds later; back-to-back requests here would leave it no time)
        continuations(daemon.ctx).settle(300)
        prof = cProfile.Profile() if args.profile else None
        rows = []
        print(f"measuring (pid {os.getpid()})", file=sys.stderr, flush=True)  # e.g. for py-spy --pid
        for name, rel, line, col in corpus.targets:
            if args.only and name != args.only:
                continue
            walls, cpus, servers = [], [], []
            SPANS.clear()
            for _ in range(args.rounds):
                _spans.clear()
                t0, c0 = time.perf_counter(), time.process_time()
                if prof is not None:
                    prof.enable()
                r = ask(rel, line, col)
                if prof is not None:
                    prof.disable()
                c1 = time.process_time()
                walls.append(time.perf_counter() - t0)
                cpus.append(c1 - c0)
                servers.append(sum(_spans))
            count = r["result"]["data"]["count"]
            w, s, c = statistics.median(walls), statistics.median(servers), statistics.median(cpus)
            rows.append(f"{name:28} {count:5} refs  wall {w * 1000:7.1f} ms  server request {s * 1000:7.1f} ms"
                        f"  ours {max(0.0, w - s) * 1000:6.1f} ms ({(w - s) / s * 100:+.0f} %)  cpu {c * 1000:6.1f} ms")
            for label, took in SPANS.items():
                per = sum(took) / args.rounds
                rows.append(f"    {label:44} {per * 1000:7.1f} ms per answer ({len(took) // args.rounds} call(s))")
        print(f"load {Path('/proc/loadavg').read_text().strip()}")
        print("\n".join(rows))
        if prof is not None:
            pstats.Stats(prof).sort_stats("cumulative").print_stats(40)
    finally:
        daemon.close()
        shutil.rmtree(work.parent, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
