"""The Eval page: a `codeagent eval --out DIR` report (DIR/report.json, re-read on every request,
so an evaluation still running shows what has finished) as a table per task and toolset, the
totals per toolset, and the paired differences semantic - text, overall and per task, with their
95% intervals. The folder comes from the command line (`codeagent view --eval DIR`), never from a
URL; a missing, oversized or malformed report is a message on the page, not an error."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..eval.report import METRICS, ci_text, number, paired

MAX_REPORT_BYTES = 50_000_000
LABELS = {"solved": "solved", "tool_calls": "tool calls", "model_calls": "model calls", "tokens_in": "tokens in",
          "tokens_out": "tokens out", "bytes_read": "bytes read", "wall_s": "wall s"}


@dataclass
class EvalPage:
    folder: str
    problem: str | None = None
    meta: dict[str, Any] = field(default_factory=dict)
    rows: list[dict[str, Any]] = field(default_factory=list)  # task, toolset, runs, cells, stop
    totals: list[dict[str, Any]] = field(default_factory=list)
    paired: dict[str, Any] | None = None  # of, pairs, cells
    per_task: list[dict[str, Any]] = field(default_factory=list)  # task, pairs, cells

    @property
    def labels(self) -> list[str]:
        return [LABELS[m] for m in METRICS]


def load(folder: Path) -> EvalPage:
    page = EvalPage(str(folder))
    path = folder / "report.json"
    try:
        size = path.stat().st_size
        if size > MAX_REPORT_BYTES:
            page.problem = f"{path} is {size} bytes, more than the view reads ({MAX_REPORT_BYTES})"
            return page
        report = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        page.problem = f"no report yet: {path} does not exist (`codeagent eval --out {folder}` writes it)"
        return page
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        page.problem = f"{path} cannot be read: {exc}"
        return page
    try:
        _fill(page, report)
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        page.problem = f"{path} is not a codeagent eval report ({type(exc).__name__}: {exc})"
    return page


def _cells(source: dict[str, Any]) -> list[str]:
    return [number(float(source[m]), m) for m in METRICS]


def _diffs(p: dict[str, Any]) -> dict[str, Any]:
    return {"of": str(p["of"]), "pairs": int(p["pairs"]),
            "cells": [ci_text(p[m], m) for m in METRICS] if p["pairs"] else []}


def _fill(page: EvalPage, report: dict[str, Any]) -> None:
    page.meta = {str(k): v for k, v in (report.get("meta") or {}).items() if not isinstance(v, dict | list)}
    page.rows = [{"task": str(r["task"]), "toolset": str(r["toolset"]), "runs": int(r["runs"]),
                  "solved": float(r["solved"]), "cells": _cells(r), "stop": str(r.get("stop", ""))}
                 for r in report["rows"]]
    page.totals = [{"toolset": str(t["toolset"]), "runs": int(t["runs"]), "cells": _cells(t)}
                   for t in report["totals"]]
    page.paired = _diffs(report["paired"])
    entries = [e for e in report.get("entries") or [] if isinstance(e, dict)]
    for task in sorted({str(e["task"]) for e in entries}):
        one = _diffs(paired([e for e in entries if str(e["task"]) == task]))
        if one["pairs"]:
            page.per_task.append({"task": task, **one})
