"""`codeagent eval` (the engine is agent/eval/, which knows no command): plan the units (task × toolset × repeat), run what --resume leaves, write the
report. Exit 0 when every unit ran, 130 after a Ctrl+C (the report holds what finished)."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

from ..config import ConfigError, load_settings
from ..eval import report
from ..eval.rayrun import run_ray
from ..eval.schedule import run_local, saved_entries
from ..eval.suite import SuiteError, Task, load_suite
from ..eval.unit import UnitSpec
from ..registry import TOOLSETS
from .output import EXIT_OK, EXIT_USAGE, UsageError, print_json
from .run import EXIT_INTERRUPTED, endpoint_problem

MAX_UNITS = 100_000


def _tasks(args: argparse.Namespace) -> list[Task]:
    only = [t.strip() for t in args.tasks.split(",") if t.strip()] if args.tasks else None
    try:
        return load_suite(args.suite, only)
    except SuiteError as exc:
        raise UsageError(str(exc)) from exc


def _toolsets(text: str) -> list[str]:
    names = [t.strip() for t in text.split(",") if t.strip()]
    bad = [n for n in names if n not in TOOLSETS]
    if not names or bad:
        raise UsageError(f"--toolsets {text!r}: choose from {', '.join(TOOLSETS)}")
    return list(dict.fromkeys(names))


def plan(tasks: list[Task], toolsets: list[str], repeat: int, *, llm: dict[str, Any], agent: dict[str, Any],
         work: Path, keep_tree: bool) -> list[UnitSpec]:
    """Repeat-major order, so an interrupted evaluation has whole pairs of the first repeats."""
    return [UnitSpec(str(t.folder), t.id, ts, r, llm, agent, str(work), keep_tree)
            for r in range(1, repeat + 1) for t in tasks for ts in toolsets]


def cmd_eval(args: argparse.Namespace) -> int:
    tasks = _tasks(args)
    if args.list:
        for t in tasks:
            print(f"{t.id:34} {t.language:10} {t.kind:10} {t.title}")
        return EXIT_OK
    toolsets = _toolsets(args.toolsets)
    if not 1 <= args.repeat <= 1000 or not 1 <= args.jobs <= 256:
        raise UsageError("--repeat must be 1..1000 and --jobs 1..256")
    out = Path(args.out).resolve()
    llm = {k: v for k, v in {"model": args.model, "base_url": args.base_url}.items() if v}
    agent = {"max_steps": args.max_steps} if args.max_steps else {}
    out.mkdir(parents=True, exist_ok=True)
    try:
        settings = load_settings(out, overrides={"llm": llm})
    except ConfigError as exc:
        raise UsageError(str(exc)) from exc
    problem = endpoint_problem(settings.llm)
    if problem:
        print(f"codeagent: {problem}", file=sys.stderr)
        return EXIT_USAGE
    done = saved_entries(out)
    if done and not args.resume:
        raise UsageError(f"{out} already holds {len(done)} results: pass --resume to continue, or another --out")
    units = plan(tasks, toolsets, args.repeat, llm=llm, agent=agent, work=out / "work", keep_tree=args.keep_trees)
    if len(units) > MAX_UNITS:
        raise UsageError(f"{len(units)} units is more than {MAX_UNITS}: use fewer tasks, toolsets or repeats")
    todo = [u for u in units if u.key not in done]
    print(f"codeagent eval: {len(units)} units ({len(tasks)} tasks × {len(toolsets)} toolsets × {args.repeat}), "
          f"{len(units) - len(todo)} already done, {len(todo)} to run", file=sys.stderr)
    started = time.time()
    complete = _run(args, todo, out)
    wanted = {u.key for u in units}
    entries = [e for k, e in sorted(saved_entries(out).items()) if k in wanted]
    meta = {"model": settings.llm.model, "base_url": settings.llm.base_url or "(default)",
            "suite": args.suite or "bundled", "toolsets": ",".join(toolsets), "repeat": args.repeat,
            "units": len(units), "finished": len(entries), "complete": complete,
            "seconds": round(time.time() - started, 1)}
    rep = report.build(entries, meta=meta)
    json_path, md_path = report.write(out, rep)
    if args.json:
        print_json(rep)
    else:
        print(report.markdown(rep))
    state = "complete" if complete else f"interrupted: {len(entries)} of {len(units)} units finished; `--resume` continues"
    print(f"codeagent eval {state}. Report: {md_path} and {json_path}", file=sys.stderr)
    return EXIT_OK if complete else EXIT_INTERRUPTED


def _progress(entry: dict[str, Any]) -> None:
    mark = "solved" if entry.get("solved") else "unsolved"
    print(f"  {entry['key']}: {mark} ({entry.get('status')}, {entry.get('tool_calls', 0)} tool calls, "
          f"{entry.get('wall_s', 0)} s)", file=sys.stderr, flush=True)


def _run(args: argparse.Namespace, todo: list[UnitSpec], out: Path) -> bool:
    if args.ray:
        return run_ray(todo, out, address=args.ray, on_done=_progress)
    return run_local(todo, out, jobs=args.jobs, on_done=_progress)
