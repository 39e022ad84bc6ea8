"""Where the first warm find_references requests after a cold start spend their time (a profiling
tool, not part of the suite).

    python benchmarks/first_warm.py [--code DIR] [--pattern bench|b2b] [--rounds 6]

Starts the daemon through first_warm_daemon.py (the real daemon, every candidate parse recorded)
on a scratch copy of client-ec2, the query cache off. `bench`: refs_bench's warm-up and balanced
rounds (a raw tsgo request and a `codeagent refs` CLI call beside each daemon call); `b2b`: the
daemon calls only, back to back. Prints one line per daemon connection: its wall time, the server's
share, the time after the answer, who parsed how much (during the request: the prepare pool, the
request thread, the continuation; between requests), files parsed by two threads at once, the
daemon threads' CPU and the language server's CPU."""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
CODE = Path(os.environ.get("CODEAGENT_BENCH_CODE", str(HERE.parent)))
sys.path.insert(0, str(CODE))
sys.path.insert(1, str(HERE))
os.environ["CODEAGENT_QUERY_CACHE"] = "false"

from corpora import CACHE, CORPORA, search_dirs  # noqa: E402
from rawlsp import RawLsp  # noqa: E402

if str(CODE) != str(HERE.parent):  # corpora put (and imported) this checkout first again
    sys.path.insert(0, str(CODE))
    for _name in [m for m in sys.modules if m.split(".")[0] in ("agent", "lsp_bridge")]:
        del sys.modules[_name]

from traced_daemon import spawn  # noqa: E402

from agent.config import load_settings  # noqa: E402
from agent.daemon.client import DaemonClient  # noqa: E402
from lsp_bridge.servers import get_spec, resolve_command  # noqa: E402

CODEAGENT = [str(shutil.which("codeagent"))] if shutil.which("codeagent") else [sys.executable, "-m", "agent.cli"]
CLI_ENV = {**os.environ, "PYTHONPATH": str(CODE)}
TICK = os.sysconf("SC_CLK_TCK")


def call_args(rel: str, line: int, col: int) -> dict[str, Any]:  # as refs_bench asks
    return {"file_path": rel, "line": line, "column": col, "include_declaration": True, "limit": 0}


