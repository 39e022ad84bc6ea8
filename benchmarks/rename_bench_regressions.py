"""Targets of a rename_bench run where codeagent is wrong and a raw language server is right.

    python benchmarks/rename_bench_regressions.py OUT/results.json

Reads the JSON the shared harness (../shared/bench/rename_bench.py, not ours to edit) writes, and
lists every target where the `codeagent` method failed a check while the raw server's own rename
(`pyright` for Python, `tsls` for TypeScript) passed all of them. codeagent starts from the
server's answer and completes it, so this list must stay empty: exit 1 when it is not, 2 when the
run has no codeagent results or no raw-server results to compare with.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

RAW_SERVERS = ("pyright", "tsls")
CHECK_LETTERS = {"success": "a", "parse": "b", "tests": "c", "defsite": "d", "pyright": "e", "expect": "f"}


def regressions(results: list[dict[str, Any]]) -> tuple[list[str], int]:
    """The lines to print (one per target where codeagent is worse) and how many targets compared."""
    by_target: dict[str, dict[str, dict[str, Any]]] = {}
    for rec in results:
        if not rec.get("skipped"):
            by_target.setdefault(rec["target"], {})[rec["method"]] = rec
    out: list[str] = []
    compared = 0
    for target, methods in sorted(by_target.items()):
        ours = methods.get("codeagent")
        raw = [methods[m] for m in RAW_SERVERS if m in methods]
        if ours is None or not raw:
            continue
        compared += 1
        right = [r["method"] for r in raw if r["correct"]]
        if ours["correct"] or not right:
            continue
        failed = "".join(CHECK_LETTERS.get(k, k) for k, ok in ours.get("checks", {}).items() if not ok)
        out.append(f"{target}: codeagent fails {failed or '?'} where {', '.join(right)} is right "
                   f"({ours.get('message', '')[:120]})")
    return out, compared


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    data = json.loads(Path(argv[0]).read_text(encoding="utf-8"))
    lines, compared = regressions(data.get("results", []))
    if not compared:
        print("no target has both a codeagent and a raw-server (pyright / tsls) result to compare", file=sys.stderr)
        return 2
    print(f"## Wrong where the raw server is right ({len(lines)} of {compared} compared targets)\n")
    print("\n".join(f"- {line}" for line in lines) if lines else "(none)")
    return 1 if lines else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
