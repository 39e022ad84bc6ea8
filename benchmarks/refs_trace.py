"""Where the wall time of one warm find_references goes, stage by stage (not part of the suite).

    python benchmarks/refs_trace.py --corpus ec2 [--rounds 20] [--only EC2Client]

Starts the daemon through daemon_trace.py (the real daemon with timestamps on each stage) and the
raw server through rawlsp.py, on a scratch copy of the corpus, the query cache off (as refs_bench).
Each round: one raw request, then one DaemonClient.call_tool from this process (what refs_bench
times). Prints, per target, the median gap between consecutive stages (the client's send and
receive included), the server's own time inside the daemon's request (request written → answer
read) beside the raw request, and the daemon threads' CPU and run-queue wait per request."""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
# CODEAGENT_BENCH_CODE: another checkout's code (e.g. main's, for a before/after on the same run)
sys.path.insert(0, os.environ.get("CODEAGENT_BENCH_CODE", str(HERE.parent)))
sys.path.insert(0, str(HERE))
os.environ["CODEAGENT_QUERY_CACHE"] = "false"

from bench_bytecode import compile_codeagent  # noqa: E402
from corpora import CACHE, CORPORA, search_dirs  # noqa: E402
from rawlsp import RawLsp  # noqa: E402

if os.environ.get("CODEAGENT_BENCH_CODE"):  # corpora put (and imported) this checkout first again
    sys.path.insert(0, os.environ["CODEAGENT_BENCH_CODE"])
    for _name in [m for m in sys.modules if m.split(".")[0] in ("agent", "lsp_bridge")]:
        del sys.modules[_name]

from traced_daemon import spawn  # noqa: E402

from agent.config import load_settings  # noqa: E402
from agent.daemon.client import DaemonClient  # noqa: E402
from lsp_bridge.servers import get_spec, resolve_command  # noqa: E402

CODEAGENT = [str(shutil.which("codeagent"))] if shutil.which("codeagent") else [sys.executable, "-m", "agent.cli"]
# The CLI runs the daemon's code too (another build would restart the daemon).
CLI_ENV = ({**os.environ, "PYTHONPATH": os.environ["CODEAGENT_BENCH_CODE"]} if os.environ.get("CODEAGENT_BENCH_CODE")
           else None)


def call_args(rel: str, line: int, col: int) -> dict[str, Any]:  # as refs_bench asks
    return {"file_path": rel, "line": line, "column": col, "include_declaration": True, "limit": 0}


def start_raw(command: list[str], root: Path, language_id: str, server: str, rel: str) -> RawLsp:
    """As refs_bench starts it with --raw-settings bridge (refs_bench is not imported: it puts this
    checkout's code first on the path, and CODEAGENT_BENCH_CODE may name another)."""
    raw = RawLsp(command, root, settings=dict(get_spec(server).settings))
    raw.initialize()
    raw.open(root / rel, language_id)
    if get_spec(server).readiness != "typescript-native" and not raw.ready.wait(600):
        raise RuntimeError("raw server never became ready")
    return raw


def complete_lines(out: Path) -> list[str]:
    """The trace's lines written whole (the daemon may be writing the next one)."""
    return out.read_text().split("\n")[:-1]


def last_tool_trace(out: Path, after: int) -> dict[str, Any]:
    """The tool request's record among those written after the first `after` lines (the daemon
    writes it once the reply is sent, so it may come a moment after the reply)."""
    deadline = time.monotonic() + 10
    lines = complete_lines(out)
    while len(lines) <= after and time.monotonic() < deadline:
        time.sleep(0.005)
        lines = complete_lines(out)
    for line in reversed(lines[after:]):
        try:
            rec = json.loads(line)
        except json.JSONDecodeError:  # the daemon is still writing it
            time.sleep(0.05)
            return last_tool_trace(out, after)
        if any(e[0] == "calls.call>" for e in rec["events"]):
            return rec  # type: ignore[no-any-return]
    raise RuntimeError("no traced tool request")


def stages(rec: dict[str, Any], t0: float, t1: float) -> list[tuple[str, float, str]]:
    events = [("client: call_tool>", t0, "client"), *[tuple(e) for e in rec["events"]], ("client: call_tool<", t1, "client")]
    events.sort(key=lambda e: e[1])
    seen: dict[str, int] = defaultdict(int)
    named = []
    for label, at, thread in events:
        seen[label] += 1
        named.append((label if seen[label] == 1 else f"{label}#{seen[label]}", at, thread))
    return named  # type: ignore[return-value]


