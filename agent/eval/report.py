"""The evaluation's report: one row per task and toolset (solved rate and mean costs over repeats),
totals per toolset, and the paired difference semantic - text (same task, same repeat) with a 95%
confidence interval (Student's t over the pairs). Written as report.json and report.md."""

from __future__ import annotations

import json
import math
import statistics
from collections import Counter
from pathlib import Path
from typing import Any

METRICS = ("solved", "tool_calls", "model_calls", "tokens_in", "tokens_out", "bytes_read", "wall_s")
# two-sided 95% Student t quantiles for 1..30 degrees of freedom; above 30, the normal 1.96
_T95 = (12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145,
        2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048,
        2.045, 2.042)


def _value(entry: dict[str, Any], metric: str) -> float:
    if metric == "solved":
        return 1.0 if entry.get("solved") else 0.0
    return float(entry.get(metric) or 0)


def interval(values: list[float]) -> dict[str, Any]:
    """Mean and 95% CI half-width; no half-width from a single value."""
    n = len(values)
    mean = statistics.fmean(values) if values else 0.0
    if n < 2:
        return {"n": n, "mean": mean, "ci95": None}
    t = _T95[n - 2] if n - 1 <= len(_T95) else 1.96
    return {"n": n, "mean": mean, "ci95": t * statistics.stdev(values) / math.sqrt(n)}


def build(entries: list[dict[str, Any]], *, meta: dict[str, Any] | None = None) -> dict[str, Any]:
    by_cell: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for e in entries:
        by_cell.setdefault((e["task"], e["toolset"]), []).append(e)
    rows = []
    for (task, toolset), cell in sorted(by_cell.items()):
        stops = Counter(str(e.get("status")) for e in cell)
        rows.append({"task": task, "toolset": toolset, "runs": len(cell),
                     **{m: statistics.fmean(_value(e, m) for e in cell) for m in METRICS},
                     "stop": ", ".join(f"{s}×{n}" if n > 1 else s for s, n in sorted(stops.items()))})
    toolsets = sorted({e["toolset"] for e in entries})
    totals = []
    for ts in toolsets:
        cell = [e for e in entries if e["toolset"] == ts]
        totals.append({"toolset": ts, "runs": len(cell), **{m: statistics.fmean(_value(e, m) for e in cell)
                                                             for m in METRICS}})
    return {"meta": meta or {}, "rows": rows, "totals": totals, "paired": paired(entries), "entries": entries}


def paired(entries: list[dict[str, Any]], a: str = "semantic", b: str = "text") -> dict[str, Any]:
    """semantic - text over the (task, repeat) pairs both toolsets ran."""
    index = {(e["task"], e["repeat"], e["toolset"]): e for e in entries}
    pairs = [(index[(t, r, a)], e) for (t, r, ts), e in index.items() if ts == b and (t, r, a) in index]
    return {"of": f"{a} - {b}", "pairs": len(pairs),
            **{m: interval([_value(x, m) - _value(y, m) for x, y in pairs]) for m in METRICS}}


def number(value: float, metric: str) -> str:
    if metric == "solved":
        return f"{value:.0%}"
    if metric == "wall_s":
        return f"{value:.1f}"
    return f"{value:.0f}" if abs(value) >= 10 or value == int(value) else f"{value:.1f}"


def ci_text(cell: dict[str, Any], metric: str) -> str:
    mean = number(cell["mean"], metric) if metric != "solved" else f"{cell['mean'] * 100:+.0f} pts"
    if cell["ci95"] is None:
        return mean
    half = f"{cell['ci95'] * 100:.0f} pts" if metric == "solved" else number(cell["ci95"], metric)
    return f"{mean} ± {half}"


_HEAD = "| solved | tool calls | model calls | tokens in | tokens out | bytes read | wall s |"


def markdown(report: dict[str, Any]) -> str:
    meta = report.get("meta") or {}
    lines = ["# codeagent eval report", ""]
    if meta:
        lines += [", ".join(f"{k}: {v}" for k, v in meta.items() if not isinstance(v, dict | list)), ""]
    lines += ["## Per task and toolset (means over repeats)", "",
              "| task | toolset | runs " + _HEAD + " stop |", "|---|---|---" + "|---:" * len(METRICS) + "|---|"]
    for r in report["rows"]:
        lines.append(f"| {r['task']} | {r['toolset']} | {r['runs']} | "
                     + " | ".join(number(r[m], m) for m in METRICS) + f" | {r['stop']} |")
    lines += ["", "## Per toolset", "", "| toolset | runs " + _HEAD, "|---|---" + "|---:" * len(METRICS) + "|"]
    for t in report["totals"]:
        lines.append(f"| {t['toolset']} | {t['runs']} | " + " | ".join(number(t[m], m) for m in METRICS) + " |")
    p = report["paired"]
    lines += ["", f"## Paired difference ({p['of']}, {p['pairs']} pairs, mean ± 95% CI)", ""]
    if p["pairs"]:
        lines += [_HEAD, "|---:" * len(METRICS) + "|", "| " + " | ".join(ci_text(p[m], m) for m in METRICS) + " |"]
    else:
        lines.append("(no task ran with both toolsets)")
    return "\n".join(lines) + "\n"


def write(out: Path, report: dict[str, Any]) -> tuple[Path, Path]:
    out.mkdir(parents=True, exist_ok=True)
    j, m = out / "report.json", out / "report.md"
    j.write_text(json.dumps(report, indent=1), encoding="utf-8")
    m.write_text(markdown(report), encoding="utf-8")
    return j, m