def descendants_cpu(pid: int) -> float:
    """CPU seconds of `pid`'s descendant processes (the language server), not `pid` itself."""
    kids: dict[int, list[int]] = defaultdict(list)
    for p in Path("/proc").iterdir():
        if p.name.isdigit():
            try:
                fields = (p / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            kids[int(fields[1])].append(int(p.name))
    total, todo = 0.0, list(kids[pid])
    while todo:
        child = todo.pop()
        todo += kids[child]
        try:
            fields = Path(f"/proc/{child}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += (int(fields[11]) + int(fields[12])) / TICK
    return total


def lines_of(out: Path) -> list[str]:
    return out.read_text().split("\n")[:-1] if out.exists() else []


def record_after(out: Path, count: int) -> list[dict[str, Any]]:
    deadline = time.monotonic() + 10
    while len(lines := lines_of(out)) <= count and time.monotonic() < deadline:
        time.sleep(0.002)
    return [json.loads(line) for line in lines[count:]]


def describe(rec: dict[str, Any], label: str, wall: float | None, server_cpu: float | None) -> dict[str, Any]:
    at: dict[str, float] = {}
    for stage, t, _thread in rec["events"]:
        at.setdefault(stage, t)  # the first of each
    t_acc = at.get("accepted<", at.get("answer>", 0.0))
    t_sent = at.get("sent", t_acc)
    t_answer = at.get("loop:answer>", t_sent)
    t_unc = at.get("unconfirmed_hits>", t_answer)
    inside: dict[str, list[float]] = defaultdict(lambda: [0, 0, 0.0, 0.0])  # thread -> files, chars, wall, cpu
    after_answer: dict[str, list[float]] = defaultdict(lambda: [0, 0, 0.0])
    before: list[float] = [0, 0, 0.0, 0.0]
    for _rel, chars, t0, t1, cpu, thread, *files in rec["parses"]:
        count = files[0] if files else 1
        if t1 <= t_acc:
            row = before
        else:
            row = inside[thread.split("_")[0]]
            lo = max(t0, t_unc)
            if t1 > t_unc:
                a = after_answer[thread.split("_")[0]]
                a[0] += count
                a[1] += chars
                a[2] += t1 - lo
        row[0] += count
        row[1] += chars
        row[2] += t1 - t0
        row[3] += cpu
    spans = sorted(rec["parses"], key=lambda p: p[2])
    twice = []
    for i, a in enumerate(spans):
        for b in spans[i + 1:]:
            if b[2] >= a[3]:
                break
            if a[0] == b[0] and a[5] != b[5]:
                twice.append((a[0], a[1], round(min(a[3], b[3]) - b[2], 3), a[5], b[5]))
    sched: dict[str, float] = defaultdict(float)
    for task, (cpu, _wait) in rec["sched_after"].items():
        b0 = rec["sched_before"].get(task, [0, 0])[0]
        if cpu - b0:
            sched[task.split(":", 1)[1]] += (cpu - b0) / 1e6
    return {"label": label, "wall_ms": None if wall is None else round(wall * 1e3, 1),
            "handle_ms": round((t_sent - t_acc) * 1e3, 1),
            "pool_wait_ms": round((at["search._prepare>"] - at["search.start>"]) * 1e3, 1)
            if "search._prepare>" in at and "search.start>" in at else None,
            "server_ms": round((t_answer - at.get("session.references>", t_answer)) * 1e3, 1),
            "after_answer_ms": round((t_sent - t_answer) * 1e3, 1),
            "unconfirmed_ms": round((at.get("unconfirmed_hits<", t_unc) - t_unc) * 1e3, 1),
            "parsed_between": [before[0], before[1], round(before[2], 3), round(before[3], 3)],
            "parsed_in_request": {k: [v[0], v[1], round(v[2], 3), round(v[3], 3)] for k, v in inside.items()},
            "parsed_after_answer": {k: [v[0], v[1], round(v[2], 3)] for k, v in after_answer.items()},
            "twice_at_once": twice,
            "daemon_cpu_ms": {k: round(v, 1) for k, v in sorted(sched.items(), key=lambda kv: -kv[1]) if v >= 1},
            "server_cpu_ms": None if server_cpu is None else round(server_cpu * 1e3)}


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--pattern", choices=("bench", "b2b"), default="bench")
    ap.add_argument("--rounds", type=int, default=6)
    ap.add_argument("--label", default="run")
    ap.add_argument("--dump", type=Path)
    args = ap.parse_args()
    corpus = CORPORA["ec2"]
    source = corpus.tree(search_dirs(None))
    work = CACHE / f"first-warm-{args.label}" / source.name
    shutil.rmtree(work.parent, ignore_errors=True)
    shutil.copytree(source, work, symlinks=True)
    root = work.resolve()
    out = work.parent / "trace.jsonl"
    settings = load_settings(root)
    client = DaemonClient(root, settings)
    client.stop()
    print(f"code {CODE}, pattern {args.pattern}; load {Path('/proc/loadavg').read_text().strip()}", flush=True)
    proc = spawn(client, corpus.language_id, out, "first_warm_daemon.py", {"CODEAGENT_BENCH_CODE": str(CODE)})
    raw: RawLsp | None = None
    rows: list[dict[str, Any]] = []
    try:
        if args.pattern == "bench":
            command, _ = resolve_command(get_spec(corpus.server))
            raw = RawLsp(command, root, settings=dict(get_spec(corpus.server).settings))
            raw.initialize()
            for _name, rel, _line, _col in corpus.targets:
                raw.open(root / rel, corpus.language_id)

        def daemon_call(label: str, rel: str, line: int, col: int) -> None:
            count = len(lines_of(out))
            cpu0, t0 = descendants_cpu(proc.pid), time.perf_counter()
            result = client.call_tool("find_references", call_args(rel, line, col))
            wall = time.perf_counter() - t0
            cpu = descendants_cpu(proc.pid) - cpu0
            assert result["success"], result
            recs = record_after(out, count)
            row = describe(recs[-1], label, wall, cpu)
            data = result.get("data") or {}
            row["refs"], row["unconfirmed"], row["unchecked"] = (data.get("count"), data.get("unconfirmed_count"),
                                                                 data.get("unconfirmed_unchecked_files"))
            rows.append(row)
            print(json.dumps(row), flush=True)

        def cli_call(label: str, rel: str, line: int, col: int) -> None:
            count = len(lines_of(out))
            t0 = time.perf_counter()
            subprocess.run([*CODEAGENT, "refs", f"{rel}:{line}:{col}", "--root", str(root), "--json"],
                           capture_output=True, cwd=root, timeout=300, check=True, env=CLI_ENV)
            wall = time.perf_counter() - t0
            recs = [r for r in record_after(out, count) if r["events"]]
            if recs:
                row = describe(recs[-1], label, wall, None)
                rows.append(row)
                print(json.dumps(row), flush=True)

        def raw_call(rel: str, line: int, col: int) -> None:
            assert raw is not None
            raw.references(root / rel, line - 1, col - 1)

        for name, rel, line, col in corpus.targets:  # refs_bench's warm-up: each side answers each target
            if raw is not None:
                raw_call(rel, line, col)
            daemon_call(f"warmup {name}", rel, line, col)
        for rnd in range(args.rounds):
            for name, rel, line, col in corpus.targets:
                if args.pattern == "b2b":
                    daemon_call(f"r{rnd + 1} {name}", rel, line, col)
                    continue
                where = (rel, line, col)
                steps: list[tuple[Any, tuple[Any, ...]]] = [
                    (raw_call, where), (cli_call, (f"r{rnd + 1} cli {name}", *where)),
                    (raw_call, where), (daemon_call, (f"r{rnd + 1} {name}", *where))]
                if rnd % 2:
                    steps = [steps[1], steps[0], steps[3], steps[2]]
                for step, step_args in steps:
                    step(*step_args)
        print(f"load {Path('/proc/loadavg').read_text().strip()}", flush=True)
        if args.dump:
            args.dump.write_text(json.dumps(rows))
    finally:
        if raw is not None:
            raw.close()
        client.stop()
        shutil.rmtree(work.parent, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
