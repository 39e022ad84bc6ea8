"""Peak memory of codeagent (daemon + its language servers) answering find_references, beside raw
basedpyright (the minimal client in rawlsp.py) answering the same (not part of the test suite).

    python benchmarks/mem_bench.py [--corpus django|homeassistant|all] [--pairs 2] [--rounds 3]

Corpora: corpora.py's trees (the sdists found in --cache-dir, $CODEAGENT_BENCH_CACHE or
benchmarks/.cache, else downloaded), copied into a scratch folder (--scratch) per run, so no
daemon, journal or server state carries over.

One pair, raw first, then codeagent (pairs alternate, so neither side always meets a colder OS cache):

- raw:       start basedpyright (the bridge's command line), initialize, open the first target,
             wait until ready, ask for references to each target, then --rounds more passes;
- codeagent: `codeagent refs` for each target (the first starts the daemon, which starts the
             server), let the daemon's background work after its first answer run (--settle s),
             then --rounds more passes of `codeagent refs`.

Memory is the process tree's: the raw server (node) alone; the daemon plus every process under it
(servers, index workers), never the short-lived CLI processes. A sampler reads /proc every 50 ms:
`peak` is the highest sum of VmRSS seen at one instant, `hwm` the sum of each process's VmHWM
(its own peak; an upper bound, since the peaks need not coincide). Figures are MiB; the target
(issue 20) is codeagent peak <= 1.2x raw peak.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
import bench_code  # noqa: E402

bench_code.use()  # an installed codeagent, else this checkout
sys.path.insert(0, str(HERE))

import corpora  # noqa: E402
from rawlsp import RawLsp  # noqa: E402

from agent.config import load_settings  # noqa: E402
from agent.daemon.client import DaemonClient  # noqa: E402
from lsp_bridge.servers import get_spec, resolve_command  # noqa: E402

CORPORA: dict[str, tuple[str, list[tuple[str, str, int, int]]]] = {  # corpora.py's key: (folder, targets)
    "django": ("Django-5.1.4", [
        ("QuerySet", "django/db/models/query.py", 293, 7),
        ("get_user_model", "django/contrib/auth/__init__.py", 183, 5),
        ("override_settings", "django/test/utils.py", 458, 7),
    ]),
    "homeassistant": ("homeassistant-2024.3.3", [
        ("HomeAssistant", "homeassistant/core.py", 357, 7),
        ("callback", "homeassistant/core.py", 216, 5),
        ("async_add_executor_job", "homeassistant/core.py", 675, 9),
    ]),
}
CODEAGENT = [str(shutil.which("codeagent"))] if shutil.which("codeagent") else [sys.executable, "-m", "agent.cli"]
TARGET_RATIO = 1.2
MIB = 1024 * 1024


# -- /proc ------------------------------------------------------------------------------------------

def _status_kib(pid: int, field: str) -> int:
    try:
        with open(f"/proc/{pid}/status", encoding="ascii", errors="replace") as f:
            for line in f:
                if line.startswith(field):
                    return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        pass
    return 0


def _name(pid: int) -> str:
    """The process's command line, shortened (which server, daemon or worker it is)."""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            words = f.read().split(b"\0")
    except OSError:
        return "?"
    return " ".join(Path(w.decode(errors="replace")).name for w in words[:3] if w)[:80]


