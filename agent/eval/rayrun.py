"""The units scheduled on a Ray cluster (`--ray auto` joins the running one, `--ray ADDRESS` a given
head): each unit is an independent Ray task that ships its task folder (a tar archive) and returns
its report entry and trajectory, so workers need codeagent installed but not the suite or the
output folder. Ray is an optional extra: `pip install codeagent[ray]`."""

from __future__ import annotations

import dataclasses
import io
import os
import tarfile
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .schedule import INTERRUPTED, save_entry
from .unit import UnitSpec, run_unit

MAX_TASK_ARCHIVE = 64 * 1024 * 1024


class RayUnavailable(RuntimeError):
    pass


def pack(folder: Path) -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        tar.add(folder, arcname=folder.name)
    data = buf.getvalue()
    if len(data) > MAX_TASK_ARCHIVE:
        raise ValueError(f"task folder {folder} is {len(data)} bytes packed, over {MAX_TASK_ARCHIVE}")
    return data


def remote_unit(spec_json: str, archive: bytes) -> dict[str, Any]:
    """What a Ray worker runs: unpack the task, run the unit in a temporary folder, return the entry
    with the trajectory's text (the worker's disk is not the driver's)."""
    spec = UnitSpec.from_json(spec_json)
    with tempfile.TemporaryDirectory(prefix="codeagent-eval-") as tmp:
        with tarfile.open(fileobj=io.BytesIO(archive), mode="r:gz") as tar:
            tar.extractall(tmp, filter="data")
        task_folder = Path(tmp) / Path(spec.task_folder).name
        local = dataclasses.replace(spec, task_folder=str(task_folder), work=str(Path(tmp) / "out" / "work"),
                                    keep_tree=False)
        entry = run_unit(local)
        traj = entry.get("trajectory")
        if traj and os.path.isfile(traj):
            entry["trajectory_text"] = Path(traj).read_text(encoding="utf-8", errors="replace")
        entry["node"] = os.uname().nodename
    return entry


def run_ray(specs: list[UnitSpec], out: Path, *, address: str,
            on_done: Callable[[dict[str, Any]], None] | None = None) -> bool:
    try:
        import ray  # an optional extra, imported only when asked for
    except ImportError as exc:
        raise RayUnavailable("--ray needs Ray: pip install 'codeagent[ray]'") from exc
    ray.init(address=address, ignore_reinit_error=True, log_to_driver=False)
    task = ray.remote(num_cpus=1, max_retries=0)(remote_unit)
    archives: dict[str, Any] = {}
    pending: dict[Any, UnitSpec] = {}
    for spec in specs:
        if spec.task_folder not in archives:
            archives[spec.task_folder] = ray.put(pack(Path(spec.task_folder)))
        pending[task.remote(spec.to_json(), archives[spec.task_folder])] = spec
    try:
        while pending:
            ready, _ = ray.wait(list(pending), num_returns=1)
            for ref in ready:
                spec = pending.pop(ref)
                entry = ray.get(ref)
                _keep(out, spec, entry, on_done)
    except KeyboardInterrupt:
        for ref in pending:
            ray.cancel(ref, force=True)
        return False
    finally:
        ray.shutdown()
    return True


def _keep(out: Path, spec: UnitSpec, entry: dict[str, Any], on_done: Callable[[dict[str, Any]], None] | None) -> None:
    if entry.get("status") == INTERRUPTED:
        return
    text = entry.pop("trajectory_text", None)
    if isinstance(text, str):
        path = out / "runs" / f"{spec.key}.jsonl"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        entry["trajectory"] = str(path)
    save_entry(out, entry)
    if on_done:
        on_done(entry)
