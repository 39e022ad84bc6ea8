"""The daemon's own work on one warm find_references, without the server's time (not part of the suite).

    python benchmarks/refs_replay.py --corpus ec2 [--rounds 200]

Runs the daemon's request handler in this process (as refs_profile.py), captures each target's
real references answer (the server's JSON), then replays it: LspSession.references answers at
once with what the bridge made of that answer (a profiling seam), so `Daemon.answer` + the reply's
encoding is exactly the work a request costs us besides the server, on one thread, no waits.
Prints per target the median thread CPU of: the whole replayed answer (encoding included), and
alone: convert.plain_locations on the captured JSON, the reply's json.dumps."""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import shutil
import statistics
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
# CODEAGENT_BENCH_CODE: another checkout's code (e.g. main's, for a before/after on the same run)
sys.path.insert(0, os.environ.get("CODEAGENT_BENCH_CODE", str(HERE.parent)))
sys.path.insert(0, str(HERE))
os.environ["CODEAGENT_QUERY_CACHE"] = "false"

from corpora import CACHE, CORPORA, search_dirs  # noqa: E402

from agent.config import load_settings  # noqa: E402
from agent.daemon.protocol import send_message  # noqa: E402
from agent.daemon.server import Daemon  # noqa: E402
from agent.semantic.name_continuation import continuations  # noqa: E402
from lsp_bridge import session as session_mod  # noqa: E402
from lsp_bridge.session import LspSession  # noqa: E402

CAPTURED: dict[str, Any] = {}
_plain_locations = session_mod.convert.plain_locations
_references = LspSession.references


def _capture(result: Any, lines_of: Any, encoding: Any) -> Any:
    CAPTURED["args"] = (result, lines_of, encoding)
    CAPTURED["files"] = getattr(lines_of, "__self__", None) or CAPTURED.get("sync")
    return _plain_locations(result, lines_of, encoding)


class _Sink:
    def sendall(self, data: bytes) -> None:
        self.size = len(data)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--corpus", default="ec2")
    ap.add_argument("--rounds", type=int, default=200)
    ap.add_argument("--stat-ab", action="store_true", help="also time plain_locations with every answered file "
                    "stat'ed (lines_checked, as before hotstat) and under the watch's word (answer_lines), alternating")
    ap.add_argument("--other-convert", type=Path, help="another lsp_bridge/convert.py (e.g. main's): its "
                    "plain_locations timed on the same answer, alternating call by call with this one's")
    ap.add_argument("--other-code", type=Path, help="another checkout (e.g. main's): its from_locations and "
                    "reference_page.page timed on the same locations, alternating call by call with this one's "
                    "(the same outputs asserted)")
    args = ap.parse_args()
    other = None
    if args.other_convert is not None:
        spec = importlib.util.spec_from_file_location("other_convert", args.other_convert)
        assert spec is not None and spec.loader is not None
        other = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(other)
    other_code = _other_code(args.other_code) if args.other_code is not None else None
    corpus = CORPORA[args.corpus]
    source = corpus.tree(search_dirs(None))
    work = CACHE / "refs-replay" / source.name
    shutil.rmtree(work.parent, ignore_errors=True)
    shutil.copytree(source, work, symlinks=True)
    root = work.resolve()
    state = root / ".codeagent-replay-state"
    state.mkdir()
    daemon = Daemon(root, state, load_settings(root), warm=[corpus.language_id])
    base = {"op": "tool", "build": daemon.build, "settings": daemon.settings_id, "inputs": "replay"}
    sink = _Sink()

    def ask(rel: str, line: int, col: int) -> dict[str, Any]:
        daemon._idle.clear()
        try:
            reply = daemon.answer({**base, "name": "find_references",
                                   "args": {"file_path": rel, "line": line, "column": col,
                                            "include_declaration": True, "limit": 0}})
            send_message(sink, reply)
        finally:
            daemon._idle.set()
        return reply

    session_mod.convert.plain_locations = _capture  # type: ignore[assignment]
    answer_lines = getattr(session_mod.DocumentSync, "answer_lines", None)
    if answer_lines is not None:  # (this checkout's bridge has it): which DocumentSync answered
        def noted(self: Any) -> Any:
            CAPTURED["sync"] = self
            return answer_lines(self)
        session_mod.DocumentSync.answer_lines = noted  # type: ignore[method-assign]
    try:
        for _name, rel, line, col in corpus.targets:
            assert ask(rel, line, col)["result"]["success"]
        daemon._after_request()
        assert daemon._listing_thread is not None
        daemon._listing_thread.join()
        for _ in range(2):
            for _name, rel, line, col in corpus.targets:
                ask(rel, line, col)
        continuations(daemon.ctx).settle(300)
        print(f"load {Path('/proc/loadavg').read_text().strip()}")
        for name, rel, line, col in corpus.targets:
            CAPTURED.clear()
            reply = ask(rel, line, col)
            result, lines_of, encoding = CAPTURED["args"]
            located = _plain_locations(result, lines_of, encoding)

            def replay(self: Any, *a: Any, on_sent: Any = None, located: Any = located, **k: Any) -> Any:
                if on_sent is not None:
                    on_sent()
                return located
            LspSession.references = replay  # type: ignore[method-assign]
            try:
                whole, conv, enc, conv_other, stat_each, on_word = [], [], [], [], [], []
                files = CAPTURED.get("files")
                want = json.dumps(reply["result"], sort_keys=True)
                for turn in range(args.rounds):
                    t0 = time.thread_time()
                    again = ask(rel, line, col)
                    whole.append(time.thread_time() - t0)
                    # (with another convert, which one goes first alternates: the first meets colder caches)
                    for side in ((0, 1) if turn % 2 == 0 or other is None else (1, 0)):
                        t0 = time.thread_time()
                        if side == 0:
                            _plain_locations(result, lines_of, encoding)
                            conv.append(time.thread_time() - t0)
                        elif other is not None:
                            theirs = other.plain_locations(result, lines_of, encoding)
                            conv_other.append(time.thread_time() - t0)
                            assert theirs == located
                    if args.stat_ab and files is not None:
                        t0 = time.thread_time()
                        stat_each.append((_plain_locations(result, files.lines_checked, encoding), time.thread_time() - t0))
                        t0 = time.thread_time()
                        on_word.append((_plain_locations(result, files.answer_lines(), encoding), time.thread_time() - t0))
                        assert stat_each[-1][0] == on_word[-1][0] == located
                    t0 = time.thread_time()
                    send_message(sink, again)
                    enc.append(time.thread_time() - t0)
                assert json.dumps(again["result"], sort_keys=True) == want, "the replayed answer differs"
            finally:
                LspSession.references = _references  # type: ignore[method-assign]
            if other_code is not None:
                print(f"{name:28} " + _compare_stages(daemon.ctx, located, other_code, args.rounds, (rel, line, col)))
            med = statistics.median
            print(f"{name:28} {reply['result']['data']['count']:5} refs, reply {sink.size:7} B: answer+encode "
                  f"{med(whole) * 1e3:6.2f} ms (+ plain_locations {med(conv) * 1e3:5.2f} ms), of which encode "
                  f"{med(enc) * 1e3:5.2f} ms"
                  + (f"; the other plain_locations {med(conv_other) * 1e3:5.2f} ms" if conv_other else ""))
            if stat_each:
                print(f"{'':28} plain_locations stat'ing each file {med(t for _, t in stat_each) * 1e3:5.2f} ms, "
                      f"under the watch's word {med(t for _, t in on_word) * 1e3:5.2f} ms "
                      f"({files.vouched_files} files vouched so far)")
    finally:
        daemon.close()
        shutil.rmtree(work.parent, ignore_errors=True)
    return 0


