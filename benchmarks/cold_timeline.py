"""Where a cold `codeagent refs` spends its time (not part of the test suite).

    python benchmarks/cold_timeline.py [--corpus django] [--target 0] [--keep]

Copies the corpus to a scratch tree, makes sure no daemon runs, and runs one cold
`codeagent refs PATH:LINE:COL --json`. Prints the wall time and the CPU seconds (user+sys) of the
CLI, the daemon and the language server at the moment the CLI exits (read from /proc).

The daemon's CPU at that moment is what it spent before (and while) giving the first answer:
everything in it competed with the server for the cores. For the order of events inside the
daemon, benchmarks/cold_phases.py times the same work in one process.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
import bench_code  # noqa: E402

bench_code.use()  # an installed codeagent, else this checkout
sys.path.insert(0, str(HERE))

from corpora import CACHE, CORPORA, search_dirs  # noqa: E402

from agent.config import load_settings  # noqa: E402
from agent.daemon.client import DaemonClient  # noqa: E402

CODEAGENT = [str(shutil.which("codeagent"))] if shutil.which("codeagent") else [sys.executable, "-m", "agent.cli"]
TICKS = os.sysconf("SC_CLK_TCK")


def cpu_of(pid: int) -> float | None:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / TICKS


def tree_pids(pid: int) -> list[int]:
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        for task in Path(f"/proc/{p}/task").glob("*"):
            with contextlib.suppress(OSError):
                todo.extend(int(c) for c in (task / "children").read_text().split())
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus", default="django", choices=list(CORPORA))
    ap.add_argument("--target", type=int, default=0)
    ap.add_argument("--keep", action="store_true", help="reuse/keep the scratch tree")
    args = ap.parse_args()
    corpus = CORPORA[args.corpus]
    source = corpus.tree(search_dirs(None))
    work = CACHE / "cold-timeline" / source.name
    if not (args.keep and work.is_dir()):
        shutil.rmtree(work.parent, ignore_errors=True)
        shutil.copytree(source, work, symlinks=True)
    root = work.resolve()
    daemon = DaemonClient(root, load_settings(root))
    daemon.stop()
    _name, rel, line, col = corpus.targets[args.target]
    cmd = [*CODEAGENT, "refs", f"{rel}:{line}:{col}", "--root", str(root), "--json"]
    print(f"load {Path('/proc/loadavg').read_text().strip()}")
    before = os.times()
    started = time.time()
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=root, timeout=900)
    wall = time.time() - started
    after = os.times()
    pid = daemon._pid()
    cpus: dict[str, float] = {"cli": (after.children_user - before.children_user) + (after.children_system - before.children_system)}
    if pid is not None:
        pids = tree_pids(pid)
        cpus["daemon"] = cpu_of(pid) or 0.0
        cpus["servers"] = sum(cpu_of(p) or 0.0 for p in pids[1:])
    print(f"rc {proc.returncode}, wall {wall:.2f} s; CPU s: " + ", ".join(f"{k} {v:.2f}" for k, v in cpus.items()))
    if proc.returncode:
        print(proc.stdout[-1500:], proc.stderr[-1500:])
    log = root / ".codeagent" / "daemon.log"
    state_log = list(Path(daemon.state).glob("daemon.log"))
    for f in [log, *state_log]:
        if f.exists():
            print(f"--- {f}\n" + "\n".join(f.read_text().splitlines()[-8:]))
    daemon.stop()
    if not args.keep:
        shutil.rmtree(work.parent, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
