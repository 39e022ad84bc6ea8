"""Local scheduling of units: in this process (`--jobs 1`) or in N worker processes. Each finished
entry is saved at once as results/<key>.json, so a Ctrl+C or a crash keeps what finished and
`--resume` runs only the rest. A Ctrl+C stops cleanly: running units are interrupted between
steps (not saved), queued ones never start."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from .unit import INTERRUPTED, UnitSpec, run_unit

__all__ = ["INTERRUPTED", "run_local", "save_entry", "saved_entries"]

RESULTS_DIR = "results"
RERUN_STATUSES = {INTERRUPTED, "worker_error"}  # not measurements: --resume runs these again
STOP_GRACE_S = 20.0
POLL_S = 0.1

OnDone = Callable[[dict[str, Any]], None]


def results_dir(out: Path) -> Path:
    return out / RESULTS_DIR


def saved_entries(out: Path) -> dict[str, dict[str, Any]]:
    """The entries finished by earlier runs of this evaluation (for --resume and the report)."""
    found: dict[str, dict[str, Any]] = {}
    folder = results_dir(out)
    if not folder.is_dir():
        return found
    for path in sorted(folder.glob("*.json")):
        try:
            entry = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError):
            continue  # a torn file: that unit runs again
        if isinstance(entry, dict) and entry.get("status") not in RERUN_STATUSES:
            found[path.stem] = entry
    return found


def save_entry(out: Path, entry: dict[str, Any]) -> None:
    folder = results_dir(out)
    folder.mkdir(parents=True, exist_ok=True)
    tmp = folder / f".{entry['key']}.tmp"
    tmp.write_text(json.dumps(entry, indent=1), encoding="utf-8")
    os.replace(tmp, folder / f"{entry['key']}.json")


def run_local(specs: Iterable[UnitSpec], out: Path, *, jobs: int = 1, on_done: OnDone | None = None) -> bool:
    """Run the units; True when all ran, False when a Ctrl+C stopped the evaluation."""
    done = on_done or (lambda entry: None)
    if jobs <= 1:
        return _serial(list(specs), out, done)
    return _parallel(list(specs), out, jobs, done)


def _finish(out: Path, entry: dict[str, Any], done: OnDone) -> bool:
    """Save and report an entry; False when it was interrupted (so the evaluation stops)."""
    if entry.get("status") == INTERRUPTED:
        return False
    save_entry(out, entry)
    done(entry)
    return True


def _serial(specs: list[UnitSpec], out: Path, done: OnDone) -> bool:
    for spec in specs:
        try:
            entry = run_unit(spec)
        except KeyboardInterrupt:
            return False
        if not _finish(out, entry, done):
            return False
    return True


class _Running:
    def __init__(self, spec: UnitSpec, proc: subprocess.Popen[bytes], result: Path, log: Path):
        self.spec, self.proc, self.result, self.log = spec, proc, result, log


def _start(spec: UnitSpec, out: Path) -> _Running:
    folder = out / "workers"
    folder.mkdir(parents=True, exist_ok=True)
    spec_path = folder / f"{spec.key}.spec.json"
    spec_path.write_text(spec.to_json(), encoding="utf-8")
    result = folder / f"{spec.key}.result.json"
    result.unlink(missing_ok=True)
    log = folder / f"{spec.key}.log"
    with open(log, "wb") as fh:
        # its own process group: a terminal's Ctrl+C reaches us only, and we pass it on once
        proc = subprocess.Popen([sys.executable, "-m", "agent.eval.worker", str(spec_path), str(result)],
                                stdin=subprocess.DEVNULL, stdout=fh, stderr=subprocess.STDOUT, start_new_session=True)
    return _Running(spec, proc, result, log)


def _collect(r: _Running) -> dict[str, Any]:
    try:
        entry = json.loads(r.result.read_text(encoding="utf-8"))
        if isinstance(entry, dict):
            return entry
    except (OSError, json.JSONDecodeError):
        pass
    tail = r.log.read_text(encoding="utf-8", errors="replace")[-2000:] if r.log.exists() else ""
    return {"key": r.spec.key, "task": r.spec.task_id, "toolset": r.spec.toolset, "repeat": r.spec.repeat,
            "status": "worker_error", "solved": False,
            "reason": f"the worker exited with code {r.proc.returncode}: {tail}"}


def _parallel(specs: list[UnitSpec], out: Path, jobs: int, done: OnDone) -> bool:
    queue = list(specs)
    running: list[_Running] = []
    try:
        while queue or running:
            while queue and len(running) < jobs:
                running.append(_start(queue.pop(0), out))
            for r in [r for r in running if r.proc.poll() is not None]:
                running.remove(r)
                entry = _collect(r)
                if entry.get("status") == "worker_error":
                    save_entry(out, entry)
                    done(entry)
                elif not _finish(out, entry, done):
                    raise KeyboardInterrupt  # a worker was interrupted from outside: stop as for Ctrl+C
            time.sleep(POLL_S)
    except KeyboardInterrupt:
        _stop(running, out, done)
        return False
    return True


def _stop(running: list[_Running], out: Path, done: OnDone) -> None:
    """Interrupt the running workers, keep those that still finished, kill the ones that hang."""
    for r in running:
        if r.proc.poll() is None:
            os.killpg(r.proc.pid, signal.SIGINT)
    deadline = time.monotonic() + STOP_GRACE_S
    for r in running:
        try:
            r.proc.wait(timeout=max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            os.killpg(r.proc.pid, signal.SIGKILL)
            r.proc.wait()
            continue
        except KeyboardInterrupt:  # a second Ctrl+C: no more waiting
            os.killpg(r.proc.pid, signal.SIGKILL)
            r.proc.wait()
            continue
        entry = _collect(r)
        if entry.get("status") not in RERUN_STATUSES:
            save_entry(out, entry)
            done(entry)