def tree(root_pid: int) -> list[int]:
    """`root_pid` and every process below it."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", encoding="ascii", errors="replace") as f:
                stat = f.read()
        except OSError:
            continue
        ppid = int(stat[stat.rfind(")") + 2:].split()[1])
        children.setdefault(ppid, []).append(int(entry))
    found, todo = [], [root_pid]
    while todo:
        pid = todo.pop()
        found.append(pid)
        todo.extend(children.get(pid, []))
    return found


class Sampler:
    """Peak summed RSS of a process tree, sampled on a thread; the root may change (set `pid`)."""

    def __init__(self) -> None:
        self.pid: int | None = None
        self.peak_kib = 0
        self.hwm_kib: dict[int, int] = {}
        self.names: dict[int, str] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.wait(0.05):
            self.sample()

    def sample(self) -> None:
        if self.pid is None:
            return
        total = 0
        for pid in tree(self.pid):
            total += _status_kib(pid, "VmRSS:")
            hwm = _status_kib(pid, "VmHWM:")
            if hwm:
                self.hwm_kib[pid] = max(self.hwm_kib.get(pid, 0), hwm)
                if pid not in self.names:
                    self.names[pid] = _name(pid)
        self.peak_kib = max(self.peak_kib, total)

    def stop(self) -> dict[str, Any]:
        if not self._stop.is_set():
            self.sample()
            self._stop.set()
            self._thread.join()
        return {"peak_mib": self.peak_kib / 1024, "hwm_mib": sum(self.hwm_kib.values()) / 1024,
                "processes": len(self.hwm_kib),
                "by_process_mib": {f"{pid} {self.names.get(pid, '?')}": kib / 1024 for pid, kib in self.hwm_kib.items()}}


# -- the two sides ----------------------------------------------------------------------------------

def codeagent_refs(root: Path, rel: str, line: int, col: int) -> int:
    cmd = [*CODEAGENT, "refs", f"{rel}:{line}:{col}", "--root", str(root), "--json"]
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=root, timeout=900)
    if proc.returncode != 0:
        raise RuntimeError(f"codeagent refs failed ({proc.returncode}): {proc.stdout[-1000:]} {proc.stderr[-1000:]}")
    count: int = json.loads(proc.stdout)["data"]["count"]
    return count


def run_codeagent(root: Path, targets: list[tuple[str, str, int, int]], rounds: int, settle: float) -> dict[str, Any]:
    daemon = DaemonClient(root, load_settings(root))
    daemon.stop()
    sampler = Sampler()
    started = time.perf_counter()
    counts: dict[str, int] = {}
    try:
        _name, rel, line, col = targets[0]
        cli = threading.Thread(target=lambda: counts.__setitem__(targets[0][0], codeagent_refs(root, rel, line, col)))
        cli.start()
        while cli.is_alive() and sampler.pid is None:  # follow the daemon from its first breath
            info = daemon.ping()
            if info is not None:
                sampler.pid = int(info["pid"])
            time.sleep(0.05)
        cli.join()
        if sampler.pid is None:
            info = daemon.ping()
            sampler.pid = int(info["pid"]) if info else None
        for name, rel, line, col in targets[1:]:
            counts[name] = codeagent_refs(root, rel, line, col)
        time.sleep(settle)  # the listing and prefetch that follow the first answer
        for _ in range(rounds):
            for name, rel, line, col in targets:
                counts[name] = codeagent_refs(root, rel, line, col)
        return {**sampler.stop(), "seconds": time.perf_counter() - started, "counts": counts}
    finally:
        sampler.stop()
        daemon.stop()


def raw_settings(kind: str, root: Path) -> dict[str, Any] | None:
    """What the raw server's workspace/configuration requests are answered: every section empty
    (the server's defaults: it finds the Python on PATH and reads its site-packages), or exactly
    what the bridge answers (its settings merged with the per-workspace ones: no interpreter)."""
    if kind == "default":
        return None
    spec = get_spec("basedpyright")
    merged: dict[str, Any] = json.loads(json.dumps(spec.settings))
    extra = spec.workspace_settings(root) if spec.workspace_settings else {}
    for section, value in extra.items():
        target = merged.setdefault(section, {})
        for key, sub in value.items():
            if isinstance(sub, dict) and isinstance(target.get(key), dict):
                target[key] = {**target[key], **sub}
            else:
                target[key] = sub
    return merged


def run_raw(root: Path, targets: list[tuple[str, str, int, int]], rounds: int, settle: float,
            settings_kind: str = "bridge") -> dict[str, Any]:
    command, _ = resolve_command(get_spec("basedpyright"))
    sampler = Sampler()
    started = time.perf_counter()
    raw = RawLsp(command, root, settings=raw_settings(settings_kind, root))
    sampler.pid = raw.proc.pid
    counts: dict[str, int] = {}
    try:
        raw.initialize()
        raw.open(root / targets[0][1])
        if not raw.ready.wait(900):
            raise RuntimeError("raw server never became ready")
        for name, rel, line, col in targets:
            raw.open(root / rel)
            counts[name] = len(raw.references(root / rel, line - 1, col - 1))
        time.sleep(settle)
        for _ in range(rounds):
            for name, rel, line, col in targets:
                counts[name] = len(raw.references(root / rel, line - 1, col - 1))
        return {**sampler.stop(), "seconds": time.perf_counter() - started, "counts": counts}
    finally:
        sampler.stop()
        raw.close()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus", choices=[*CORPORA, "all"], default="all")
    ap.add_argument("--pairs", type=int, default=2, help="raw/codeagent pairs per corpus (medians reported)")
    ap.add_argument("--rounds", type=int, default=3, help="warm passes over the targets after the first")
    ap.add_argument("--settle", type=float, default=15.0, help="seconds between the first pass and the warm ones")
    ap.add_argument("--raw-settings", choices=["bridge", "default"], default="bridge",
                    help="the raw server's settings: the bridge's (the same work), or the server's defaults")
    ap.add_argument("--cache-dir", type=Path, default=None,
                    help="a folder holding the sdists already (else $CODEAGENT_BENCH_CACHE, benchmarks/.cache)")
    ap.add_argument("--scratch", type=Path, default=Path("/tmp/codeagent-mem-bench"))
    ap.add_argument("--out", type=Path, default=HERE / "results" / "mem_bench.json")
    args = ap.parse_args()

    # A loaded machine answers 13,000 references in more than the default 60 s: the same patience
    # for both sides (the raw client waits up to 300 s per request). A user config: a limit the
    # project could only lower.
    args.scratch.mkdir(parents=True, exist_ok=True)
    config = args.scratch / "config.toml"
    config.write_text("[lsp]\nrequest_timeout = 600\nready_timeout = 900\n", encoding="utf-8")
    os.environ["CODEAGENT_CONFIG"] = str(config)
    report: dict[str, Any] = {"machine": {"cpus": os.cpu_count(), "load_start": os.getloadavg()},
                              "raw_settings": args.raw_settings, "corpora": {}}
    for corpus in (list(CORPORA) if args.corpus == "all" else [args.corpus]):
        folder, targets = CORPORA[corpus]
        source = corpora.CORPORA[corpus].tree(corpora.search_dirs(args.cache_dir))
        runs: dict[str, list[dict[str, Any]]] = {"raw": [], "codeagent": []}
        for pair in range(args.pairs):
            for side in ("raw", "codeagent"):
                work = args.scratch / "work" / folder
                shutil.rmtree(work.parent, ignore_errors=True)
                shutil.copytree(source, work)
                load = os.getloadavg()[0]
                result = (run_raw(work.resolve(), targets, args.rounds, args.settle, args.raw_settings) if side == "raw"
                          else run_codeagent(work.resolve(), targets, args.rounds, args.settle))
                result["load"] = load
                runs[side].append(result)
                print(f"{corpus} pair {pair + 1} {side}: peak {result['peak_mib']:.0f} MiB, hwm {result['hwm_mib']:.0f} "
                      f"MiB ({result['processes']} processes), {result['seconds']:.1f} s, load {load:.1f}, "
                      f"refs {result['counts']}", flush=True)
        shutil.rmtree(args.scratch / "work", ignore_errors=True)
        med = {side: {k: statistics.median(r[k] for r in rs) for k in ("peak_mib", "hwm_mib", "load")}
               for side, rs in runs.items()}
        report["corpora"][corpus] = {"runs": runs, "median": med,
                                     "ratio_peak": med["codeagent"]["peak_mib"] / med["raw"]["peak_mib"],
                                     "ratio_hwm": med["codeagent"]["hwm_mib"] / med["raw"]["hwm_mib"]}
    report["machine"]["load_end"] = os.getloadavg()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2))

    print(f"\n## Peak memory, find_references (MiB, medians of {args.pairs} alternating pairs; "
          f"raw server settings: {args.raw_settings})\n")
    print("| corpus | raw peak | codeagent peak | ratio | raw hwm-sum | codeagent hwm-sum | ratio | load (raw/codeagent) |")
    print("|---|---|---|---|---|---|---|---|")
    for corpus, r in report["corpora"].items():
        raw, ca = r["median"]["raw"], r["median"]["codeagent"]
        print(f"| {corpus} | {raw['peak_mib']:.0f} | {ca['peak_mib']:.0f} | {r['ratio_peak']:.2f}x | {raw['hwm_mib']:.0f} | "
              f"{ca['hwm_mib']:.0f} | {r['ratio_hwm']:.2f}x | {raw['load']:.1f}/{ca['load']:.1f} |")
    print(f"\ntarget: codeagent peak <= {TARGET_RATIO}x raw peak. Load average at the end: "
          f"{', '.join(f'{x:.1f}' for x in os.getloadavg())}. Results in {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
