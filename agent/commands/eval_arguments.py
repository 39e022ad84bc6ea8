"""Registration of `codeagent eval`. The command lives in `evaluate.py`, imported only when it is
called: it pulls in the agent loop and the model client."""

from __future__ import annotations

import argparse
import importlib
from typing import Any


def _cmd_eval(args: argparse.Namespace) -> int:
    return int(importlib.import_module("agent.commands.evaluate").cmd_eval(args))


def register(sub: Any) -> None:
    p = sub.add_parser("eval", help="compare toolsets (text, semantic) on a task suite with your model")
    p.add_argument("--suite", help="`bundled` (default) or a folder of task folders")
    p.add_argument("--list", action="store_true", help="print the suite's task ids and titles, and stop")
    p.add_argument("--model", help="model name as the endpoint knows it")
    p.add_argument("--base-url", help="OpenAI-compatible endpoint, e.g. http://localhost:8000/v1")
    p.add_argument("--toolsets", default="text,semantic", help="comma-separated toolsets (default text,semantic)")
    p.add_argument("--repeat", type=int, default=1, help="runs per task and toolset (default 1)")
    p.add_argument("--jobs", type=int, default=1, help="units run at once, each in its own process (default 1)")
    p.add_argument("--ray", metavar="auto|ADDRESS", help="schedule the units on a Ray cluster instead")
    p.add_argument("--tasks", help="comma-separated task ids (default: every task)")
    p.add_argument("--out", default="codeagent-eval", help="output folder (default ./codeagent-eval)")
    p.add_argument("--resume", action="store_true", help="continue an evaluation in --out: run only what did not finish")
    p.add_argument("--max-steps", type=int, help="most model turns per run (default: the configured 30)")
    p.add_argument("--keep-trees", action="store_true", help="keep each run's project tree under OUT/work/")
    p.add_argument("--json", action="store_true", help="print the report as JSON on stdout")
    p.set_defaults(func=_cmd_eval)
