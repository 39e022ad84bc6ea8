"""Wall time of `codeagent move|signature|delete` on fresh copies of ops_bench's pristine trees,
alternating two `codeagent` executables (e.g. main's venv and a branch's) so both see the same
load. Not a test: a measuring aid for issue 16's "within 1.5x of rope" target.

    python benchmarks/ops_timing.py --a /work/main/.venv/bin/codeagent --b .venv/bin/codeagent --rounds 3

Prints one line per run (seconds, exit code, 1-minute load average) and the medians per command.
The trees come from ops_bench's cache (~/.cache/rename_bench/pristine/<corpus>-*/tree).
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

# (corpus, arguments after `codeagent`): targets of ops_targets_public.json, run as a dry run
COMMANDS: list[tuple[str, list[str]]] = [
    ("click", ["move", "src/click/utils.py:404:5", "src/click/_filenames.py"]),
    ("toolz", ["move", "toolz/itertoolz.py:537:5", "toolz/recipes.py"]),
    ("click", ["signature", "src/click/_compat.py:465:9", "(self)"]),
    ("click", ["signature", "src/click/core.py:116:5", "(declaration_order: t.Sequence[\"Parameter\"], "
               "invocation_order: t.Sequence[\"Parameter\"])"]),
    ("click", ["delete", "src/click/utils.py:446:5"]),
]


def _tree(cache: Path, corpus: str) -> Path:
    found = sorted(cache.glob(f"pristine/{corpus}-*/tree"))
    if not found:
        raise SystemExit(f"no pristine tree for {corpus} under {cache} (run ops_bench.py once)")
    return found[0]


def _load() -> str:
    return Path("/proc/loadavg").read_text().split()[0]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--a", required=True, help="first codeagent executable")
    ap.add_argument("--b", required=True, help="second codeagent executable")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--cache", default=str(Path("~/.cache/rename_bench").expanduser()))
    ap.add_argument("--timeout", type=float, default=600)
    args = ap.parse_args()
    times: dict[tuple[str, str], list[float]] = {}
    for _ in range(args.rounds):
        for corpus, command in COMMANDS:
            for label, exe in (("a", args.a), ("b", args.b)):
                with tempfile.TemporaryDirectory(prefix="ops-timing-") as tmp:
                    root = Path(tmp) / corpus
                    shutil.copytree(_tree(Path(args.cache), corpus), root)
                    start = time.monotonic()
                    proc = subprocess.run([exe, *command, "--root", str(root), "--json", "--dry-run"], cwd=root,
                                          capture_output=True, timeout=args.timeout)
                    took = time.monotonic() - start
                    subprocess.run([exe, "daemon", "stop", "--root", str(root)], capture_output=True, timeout=60)
                key = (label, f"{command[0]} {command[1]}")
                times.setdefault(key, []).append(took)
                print(f"{label} {key[1]:45} {took:6.2f}s exit {proc.returncode} load {_load()}", flush=True)
    print("\nmedians (s):")
    for corpus_cmd in dict.fromkeys(k[1] for k in times):
        a, b = statistics.median(times[("a", corpus_cmd)]), statistics.median(times[("b", corpus_cmd)])
        print(f"  {corpus_cmd:45} a {a:6.2f}  b {b:6.2f}  b/a {b / a:4.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
