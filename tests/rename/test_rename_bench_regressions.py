"""benchmarks/rename_bench_regressions.py reads a rename_bench results.json and lists every target
where codeagent is wrong and the raw server right (the list that must stay empty)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "rename_bench_regressions.py"


def record(target: str, method: str, correct: bool, **checks: bool) -> dict[str, Any]:
    return {"target": target, "corpus": target.split(".")[0], "method": method, "correct": correct,
            "checks": checks or {"success": correct}, "message": "", "time_s": 1.0}


def run(tmp_path: Path, results: list[dict[str, Any]]) -> subprocess.CompletedProcess[str]:
    out = tmp_path / "results.json"
    out.write_text(json.dumps({"summary": {}, "baselines": {}, "results": results}))
    return subprocess.run([sys.executable, str(SCRIPT), str(out)], capture_output=True, text=True, timeout=60)


def test_lists_targets_where_codeagent_is_wrong_and_the_server_right(tmp_path: Path) -> None:
    proc = run(tmp_path, [
        record("click.a", "codeagent", False, success=True, tests=False, expect=False),
        record("click.a", "pyright", True),
        record("click.b", "codeagent", False),  # both wrong: not a regression
        record("click.b", "pyright", False),
        record("immer.c", "codeagent", True),
        record("immer.c", "tsls", True),
        record("immer.d", "codeagent", False, defsite=False),
        record("immer.d", "tsls", True),
    ])
    assert proc.returncode == 1
    assert "(2 of 4 compared targets)" in proc.stdout
    assert "- click.a: codeagent fails cf where pyright is right" in proc.stdout
    assert "- immer.d: codeagent fails d where tsls is right" in proc.stdout
    assert "click.b" not in proc.stdout


def test_empty_list_exits_zero_and_nothing_to_compare_exits_two(tmp_path: Path) -> None:
    ok = run(tmp_path, [record("toolz.x", "codeagent", True), record("toolz.x", "pyright", False)])
    assert ok.returncode == 0 and "(none)" in ok.stdout
    nothing = run(tmp_path, [record("toolz.x", "codeagent", True), record("toolz.x", "text", False)])
    assert nothing.returncode == 2