def answer_read(named: list[tuple[str, float, str]]) -> float | None:
    """When the bridge began dispatching the request's answer (the `loop:dispatch>` mark before the
    first `loop:dispatch answer` one), or None."""
    for i, (label, _at, _thread) in enumerate(named):
        if label.startswith("loop:dispatch answer"):
            return next((at for lab, at, _ in reversed(named[:i]) if lab.startswith("loop:dispatch>")), None)
    return None


def sched_delta(rec: dict[str, Any]) -> tuple[float, float, dict[str, tuple[float, float]]]:
    per = {}
    for task, (cpu, wait) in rec["sched_after"].items():
        b = rec["sched_before"].get(task, [0, 0])
        if cpu - b[0] or wait - b[1]:
            per[task] = ((cpu - b[0]) / 1e6, (wait - b[1]) / 1e6)
    return sum(c for c, _ in per.values()), sum(w for _, w in per.values()), per


class _Stamped(dict):  # type: ignore[type-arg]
    """RawLsp's results: stamps the moment its reader stores an answer."""

    def __init__(self, stamps: dict[str, float]):
        super().__init__()
        self.stamps = stamps

    def __setitem__(self, key: Any, value: Any) -> None:
        self.stamps["read"] = time.perf_counter()
        super().__setitem__(key, value)


