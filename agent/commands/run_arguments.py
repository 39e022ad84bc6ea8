"""Registration of `codeagent run`, `runs` and `replay`. The commands live in `run.py`, imported
only when one of them is called: the model client and the agent loop take most of a second to
import, and every other command (`rename`, `refs`, ...) would pay for them."""

from __future__ import annotations

import argparse
import importlib
from collections.abc import Callable
from typing import Any

from ..registry import TOOLSETS


def _lazy(name: str) -> Callable[[argparse.Namespace], int]:
    def call(args: argparse.Namespace) -> int:
        module = importlib.import_module("agent.commands.run")
        return int(getattr(module, name)(args))

    return call


def register(sub: Any) -> None:
    p = sub.add_parser("run", help="run the agent on a task")
    p.add_argument("task", help='what to do, in words ("-" reads it from standard input)')
    p.add_argument("--root", default=".", help="workspace root (default: the current folder)")
    p.add_argument("--model", help="model name as the endpoint knows it")
    p.add_argument("--base-url", help="OpenAI-compatible endpoint, e.g. http://localhost:8000/v1")
    p.add_argument("--tools", default="all", choices=sorted(TOOLSETS),
                   help="text: file, search and shell tools; semantic: adds syntax and language-server tools; "
                        "all: every tool (default)")
    p.add_argument("--max-steps", type=int, help="most model turns (default 30)")
    p.add_argument("--protocol", choices=["auto", "tools", "json"], help="tool calling: native, JSON actions, or auto")
    p.add_argument("--stream", action="store_true", help="stream the model's text as it is written")
    p.add_argument("--confirm", action="store_true", help="ask before every action that changes files or runs commands")
    p.add_argument("--checkpoint", action="store_true", help="record a git checkpoint ref before the run")
    p.add_argument("--json", action="store_true", help="print the outcome as JSON (the progress goes to stderr)")
    p.set_defaults(func=_lazy("cmd_run"))

    p = sub.add_parser("runs", help="list recorded agent runs")
    p.add_argument("--root", default=".", help="workspace root")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=_lazy("cmd_runs"))

    p = sub.add_parser("replay", help="re-execute a run's tool calls and report any divergence")
    p.add_argument("run_id", metavar="ID", help="the run (see `codeagent runs`)")
    p.add_argument("--root", default=".", help="workspace root")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=_lazy("cmd_replay"))
