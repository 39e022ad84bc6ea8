"""One-shot `codeagent tool NAME --args JSON` with no daemon: CPU time of the whole command
(user+sys of the process and its children, e.g. rg), alternating between code trees
(not part of the test suite; issue 20).

    python benchmarks/oneshot_bench.py --rounds 9 ours=/work/wt/oneshot2 main=/work/wt/snap

Each tree is run as `python -c 'from agent.entry import main; ...' tool ...` with PYTHONPATH set
to the tree, by this interpreter (use one without an editable install of codeagent, or every
tree pays its finder alike), after compiling the tree's bytecode as an installed package has it
(bench_bytecode.py). The Django 5.1.4 sdist of index_bench.py is copied to a scratch tree once.
Every call's stdout (and exit code) must be the same for every tree, or the bench says so.
"""

from __future__ import annotations

import argparse
import compileall
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
sys.path.insert(0, str(HERE))

from index_bench import django_tree  # noqa: E402

CALLS: dict[str, tuple[str, dict[str, object]]] = {
    "read_file": ("read_file", {"file_path": "django/db/models/query.py", "start_line": 280, "end_line": 320}),
    "search_in_files": ("search_in_files", {"pattern": "def get_user_model", "regex": False}),
    "list_symbols": ("list_symbols", {"path": "django/db/models/query.py", "depth": 1}),
    "get_ast": ("get_ast", {"file_path": "django/contrib/auth/__init__.py", "line": 183, "depth": 1}),
    "bad_args": ("read_file", {"file_path": "x.py", "start_line": "one"}),
}
ENTRY = "import sys; from agent.entry import main; sys.exit(main())"


def cpu_of(cmd: list[str], env: dict[str, str], cwd: Path) -> tuple[float, float, subprocess.CompletedProcess[bytes]]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, env=env, cwd=cwd, capture_output=True, timeout=600)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime, wall, proc


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--calls", default=",".join(CALLS))
    parser.add_argument("trees", nargs="+", help="NAME=FOLDER (a codeagent checkout)")
    opts = parser.parse_args()
    trees = dict(t.split("=", 1) for t in opts.trees)
    for folder in trees.values():
        for pkg in ("agent", "lsp_bridge"):
            compileall.compile_dir(str(Path(folder) / pkg), quiet=1)
    scratch = Path(tempfile.mkdtemp(prefix="oneshot-bench-"))
    root = scratch / "django"
    shutil.copytree(django_tree(), root, symlinks=True)
    calls = {k: CALLS[k] for k in opts.calls.split(",")}
    cpu: dict[tuple[str, str], list[float]] = {(t, c): [] for t in trees for c in calls}
    wall: dict[tuple[str, str], list[float]] = {(t, c): [] for t in trees for c in calls}
    outs: dict[str, set[tuple[int, bytes]]] = {c: set() for c in calls}
    print(f"load {Path('/proc/loadavg').read_text().strip()}", flush=True)
    try:
        for r in range(opts.rounds):
            order = list(trees.items()) if r % 2 == 0 else list(reversed(trees.items()))
            for call, (name, args) in calls.items():
                for tname, folder in order:
                    env = dict(os.environ, PYTHONPATH=folder)
                    cmd = [sys.executable, "-c", ENTRY, "tool", name, "--root", str(root), "--args", json.dumps(args)]
                    c, w, proc = cpu_of(cmd, env, scratch)  # (not a checkout: `-c` puts the cwd first)
                    if r:  # the first round warms the page cache (and the settings snapshot, if any)
                        cpu[tname, call].append(c)
                        wall[tname, call].append(w)
                    outs[call].add((proc.returncode, proc.stdout + proc.stderr))
        print(f"load {Path('/proc/loadavg').read_text().strip()}\n")
        print(f"| call | {' | '.join(f'{t} CPU p50 (min)' for t in trees)} | {' | '.join(f'{t} wall p50' for t in trees)} | same output |")
        print(f"|---|{'---|' * (2 * len(trees))}---|")
        for call in calls:
            cells = [f"{statistics.median(cpu[t, call]):.3f} ({min(cpu[t, call]):.3f})" for t in trees]
            walls = [f"{statistics.median(wall[t, call]):.3f}" for t in trees]
            print(f"| {call} | {' | '.join(cells)} | {' | '.join(walls)} | {len(outs[call]) == 1} |")
        return 0 if all(len(o) == 1 for o in outs.values()) else 1
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
