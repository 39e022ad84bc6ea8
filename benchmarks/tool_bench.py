"""`codeagent tool NAME` through the warm daemon, against the same call made inside the daemon
(not part of the test suite; issue 15, point 9).

    python benchmarks/tool_bench.py [--rounds 15]

Uses the Django 5.1.4 sdist of benchmarks/index_bench.py (downloaded once into benchmarks/.cache/),
copied to a scratch tree. One `codeagent refs` starts the daemon and waits for the server; then,
interleaved round by round for read_file and find_references:

- CLI:       `codeagent tool NAME --args JSON` (wall time of the whole process: Python start-up,
             the fast path, the answer, printing);
- in daemon: the same request sent from this process with the daemon client (the answer without
             the CLI's start-up).

Target: the CLI's median within 0.1 s of the in-daemon median for both tools.
"""

from __future__ import annotations

import argparse
import json
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

from index_bench import django_tree  # noqa: E402

from agent.config import load_settings  # noqa: E402
from agent.daemon.client import DaemonClient  # noqa: E402

CODEAGENT = [str(shutil.which("codeagent"))] if shutil.which("codeagent") else [sys.executable, "-m", "agent.cli"]
CALLS = {
    "read_file": {"file_path": "django/db/models/query.py", "start_line": 280, "end_line": 320},
    "find_references": {"file_path": "django/contrib/auth/__init__.py", "line": 183, "column": 5},
}
TARGET_S = 0.1


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=15)
    opts = parser.parse_args()
    scratch = Path(tempfile.mkdtemp(prefix="tool-bench-"))
    root = scratch / "django"
    shutil.copytree(django_tree(), root, symlinks=True)
    root = root.resolve()
    try:
        started = time.perf_counter()
        first = subprocess.run([*CODEAGENT, "refs", "django/contrib/auth/__init__.py:183:5", "--root", str(root),
                                "--json"], capture_output=True, text=True, timeout=1800)
        print(f"Django tree: {root}\ncold `codeagent refs` (starts the daemon): "
              f"{time.perf_counter() - started:.2f} s, exit {first.returncode}", flush=True)
        client = DaemonClient(root, load_settings(root))
        cli_times: dict[str, list[float]] = {name: [] for name in CALLS}
        daemon_times: dict[str, list[float]] = {name: [] for name in CALLS}
        for _ in range(opts.rounds):
            for name, args in CALLS.items():
                t0 = time.perf_counter()
                proc = subprocess.run([*CODEAGENT, "tool", name, "--root", str(root), "--args", json.dumps(args)],
                                      capture_output=True, text=True, timeout=600)
                cli_times[name].append(time.perf_counter() - t0)
                if proc.returncode != 0 or not json.loads(proc.stdout)["success"]:
                    print(f"{name} failed: {proc.stderr or proc.stdout[:500]}", file=sys.stderr)
                    return 1
                t0 = time.perf_counter()
                result = client.call_tool(name, args)
                daemon_times[name].append(time.perf_counter() - t0)
                assert result["success"], result
        print(f"\n## `codeagent tool` warm vs in daemon, Django 5.1.4, {opts.rounds} rounds (seconds)\n")
        print("| tool | CLI p50 | CLI min | in daemon p50 | difference p50 | target |")
        print("|---|---|---|---|---|---|")
        ok = True
        for name in CALLS:
            cli50, d50 = statistics.median(cli_times[name]), statistics.median(daemon_times[name])
            met = cli50 - d50 <= TARGET_S
            ok &= met
            print(f"| {name} | {cli50:.3f} | {min(cli_times[name]):.3f} | {d50:.3f} | {cli50 - d50:+.3f} | "
                  f"{'met' if met else 'MISSED'} (<= {TARGET_S}) |")
        return 0 if ok else 1
    finally:
        subprocess.run([*CODEAGENT, "daemon", "stop", "--root", str(root)], capture_output=True, timeout=120)
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
