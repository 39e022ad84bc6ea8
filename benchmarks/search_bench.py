"""`search_in_files` against ripgrep run directly (not part of the test suite; issue 20, target 7).

    python benchmarks/search_bench.py [--rounds 7] [--tree PATH_OR_TARBALL] [--daemon]

On Django 5.1.4's sdist (benchmarks/index_bench.py finds or downloads it; `--tree` or
$CODEAGENT_BENCH_DJANGO may name an unpacked tree or the .tar.gz), copied to a scratch folder,
for a literal and a regex, alternating round by round:

- raw:        `rg -n --no-config --crlf --no-messages --no-require-git [-F] -e PATTERN .` in the
              tree, its output read to the end (what a person would run; rg walks and obeys the
              .gitignore files itself);
- in process: the tool through the registry in this process, in a warm session as an agent run
              or the MCP server has (imports done; with `--session watched`, the default, it
              watches its folders and reuses its walk while the watch is quiet,
              agent/semantic/session_watch.py; `--session stamped` is a session without
              inotify, reusing its walk while a stat shows no change, walkstamps.py);
- fresh:      the same in a new session each round (a fresh walk: a one-shot process's cost
              without its interpreter start and imports);
- CLI:        `codeagent tool search_in_files --no-daemon` (the whole process);
- daemon:     with `--daemon`, the same call answered by a started daemon (client in this process).
- first:      with `--first-rounds N`, the first search of N new watched sessions (as an agent run
              or the MCP server starts: `watch_later`, then the search puts the folder watch in
              place and walks): this process's CPU, which is where listing the tree once or twice
              shows.

Target: in process <= 1.3x raw for both patterns. Medians; the paired ratio is the median of
each round's codeagent/raw (neighbours in time share the machine's load). Load averages beside.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
import bench_code  # noqa: E402

bench_code.use()  # an installed codeagent, else this checkout
sys.path.insert(0, str(HERE))

from bench_bytecode import compile_codeagent  # noqa: E402
from index_bench import corpus_tree  # noqa: E402

from agent.bootstrap import load_all_tools, open_context  # noqa: E402
from agent.config import Settings  # noqa: E402
from agent.registry import Registry  # noqa: E402
from agent.ripgrep import find_rg  # noqa: E402
from agent.semantic.session_watch import watch_later, watch_session  # noqa: E402

CODEAGENT = [str(shutil.which("codeagent"))] if shutil.which("codeagent") else [sys.executable, "-m", "agent.cli"]
QUERIES = {
    "literal": {"pattern": "self.assertEqual(", "regex": False},
    "regex": {"pattern": r"def \w+_view\(", "regex": True},
}
TARGET = 1.3


def cpu() -> float:
    """CPU seconds of this process and its finished children (rg): less moved by the machine's
    load than wall time, which on a shared machine is mostly waiting for a core. (getrusage
    counts microseconds; os.times counts 10 ms ticks, too coarse for a 0.1 s call.)"""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def raw_rg(rg: str, root: Path, query: dict[str, object]) -> tuple[float, int]:
    cmd = [rg, "-n", "--no-config", "--crlf", "--no-messages", "--no-require-git", "--case-sensitive"]
    if not query["regex"]:
        cmd.append("--fixed-strings")
    cmd += ["-e", str(query["pattern"]), "."]
    started = time.perf_counter()
    out = subprocess.run(cmd, cwd=root, capture_output=True, timeout=600).stdout
    return time.perf_counter() - started, out.count(b"\n")


def loadavg() -> str:
    return " ".join(f"{x:.1f}" for x in os.getloadavg())


def own_cpu() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    return own.ru_utime + own.ru_stime


def _first_search_cpu(registry: Registry, root: Path) -> float:
    """This process's CPU for the first search of a new watched session (watch, walk, stamps)."""
    first = open_context(root, settings=Settings())
    try:
        watch_later(first)
        cpu0 = own_cpu()
        result = registry.call(first, "search_in_files", dict(QUERIES["literal"]))
        spent = own_cpu() - cpu0
        assert result.success, result.error
        return spent
    finally:
        first.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--tree", type=Path, help="an unpacked tree or a .tar.gz (default: Django 5.1.4)")
    parser.add_argument("--daemon", action="store_true", help="also through a started daemon")
    parser.add_argument("--session", choices=("watched", "stamped"), default="watched",
                        help="the in-process session: watched (an agent run's, the MCP server's) or stamped (no inotify)")
    parser.add_argument("--no-cli", action="store_true", help="skip the whole-process CLI measure")
    parser.add_argument("--first-rounds", type=int, default=0,
                        help="also time the first search of this many new watched sessions (CPU of this process)")
    parser.add_argument("--gitignore", type=Path, help="a .gitignore to write at the copy's root, e.g. "
                        "benchmarks/python.gitignore: a repository's usual rules (ripgrep obeys them too)")
    args = parser.parse_args()
    compile_codeagent()
    rg = find_rg()
    if rg is None:
        print("rg is not installed", file=sys.stderr)
        return 1
    source = corpus_tree("django", args.tree)
    scratch = Path(tempfile.mkdtemp(prefix="search-bench-"))
    root = (scratch / source.name)
    shutil.copytree(source, root, symlinks=True)
    if args.gitignore:
        shutil.copyfile(args.gitignore, root / ".gitignore")
    root = root.resolve()
    registry = load_all_tools()
    ctx = open_context(root, settings=Settings())
    if args.session == "watched" and watch_session(ctx) is None:
        print("warning: the folders cannot be watched here: the session stats instead", file=sys.stderr)
    client = None
    times: dict[str, dict[str, list[float]]] = {
        q: {"raw": [], "tool": [], "cli": [], "daemon": [], "raw_cpu": [], "tool_cpu": [], "reused": [],
            "fresh": [], "tool_reused": []} for q in QUERIES}
    counts: dict[str, tuple[int, int]] = {}
    load_before = loadavg()
    try:
        if args.daemon:
            from agent.daemon.client import DaemonClient

            subprocess.run([*CODEAGENT, "daemon", "start", "--root", str(root)], capture_output=True, timeout=600)
            client = DaemonClient(root, Settings())
        for query in QUERIES.values():  # one warm-up of each (page cache, imports, daemon)
            raw_rg(rg, root, query)
            registry.call(ctx, "search_in_files", dict(query))
            deadline = time.monotonic() + 120  # the daemon keeps walks once its folder watch is up
            while client is not None and not client.call_tool("search_in_files", dict(query))["data"].get("walk_reused"):
                if time.monotonic() > deadline:
                    print("warning: the daemon never reused its walk", file=sys.stderr)
                    break
                time.sleep(0.5)
        for _ in range(args.rounds):
            for name, query in QUERIES.items():
                cpu0 = cpu()
                seconds, lines = raw_rg(rg, root, query)
                times[name]["raw"].append(seconds)
                times[name]["raw_cpu"].append(cpu() - cpu0)
                started, cpu0 = time.perf_counter(), cpu()
                result = registry.call(ctx, "search_in_files", dict(query))
                times[name]["tool"].append(time.perf_counter() - started)
                times[name]["tool_cpu"].append(cpu() - cpu0)
                assert result.success, result.error
                counts[name] = (lines, int(result.data["total_matches"]))
                times[name]["tool_reused"].append(1.0 if result.data.get("walk_reused") else 0.0)
                fresh_ctx = open_context(root, settings=Settings())
                try:
                    started = time.perf_counter()
                    fresh = registry.call(fresh_ctx, "search_in_files", dict(query))
                    times[name]["fresh"].append(time.perf_counter() - started)
                finally:
                    fresh_ctx.close()
                assert fresh.output == result.output, "a fresh session answered differently"
                if not args.no_cli:
                    started = time.perf_counter()
                    proc = subprocess.run([*CODEAGENT, "tool", "search_in_files", "--no-daemon", "--root", str(root),
                                           "--args", json.dumps(query)], capture_output=True, timeout=600)
                    times[name]["cli"].append(time.perf_counter() - started)
                    assert proc.returncode == 0, proc.stderr
                if client is not None:
                    started = time.perf_counter()
                    reply = client.call_tool("search_in_files", dict(query))
                    times[name]["daemon"].append(time.perf_counter() - started)
                    assert reply["success"], reply
                    times[name]["reused"].append(1.0 if reply["data"].get("walk_reused") else 0.0)
        first_cpu = [_first_search_cpu(registry, root) for _ in range(args.first_rounds)]
    finally:
        ctx.close()
        if args.daemon:
            subprocess.run([*CODEAGENT, "daemon", "stop", "--root", str(root)], capture_output=True, timeout=120)
        shutil.rmtree(scratch, ignore_errors=True)
    m = statistics.median
    print(f"\n## search_in_files vs raw ripgrep, {source.name}{' + ' + args.gitignore.name if args.gitignore else ''}, {args.rounds} rounds, medians (seconds); "
          f"{os.cpu_count()} CPUs; in-process session: {args.session}; load average before {load_before}, after {loadavg()}\n")
    print("| query | matching lines (rg / tool) | raw rg | in process | ratio | paired | CPU s raw / tool | fresh session "
          "| CLI | daemon | target |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    ok = True
    for name, query in QUERIES.items():
        t = times[name]
        raw, tool = m(t["raw"]), m(t["tool"])
        paired = m(b / a for a, b in zip(t["raw"], t["tool"], strict=True))
        met = tool / raw <= TARGET
        ok &= met
        cli = f"{m(t['cli']):.3f} ({m(t['cli']) / raw:.1f}x)" if t["cli"] else "-"
        fresh = f"{m(t['fresh']):.3f} ({m(t['fresh']) / raw:.2f}x)"
        daemon = "-"
        if t["daemon"]:
            d_paired = m(b / a for a, b in zip(t["raw"], t["daemon"], strict=True))
            daemon = (f"{m(t['daemon']):.3f} ({m(t['daemon']) / raw:.2f}x, paired {d_paired:.2f}x, walk reused "
                      f"{int(sum(t['reused']))}/{len(t['reused'])}; {'met' if m(t['daemon']) / raw <= TARGET else 'MISSED'})")
        print(f"| {name} `{query['pattern']}` | {counts[name][0]} / {counts[name][1]} | {raw:.3f} | {tool:.3f} | "
              f"{tool / raw:.2f}x | {paired:.2f}x | {m(t['raw_cpu']):.2f} / {m(t['tool_cpu']):.2f} (walk reused {int(sum(t['tool_reused']))}/{len(t['tool_reused'])}) | {fresh} | {cli} | {daemon} | {'met' if met else 'MISSED'} (<= {TARGET}x) |")
    if first_cpu:
        print(f"\nfirst search of a new watched session ({QUERIES['literal']['pattern']!r}), CPU of this process: "
              f"median {m(first_cpu):.3f} s; rounds {' '.join(f'{x:.3f}' for x in first_cpu)}; load {loadavg()}")
    print("\nall rounds (s): " + "; ".join(
        f"{name} raw {' '.join(f'{x:.3f}' for x in t['raw'])} tool {' '.join(f'{x:.3f}' for x in t['tool'])}"
        f" fresh {' '.join(f'{x:.3f}' for x in t['fresh'])}"
        f" daemon {' '.join(f'{x:.3f}' for x in t['daemon'])}"
        for name, t in times.items()))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