def _other_code(root: Path) -> tuple[Any, Any, Any]:
    """`root`'s agent/semantic/references.py, reference_page.py and target.py, loaded beside this
    checkout's (as modules of this agent.semantic package: their relative imports are this checkout's)."""
    loaded = []
    for name in ("references", "reference_page", "target"):
        spec = importlib.util.spec_from_file_location(f"agent.semantic._other_{name}",
                                                      root / "agent" / "semantic" / f"{name}.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module  # (dataclasses look their module up)
        spec.loader.exec_module(module)
        loaded.append(module)
    return loaded[0], loaded[1], loaded[2]


def _compare_stages(ctx: Any, located: Any, theirs: tuple[Any, Any, Any], rounds: int, where: tuple[str, int, int]) -> str:
    """Median thread CPU of resolve_target, from_locations and page (fresh Outlines each call, as
    a request has), this checkout's against the other's, alternating call by call."""
    import inspect

    from agent.semantic import reference_page, references, target
    from agent.semantic.outlines import Outlines

    other_refs, other_page, other_target = theirs
    times: dict[str, list[float]] = {"resolve_target": [], "resolve_target other": [], "from_locations": [],
                                     "from_locations other": [], "page": [], "page other": []}

    def paged(module: Any, refs: Any) -> Any:
        outlines = Outlines(ctx)
        extra = {"in_file": outlines.in_file} if "in_file" in inspect.signature(module.page).parameters else {}
        t0 = time.thread_time()
        got = module.page(refs.by_file, outlines.lines.line, outlines.where, offset=0, limit=10**6, budget=20000,
                          whole=True, **extra)
        return time.thread_time() - t0, got

    def timed(key: str, fn: Any, *args: Any) -> Any:
        t0 = time.thread_time()
        got = fn(*args)
        times[key].append(time.thread_time() - t0)
        return got

    for turn in range(rounds):  # which side goes first alternates too (the first call meets colder caches)
        sides = [("", target, references, reference_page), (" other", other_target, other_refs, other_page)]
        if turn % 2:
            sides.reverse()
        got = {}
        for tag, tgt, refs_module, page_module in sides:
            found = timed("resolve_target" + tag, tgt.resolve_target, ctx, *where, None)
            refs = timed("from_locations" + tag, refs_module.from_locations, ctx, located)
            dt, paged_once = paged(page_module, refs)
            times["page" + tag].append(dt)
            got[tag] = ((found.name, found.pos, found.path), (refs.by_file, refs.external),
                        (paged_once.files, paged_once.text, paged_once.whole_text, paged_once.listed,
                         paged_once.left_files))
        assert got[""] == got[" other"]
    return ", ".join(f"{key} {statistics.median(v) * 1e3:.3f} ms" for key, v in times.items())


if __name__ == "__main__":
    sys.exit(main())
