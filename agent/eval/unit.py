"""One unit of an evaluation: a task, a toolset and a repeat. It runs in a fresh copy of the task's
project with the real agent loop (as `codeagent run` does), is judged, and becomes a report entry
(a plain dict, so it crosses process and Ray boundaries as JSON)."""

from __future__ import annotations

import json
import shutil
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from ..bootstrap import open_context
from ..config import ConfigError, load_settings
from ..errors import CodeagentError
from ..runner import run_agent
from ..trajectory import read_events
from .judge import judge
from .metrics import from_events
from .setup import prepare
from .suite import Task, load_task

INTERRUPTED = "interrupted"


@dataclass(frozen=True, slots=True)
class UnitSpec:
    """Everything a unit needs, in plain values: the task folder, the toolset, the repeat number,
    the model settings (the same for every unit of an evaluation) and where to work."""

    task_folder: str
    task_id: str
    toolset: str
    repeat: int
    llm: dict[str, Any]
    agent: dict[str, Any]
    work: str  # the evaluation's work folder; the unit uses work/<key>
    keep_tree: bool = False

    @property
    def key(self) -> str:
        return unit_key(self.task_id, self.toolset, self.repeat)

    def to_json(self) -> str:
        return json.dumps(asdict(self))

    @staticmethod
    def from_json(text: str) -> UnitSpec:
        return UnitSpec(**json.loads(text))


def unit_key(task_id: str, toolset: str, repeat: int) -> str:
    return f"{task_id}__{toolset}__r{repeat}"


def run_unit(spec: UnitSpec) -> dict[str, Any]:
    """Run, judge and measure one unit. A Ctrl+C during the run gives an entry with status
    "interrupted" (the scheduler does not keep it, so --resume runs the unit again)."""
    task = load_task(Path(spec.task_folder))
    root = Path(spec.work) / spec.key
    if root.exists():
        shutil.rmtree(root)  # a unit interrupted earlier: start again from the task's tree
    started = time.time()
    prepare(task, root)
    entry: dict[str, Any] = {"key": spec.key, "task": spec.task_id, "kind": task.kind, "language": task.language,
                             "toolset": spec.toolset, "repeat": spec.repeat, "started": started}
    try:
        entry.update(_run_and_judge(task, spec, root))
    finally:
        if not spec.keep_tree:
            shutil.rmtree(root, ignore_errors=True)
    return entry


def _run_and_judge(task: Task, spec: UnitSpec, root: Path) -> dict[str, Any]:
    try:
        settings = load_settings(root, overrides={"llm": spec.llm, "agent": spec.agent})
    except ConfigError as exc:
        return {"status": "setup_error", "reason": str(exc), "solved": False}
    try:
        with open_context(root, settings=settings, show_progress=None) as ctx:
            outcome, traj_path = run_agent(ctx, settings, task.text, toolset=spec.toolset)
            events = read_events(ctx.workspace, ctx.run_id or "")
    except (CodeagentError, OSError) as exc:
        return {"status": "setup_error", "reason": str(exc), "solved": False}
    saved = Path(spec.work).parent / "runs" / f"{spec.key}.jsonl"
    saved.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(traj_path, saved)
    out: dict[str, Any] = {"status": outcome.status, "reason": outcome.message, "steps": outcome.steps,
                           "trajectory": str(saved), **from_events(events).to_dict()}
    if outcome.status == INTERRUPTED:
        out["solved"] = False
        return out
    verdict = judge(task, root)
    out["solved"] = verdict.passed
    out["judge"] = verdict.to_dict()
    return out
