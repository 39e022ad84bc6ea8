"""What several workspaces' daemons share (not part of the test suite).

    python benchmarks/mem_share.py [--workspaces 3] [--fixture fixtures/pyproj]

Copies the fixture project N times, answers one `codeagent refs` in each (N daemons, N servers),
and reads /proc/PID/smaps_rollup of every daemon and server: RSS counts a shared page in each
process, PSS divides it among the processes mapping it, so (sum RSS - sum PSS) is what sharing
saves; Private_Dirty is what each process holds alone (its Python or V8 heap). Figures in MiB.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
CODEAGENT = [str(shutil.which("codeagent"))] if shutil.which("codeagent") else [sys.executable, "-m", "agent.cli"]
FIELDS = ("Rss", "Pss", "Shared_Clean", "Private_Dirty")


def rollup(pid: int) -> dict[str, float]:
    out = dict.fromkeys(FIELDS, 0.0)
    with open(f"/proc/{pid}/smaps_rollup", encoding="ascii") as f:
        for line in f:
            key, _, rest = line.partition(":")
            if key in out:
                out[key] = int(rest.split()[0]) / 1024
    return out


def processes() -> dict[int, tuple[int, str]]:
    found = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text(encoding="ascii", errors="replace")
                cmd = Path(f"/proc/{entry}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            except OSError:
                continue
            found[int(entry)] = (int(stat[stat.rfind(")") + 2:].split()[1]), cmd.strip())
    return found


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--workspaces", type=int, default=3)
    ap.add_argument("--fixture", type=Path, default=HERE.parent / "fixtures" / "pyproj")
    ap.add_argument("--target", default="shapes/geometry.py:30:5")
    args = ap.parse_args()
    scratch = Path(tempfile.mkdtemp(prefix="codeagent-mem-share-")).resolve()
    roots = [scratch / f"w{i}" for i in range(args.workspaces)]
    env = {**os.environ, "CODEAGENT_CONFIG": os.devnull}
    try:
        for root in roots:
            shutil.copytree(args.fixture, root)
            subprocess.run([*CODEAGENT, "refs", args.target, "--root", str(root), "--json"], env=env,
                           capture_output=True, check=True, timeout=600)
        time.sleep(5)  # the daemons' work after their first answer
        procs = processes()
        rows: dict[str, list[dict[str, float]]] = {"daemon": [], "server": []}
        for pid, (_parent, cmd) in procs.items():
            if any(cmd == f"codeagent daemon {root}" for root in roots):
                rows["daemon"].append(rollup(pid))
                rows["server"].extend(rollup(c) for c, (p, ccmd) in procs.items() if p == pid and "langserver" in ccmd)
        print(f"## {args.workspaces} workspaces ({args.fixture.name}): daemons and servers (MiB)\n")
        print("| process | count | RSS sum | PSS sum | shared clean (each) | private dirty (each) | saved by sharing |")
        print("|---|---|---|---|---|---|---|")
        for kind, items in rows.items():
            if not items:
                continue
            rss, pss = sum(i["Rss"] for i in items), sum(i["Pss"] for i in items)
            print(f"| {kind} | {len(items)} | {rss:.0f} | {pss:.0f} | {items[0]['Shared_Clean']:.0f} | "
                  f"{sum(i['Private_Dirty'] for i in items) / len(items):.0f} | {rss - pss:.0f} |")
        print(f"\nload average: {', '.join(f'{x:.1f}' for x in os.getloadavg())}")
    finally:
        for root in roots:
            subprocess.run([*CODEAGENT, "daemon", "stop", "--root", str(root)], env=env, capture_output=True, timeout=120)
        shutil.rmtree(scratch, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
