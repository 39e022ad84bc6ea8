"""find_references speed on large released trees, codeagent side by side with the raw language
server (not part of the test suite).

    python benchmarks/refs_bench.py [--corpus django,homeassistant,ec2] [--rounds 7]
                                    [--cold-rounds 3] [--cache-dir DIR] [--raw-settings default|bridge]
    python benchmarks/refs_bench.py --table-from a.json b.json   # one table from several runs

The corpora (benchmarks/corpora.py): Django 5.1.4 and Home Assistant 2024.3.3 (sdists, basedpyright)
and @aws-sdk/client-ec2 (npm tarball, 2,144 .d.ts files, TypeScript 7's `tsc --lsp`). Archives are
looked for in --cache-dir / $CODEAGENT_BENCH_CACHE, then benchmarks/.cache/, and downloaded there
when missing. Each corpus is copied to a scratch tree (no daemon, journal or server state carries
over). For each corpus, in one run:

- cold, alternating (codeagent first, so the raw server never runs on a warmer OS cache):
  codeagent = `codeagent refs PATH:LINE:COL --json` with no daemon (it starts the daemon, which
  starts the server), wall time of the command; the daemon is then stopped so its background work
  never overlaps the raw run. raw = start the same server command through the minimal client in
  rawlsp.py, initialize, open the file, wait for readiness, ask for references;
- warm, interleaved round by round for each target: a raw request beside one `codeagent refs`
  command (daemon up, wall time of the whole process), and another raw request beside one request to
  the daemon from this process, with the daemon process's own CPU time for it (/proc schedstat of
  its threads; the servers are excluded). Each pair's order alternates from round to round (raw,
  CLI, raw, daemon; then CLI, raw, daemon, raw), so both servers answer the same query twice a
  round: the daemon's server also answers the CLI's request, and a server's time on a request
  depends on what it did just before (`--order legacy`: raw, CLI, daemon, the order until
  2026-12-02). "warm raw" is the median of all raw requests.
  With --cold-rounds 0 the cold part is skipped (both sides start unmeasured).
- floor: once a round, a `ping` to the daemon from this process (connect, one message each way,
  no tool run): the least any answer through a separate daemon process costs on top of the
  server's. The "floor" column is (warm raw + the ping's median) / warm raw: the best "in daemon"
  ratio such a design could reach on this machine, before any work of its own.

Correctness: every location the raw server reports must be in codeagent's answer ("missing").
Targets (issue 20): cold <= 1.0x raw; warm CLI <= raw + 0.05 s; in the daemon <= 1.05x raw.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

HERE = Path(__file__).resolve().parent
import bench_code  # noqa: E402

bench_code.use()  # an installed codeagent, else this checkout
sys.path.insert(0, str(HERE))

from bench_bytecode import compile_codeagent  # noqa: E402
from corpora import CACHE, CORPORA, Corpus, search_dirs  # noqa: E402
from rawlsp import RawLsp, timed  # noqa: E402

from agent.config import load_settings  # noqa: E402
from agent.daemon.client import DaemonClient  # noqa: E402
from lsp_bridge.servers import get_spec, resolve_command  # noqa: E402

CODEAGENT = [str(shutil.which("codeagent"))] if shutil.which("codeagent") else [sys.executable, "-m", "agent.cli"]
CLI_SLACK_S = 0.05
DAEMON_RATIO = 1.05


def codeagent_refs(root: Path, rel: str, line: int, col: int) -> tuple[float, dict[str, Any]]:
    cmd = [*CODEAGENT, "refs", f"{rel}:{line}:{col}", "--root", str(root), "--json"]
    started = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=root, timeout=900)
    elapsed = time.perf_counter() - started
    if proc.returncode != 0:
        raise RuntimeError(f"codeagent refs failed ({proc.returncode}): {proc.stdout[-2000:]} {proc.stderr[-2000:]}")
    out: dict[str, Any] = json.loads(proc.stdout)
    return elapsed, out


def call_args(rel: str, line: int, col: int) -> dict[str, Any]:
    """What `codeagent refs PATH:LINE:COL` asks the daemon: every reference, the declaration too."""
    return {"file_path": rel, "line": line, "column": col, "include_declaration": True, "limit": 0}


def raw_settings(kind: str, corpus: Corpus) -> dict[str, Any] | None:
    if kind == "default" and corpus.language_id == "python":
        return None  # what a minimal client answers: every section empty (the server's defaults)
    # TypeScript: the bridge's answers always (automatic type acquisition off: it would run npm)
    return dict(get_spec(corpus.server).settings)


def raw_locations(root: Path, refs: list[Any]) -> set[tuple[str, int, int]]:
    out = set()
    for loc in refs:
        path = Path(unquote(urlparse(loc["uri"]).path))
        rel = str(path.relative_to(root)) if path.is_relative_to(root) else str(path)
        start = loc["range"]["start"]
        out.add((rel, start["line"] + 1, start["character"] + 1))
    return out


def codeagent_locations(data: dict[str, Any]) -> set[tuple[str, int, int]]:
    assert data.get("format") == 2, data.get("format")  # files -> groups by enclosing symbol -> hits
    return {(f["path"], h["line"], h["column"]) for f in data.get("files", []) for g in f["groups"] for h in g["hits"]}


def process_cpu(pid: int | None) -> float | None:
    """CPU seconds the process's threads have run (the daemon's own work: its servers are other
    processes), from /proc/PID/task/*/schedstat (nanoseconds); None when unreadable."""
    if pid is None:
        return None
    total = 0
    try:
        for task in Path(f"/proc/{pid}/task").iterdir():
            with contextlib.suppress(OSError, ValueError, IndexError):
                total += int((task / "schedstat").read_text().split()[0])
    except OSError:
        return None
    return total / 1e9


def machine() -> dict[str, Any]:
    model = ""
    with open("/proc/cpuinfo") as fh:
        model = next((line.split(":", 1)[1].strip() for line in fh if line.startswith("model name")), "")
    with open("/proc/meminfo") as fh:
        mem_kb = int(next(line.split()[1] for line in fh if line.startswith("MemTotal")))
    return {"cpu": model, "cpus": os.cpu_count(), "mem_gib": round(mem_kb / 2**20, 1),
            "kernel": platform.release(), "python": platform.python_version()}


def start_raw(command: list[str], root: Path, corpus: Corpus, rel: str, kind: str) -> RawLsp:
    raw = RawLsp(command, root, settings=raw_settings(kind, corpus))
    raw.initialize()
    raw.open(root / rel, corpus.language_id)
    if get_spec(corpus.server).readiness != "typescript-native" and not raw.ready.wait(600):
        raise RuntimeError("raw server never became ready")
    return raw  # TypeScript 7 loads the project inside the first request: ready = a file is open


def run_corpus(key: str, corpus: Corpus, args: argparse.Namespace) -> dict[str, Any]:
    source = corpus.tree(search_dirs(args.cache_dir))
    work = CACHE / "refs-bench" / source.name
    shutil.rmtree(work.parent, ignore_errors=True)
    shutil.copytree(source, work, symlinks=True)
    root = work.resolve()
    settings = load_settings(root)
    daemon = DaemonClient(root, settings)
    daemon.stop()
    command, _ = resolve_command(get_spec(corpus.server))
    files = sum(1 for p in root.rglob("*") if p.suffix in (".py", ".ts"))
    report: dict[str, Any] = {"corpus": corpus.name, "files": files, "load_start": os.getloadavg()}
    print(f"\n== {corpus.name}: {files} .py/.ts files in {root}\nraw server: {' '.join(command)}", flush=True)
    try:
        name, rel, line, col = corpus.targets[0]
        colds: dict[str, list[float]] = {"raw": [], "raw_ready": [], "codeagent": []}
        raw: RawLsp | None = None
        for _ in range(args.cold_rounds):
            if raw is not None:  # the last raw server stays up for the warm rounds; no other overlaps
                raw.close()
            daemon.stop()
            ca_cold, _out = codeagent_refs(root, rel, line, col)
            colds["codeagent"].append(ca_cold)
            print(f"codeagent cold: {ca_cold:.2f} s, {_out['data']['count']} refs", flush=True)
            deadline = time.monotonic() + 120
            while daemon.ping() is None and time.monotonic() < deadline:
                time.sleep(0.1)
            daemon.stop()
            started = time.perf_counter()
            raw = start_raw(command, root, corpus, rel, args.raw_settings)
            colds["raw_ready"].append(time.perf_counter() - started)
            _, first = timed(raw.references, root / rel, line - 1, col - 1)
            colds["raw"].append(time.perf_counter() - started)
            print(f"raw cold: {colds['raw'][-1]:.2f} s (ready after {colds['raw_ready'][-1]:.2f} s), "
                  f"{len(first)} refs", flush=True)
        if raw is None:  # --cold-rounds 0: both sides start unmeasured
            codeagent_refs(root, rel, line, col)
            raw = start_raw(command, root, corpus, rel, args.raw_settings)
            raw.references(root / rel, line - 1, col - 1)
        # Also the median of each pair's ratio: neighbours in time share the machine's load, which
        # on a shared machine moves more than anything measured here.
        report["cold"] = {} if not colds["raw"] else {"target": name, "samples": colds,
                          "paired_ratio": statistics.median(c / r for c, r in zip(colds["codeagent"], colds["raw"], strict=True)),
                          **{f"{k}_s": statistics.median(v) for k, v in colds.items()}}

        # ---- warm: each side answers every target once first (unmeasured; correctness compared)
        for other in corpus.targets[1:]:
            raw.open(root / other[1], corpus.language_id)
        targets: dict[str, dict[str, Any]] = {}
        for name, rel, line, col in corpus.targets:
            want = raw_locations(root, raw.references(root / rel, line - 1, col - 1))
            got = daemon.call_tool("find_references", call_args(rel, line, col))
            data = got.get("data") or {}
            targets[name] = {"raw_count": len(want), "codeagent_count": data.get("count"),
                             "missing": sorted(want - codeagent_locations(data))[:20],
                             "samples": {"raw": [], "raw_cli": [], "cli": [], "daemon": [], "daemon_cpu": []}}
        pinged = daemon.ping()
        daemon_pid = pinged.get("pid") if isinstance(pinged, dict) else None
        failures: list[str] = []
        pings: list[float] = []
        for rnd in range(args.rounds):
            started = time.perf_counter()
            if daemon.ping() is not None:  # the floor (module docstring)
                pings.append(time.perf_counter() - started)
            for name, rel, line, col in corpus.targets:
                s = targets[name]["samples"]

                def raw_request(into: str, rel: str = rel, line: int = line, col: int = col,
                                s: dict[str, list[float]] = s) -> None:
                    s[into].append(timed(raw.references, root / rel, line - 1, col - 1)[0])

                def cli(rel: str = rel, line: int = line, col: int = col, s: dict[str, list[float]] = s) -> None:
                    s["cli"].append(codeagent_refs(root, rel, line, col)[0])

                def in_daemon(rel: str = rel, line: int = line, col: int = col, s: dict[str, list[float]] = s) -> None:
                    cpu, started = process_cpu(daemon_pid), time.perf_counter()
                    result = daemon.call_tool("find_references", call_args(rel, line, col))
                    if not result["success"]:
                        raise RuntimeError(result["error"])
                    s["daemon"].append(time.perf_counter() - started)
                    if cpu is not None and (after := process_cpu(daemon_pid)) is not None:
                        s["daemon_cpu"].append(after - cpu)

                if args.order == "legacy":  # raw once, then the CLI and the daemon back to back
                    steps = [lambda: raw_request("raw"), cli, in_daemon]
                else:  # each server gets two requests a round, each pair adjacent, who goes first alternating
                    first = [lambda: raw_request("raw_cli"), cli, lambda: raw_request("raw"), in_daemon]
                    steps = first if rnd % 2 == 0 else [first[1], first[0], first[3], first[2]]
                try:
                    for step in steps:
                        step()
                except Exception as exc:  # noted and left out of the figures, never hidden
                    failures.append(f"round {rnd + 1} {name}: {exc}")
                    print(f"FAILED: {failures[-1][:500]}", flush=True)
            print(f"round {rnd + 1}/{args.rounds} done", flush=True)
        raw.close()
    finally:
        daemon.stop()
        if not args.keep:
            shutil.rmtree(work.parent, ignore_errors=True)
    for tgt in targets.values():
        tgt.update({f"{k}_p50_s": statistics.median(v) for k, v in tgt["samples"].items() if v})
        raws = tgt["samples"]["raw"] + tgt["samples"]["raw_cli"]  # balanced order: both raw requests
        if raws:
            tgt["raw_p50_s"] = statistics.median(raws)
        # (a failed call leaves a daemon sample out: pairs then shift, which the failures list says)
        pairs = [d / r for d, r in zip(tgt["samples"]["daemon"], tgt["samples"]["raw"], strict=False)]
        tgt["daemon_paired_ratio"] = statistics.median(pairs) if pairs else None
    report.update(targets=targets, failures=failures, load_end=os.getloadavg(),
                  ping_p50_s=statistics.median(pings) if pings else None)
    return report


def print_table(reports: dict[str, dict[str, Any]], info: dict[str, Any]) -> None:
    print("\n## find_references: raw language server vs codeagent (seconds, medians)\n")
    print("| corpus | symbol | refs raw / codeagent (missing) | cold raw | cold codeagent | cold ratio "
          "| warm raw | CLI process | CLI − raw | in daemon | daemon / raw | floor | daemon CPU |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for rep in reports.values():
        cold = rep["cold"]
        for name, t in rep["targets"].items():
            is_cold = bool(cold) and name == cold["target"]
            paired = f" ({cold['paired_ratio']:.2f}×)" if "paired_ratio" in cold else ""
            c = (f"{cold['raw_s']:.2f} | {cold['codeagent_s']:.2f} | {cold['codeagent_s'] / cold['raw_s']:.2f}×{paired}"
                 if is_cold else "| |")
            raw, cli, dmn = t.get("raw_p50_s"), t.get("cli_p50_s"), t.get("daemon_p50_s")
            dp = t.get("daemon_paired_ratio")
            cpu = t.get("daemon_cpu_p50_s")
            ping = rep.get("ping_p50_s")
            floor = f"{(raw + ping) / raw:.2f}×" if raw and ping is not None else "n/a"
            warm = (f"{raw:.3f} | {cli:.3f} | {cli - raw:+.3f} | {dmn:.3f} | {dmn / raw:.2f}×"
                    + (f" ({dp:.2f}×)" if dp else "") + f" | {floor}"
                    + (f" | {cpu:.3f}" if cpu is not None else " | n/a")
                    if raw and cli and dmn else "n/a | | | | | |")
            print(f"| {rep['corpus']} ({rep['files']} files) | {name} | {t['raw_count']} / {t['codeagent_count']} "
                  f"({len(t['missing'])}) | {c} | {warm} |")
    m = info["machine"]
    print(f"\nmachine: {m['cpu']}, {m['cpus']} cores, {m['mem_gib']} GiB, Linux {m['kernel']}, "
          f"Python {m['python']}; load average "
          + "; ".join(f"{r['corpus']}: {r['load_start'][0]:.1f} → {r['load_end'][0]:.1f}" for r in reports.values()))
    print("(in brackets: the median of each alternating pair's ratio; daemon CPU: the daemon process's own CPU "
          "seconds per request, its servers excluded; floor: (warm raw + a bare ping's round trip) / warm raw, "
          "the best in-daemon ratio a separate daemon process can reach here)")
    print("ping round trip (median): " + "; ".join(
        f"{r['corpus']}: {r['ping_p50_s'] * 1000:.2f} ms" for r in reports.values() if r.get("ping_p50_s") is not None))
    print(f"targets: cold ≤ 1.00× raw; CLI ≤ raw + {CLI_SLACK_S:.2f} s; in daemon ≤ {DAEMON_RATIO:.2f}× raw")
    for rep in reports.values():
        for f in rep["failures"]:
            print(f"failed ({rep['corpus']}): {f[:300]}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus", default=",".join(CORPORA), help=f"comma-separated, of {', '.join(CORPORA)}")
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--cold-rounds", type=int, default=3, help="cold starts of each side, alternating")
    ap.add_argument("--cache-dir", type=Path, default=None,
                    help="a folder holding the archives already (else $CODEAGENT_BENCH_CACHE, benchmarks/.cache)")
    ap.add_argument("--raw-settings", choices=["default", "bridge"], default="default",
                    help="raw pyright's workspace/configuration answers: the server defaults, or the bridge's")
    ap.add_argument("--keep", action="store_true", help="keep the scratch trees")
    ap.add_argument("--query-cache", action="store_true",
                    help="let the daemon answer repeats from its query cache (off: every warm round is the server's work, target 3)")
    ap.add_argument("--order", choices=["balanced", "legacy"], default="balanced",
                    help="warm rounds: balanced = raw, CLI, raw, daemon (then CLI, raw, daemon, raw the next "
                         "round), so each server answers twice a round; legacy = raw, CLI, daemon (until 2026-12-02)")
    ap.add_argument("--out", type=Path, default=HERE / "results" / "refs_bench.json")
    ap.add_argument("--table-from", type=Path, nargs="+", metavar="JSON",
                    help="print one table from the results of earlier runs (e.g. one run per corpus)")
    args = ap.parse_args()
    compile_codeagent()
    if not args.query_cache:  # the warm rounds repeat one query: measure the server's work, not the cache
        os.environ["CODEAGENT_QUERY_CACHE"] = "false"
    if args.table_from:
        runs = [json.loads(f.read_text()) for f in args.table_from]
        print_table({k: v for run in runs for k, v in run["corpora"].items()}, runs[0])
        return 0
    keys = [k.strip() for k in args.corpus.split(",") if k.strip()]
    unknown = [k for k in keys if k not in CORPORA]
    if unknown:
        ap.error(f"unknown corpus {', '.join(unknown)}; known: {', '.join(CORPORA)}")
    info = {"machine": machine(), "rounds": args.rounds, "cold_rounds": args.cold_rounds,
            "raw_settings": args.raw_settings}
    reports = {k: run_corpus(k, CORPORA[k], args) for k in keys}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps({**info, "corpora": reports}, indent=2))
    print_table(reports, info)
    print(f"\nresults in {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