def stamp_raw(raw: Any) -> dict[str, float]:
    """When the raw client wrote its last request and read its last answer (its reader stores it)."""
    stamps: dict[str, float] = {}
    raw._results = _Stamped(stamps)
    send = raw._send

    def sent(obj: dict[str, Any]) -> None:
        send(obj)
        if obj.get("method") == "textDocument/references":
            stamps["sent"] = time.perf_counter()
    raw._send = sent
    return stamps


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--corpus", default="ec2")
    ap.add_argument("--rounds", type=int, default=20)
    ap.add_argument("--only", help="measure only the target of this name")
    ap.add_argument("--settle", type=float, default=5.0, help="seconds of idle after the warm-up")
    ap.add_argument("--before", choices=("none", "cli"), default="none",
                    help="cli: a `codeagent refs` CLI call of the same query right before each measured "
                         "call, as refs_bench makes it (its after-request work may overlap the call)")
    ap.add_argument("--dump", type=Path, help="write every request's stages here (JSON)")
    args = ap.parse_args()
    compile_codeagent()
    corpus = CORPORA[args.corpus]
    source = corpus.tree(search_dirs(None))
    work = CACHE / "refs-trace" / source.name
    shutil.rmtree(work.parent, ignore_errors=True)
    shutil.copytree(source, work, symlinks=True)
    root = work.resolve()
    out = work.parent / "trace.jsonl"
    settings = load_settings(root)
    client = DaemonClient(root, settings)
    client.stop()
    proc = spawn(client, corpus.language_id, out, "daemon_trace.py")
    command, _ = resolve_command(get_spec(corpus.server))
    try:
        name0, rel0, line0, col0 = corpus.targets[0]
        raw = start_raw(command, root, corpus.language_id, corpus.server, rel0)
        raw_stamps = stamp_raw(raw)
        for _name, rel, _line, _col in corpus.targets[1:]:
            raw.open(root / rel, corpus.language_id)
        for _ in range(3):  # both sides answer every target first; the daemon builds its listing
            for _name, rel, line, col in corpus.targets:
                raw.references(root / rel, line - 1, col - 1)
                client.call_tool("find_references", call_args(rel, line, col))
            time.sleep(args.settle)
        targets = [t for t in corpus.targets if not args.only or t[0] == args.only]
        rows: dict[str, dict[str, Any]] = {t[0]: {"gaps": defaultdict(list), "order": None, "raw": [], "wall": [],
                                                   "server": [], "raw_server": [], "raw_pre": [], "raw_post": [],
                                                   "pre": [], "post": [], "cpu": [], "wait": [], "threads": defaultdict(list),
                                                   "after": defaultdict(list)}
                                           for t in targets}
        for _ in range(args.rounds):
            for name, rel, line, col in targets:
                row = rows[name]
                raw_stamps.clear()
                r0 = time.perf_counter()
                _refs = raw.references(root / rel, line - 1, col - 1)
                r1 = time.perf_counter()
                row["raw"].append(r1 - r0)
                if "sent" in raw_stamps and "read" in raw_stamps:  # the raw client's own share
                    row["raw_server"].append(raw_stamps["read"] - raw_stamps["sent"])
                    row["raw_pre"].append(raw_stamps["sent"] - r0)
                    row["raw_post"].append(r1 - raw_stamps["read"])
                if args.before == "cli":  # as refs_bench: the CLI's call, then at once the measured one
                    count = len(complete_lines(out))
                    subprocess.run([*CODEAGENT, "refs", f"{rel}:{line}:{col}", "--root", str(root), "--json"],
                                   capture_output=True, cwd=root, timeout=300, check=True, env=CLI_ENV)
                    deadline = time.monotonic() + 10  # the CLI's record is written once its reply is sent
                    while len(lines := complete_lines(out)) <= count and time.monotonic() < deadline:
                        time.sleep(0.002)
                    before = len(lines)
                else:
                    time.sleep(0.05)
                    before = len(complete_lines(out))
                t0 = time.perf_counter()
                result = client.call_tool("find_references", call_args(rel, line, col))
                t1 = time.perf_counter()
                assert result["success"], result
                row["wall"].append(t1 - t0)
                rec = last_tool_trace(out, before)
                named = stages(rec, t0, t1)
                if row["order"] is None:
                    row["order"] = [(label, thread) for label, _at, thread in named]
                for (a, ta, _), (b, tb, _) in zip(named, named[1:], strict=False):
                    row["gaps"][(a, b)].append(tb - ta)
                at = {label: t for label, t, _ in named}
                for label, t, _thread in named:  # the previous request's after-work, from the call's start
                    if label.startswith("after:") and label.endswith("<") or label.startswith("code_occurrences<"):
                        row["after"][label].append(t - t0)
                # The answer is read when the dispatch that names it began: pyright's first message is
                # its window/workDoneProgress/create request (and $/progress follow), not the answer.
                read = answer_read(named)
                if "search.start>" in at and read is not None:
                    row["server"].append(read - at["search.start>"])
                    row["pre"].append(at["search.start>"] - t0)
                    row["post"].append(t1 - read)
                row.setdefault("records", []).append([(label, at - t0, thread) for label, at, thread in named])
                cpu, wait, per = sched_delta(rec)
                row["cpu"].append(cpu)
                row["wait"].append(wait)
                for task, (c, w) in per.items():
                    tid = task.split(":", 1)[0]
                    row["threads"][rec["threads"].get(tid, f"thread {tid} (gone)")].append((c, w))
                time.sleep(0.05)
        print(f"load {Path('/proc/loadavg').read_text().strip()}")
        if args.dump:
            args.dump.write_text(json.dumps({name: {"raw": row["raw"], "wall": row["wall"], "records": row["records"]}
                                             for name, row in rows.items()}))
        for name, row in rows.items():
            med = statistics.median
            raw_ms, wall_ms = med(row["raw"]) * 1e3, med(row["wall"]) * 1e3
            server = med(row["server"]) * 1e3 if row["server"] else float("nan")
            print(f"\n== {name}: raw {raw_ms:.1f} ms, daemon call {wall_ms:.1f} ms ({wall_ms / raw_ms:.2f}x; pairs "
                  f"{med(w / r for w, r in zip(row['wall'], row['raw'], strict=True)):.2f}x), server inside the daemon "
                  f"(request written -> answer read) {server:.1f} ms; daemon CPU {med(row['cpu']):.1f} ms, "
                  f"run-queue wait {med(row['wait']):.1f} ms per request")
            print(f"  raw client: {med(row['raw_pre']) * 1e3:.2f} ms before the request is written, server "
                  f"{med(row['raw_server']) * 1e3:.1f} ms, {med(row['raw_post']) * 1e3:.2f} ms after the answer is read")
            print(f"  daemon:     {med(row['pre']) * 1e3:.2f} ms before the request is written, server "
                  f"{med(row['server']) * 1e3:.1f} ms, {med(row['post']) * 1e3:.2f} ms after the answer is read")
            order = row["order"]
            for (a, _), (b, thread) in zip(order, order[1:], strict=False):
                gaps = row["gaps"].get((a, b))
                if gaps and len(gaps) >= len(row["wall"]) // 2:
                    print(f"  {med(gaps) * 1e3:7.2f} ms  {a:28} -> {b:28} [{thread}]")
            for label, ends in sorted(row["after"].items()):
                print(f"  {label:28} ends {med(ends) * 1e3:+7.2f} ms from the call's start (max "
                      f"{max(ends) * 1e3:+.2f}; in {len(ends)} of {len(row['wall'])} records)")
            for thread, vals in sorted(row["threads"].items()):
                print(f"  thread {thread:24} cpu {med(v[0] for v in vals):6.2f} ms  wait {med(v[1] for v in vals):6.2f} ms"
                      f"  (in {len(vals)} of {len(row['wall'])} requests)")
        raw.close()
    finally:
        client.stop()
        proc.wait(30)
        shutil.rmtree(work.parent, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
