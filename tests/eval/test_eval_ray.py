"""`codeagent eval --ray ADDRESS` against a local Ray head the test starts (and stops: it kills the
process group of the `ray start --block` it launched, nothing else)."""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
from eval_policy import policy
from fake_openai import FakeOpenAI

ray = pytest.importorskip("ray", reason="Ray is not installed: pip install 'codeagent[ray]'")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _stop(head: subprocess.Popen[bytes]) -> None:
    """End the head we started and every process of its group (raylet, GCS, workers)."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(head.pid, signal.SIGTERM)
    try:
        head.wait(timeout=30)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(head.pid, signal.SIGKILL)
        head.wait()


def _head_address(log: Path, head: subprocess.Popen[bytes]) -> str:
    """The address `ray start` prints once the head runs (the node's IP, which may not be 127.0.0.1)."""
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline:
        found = re.search(r"ray start --address='([^']+)'", log.read_text(encoding="utf-8", errors="replace"))
        if found:
            return found.group(1)
        assert head.poll() is None, log.read_text(encoding="utf-8", errors="replace")[-3000:]
        time.sleep(0.5)
    raise AssertionError("the Ray head did not start in 240 s")


@pytest.mark.timeout(600)
def test_eval_on_a_local_ray_cluster(suite: Path, tmp_path: Path) -> None:
    port = _free_port()
    ray_bin = Path(sys.executable).with_name("ray")
    env = {**os.environ, "RAY_USAGE_STATS_ENABLED": "0"}
    log = tmp_path / "ray-head.log"
    ray_tmp = tempfile.mkdtemp(prefix="ray", dir="/tmp")  # Ray's socket paths must stay under 108 bytes
    with open(log, "wb") as fh:
        head = subprocess.Popen([str(ray_bin), "start", "--head", "--block", "--port", str(port), "--num-cpus", "2",
                                 "--include-dashboard", "false", "--temp-dir", ray_tmp],
                                env=env, stdout=fh, stderr=subprocess.STDOUT, start_new_session=True)
    out = tmp_path / "out"
    try:
        address = _head_address(log, head)
        with FakeOpenAI([policy] * 40) as server:
            proc = subprocess.run([sys.executable, "-m", "agent.cli", "eval", "--suite", str(suite), "--base-url",
                                   server.base_url, "--model", "m", "--out", str(out), "--toolsets", "text,semantic",
                                   "--tasks", "solve,never", "--ray", address],
                                  env=env, capture_output=True, text=True, timeout=480)
    finally:
        _stop(head)
        shutil.rmtree(ray_tmp, ignore_errors=True)
    assert proc.returncode == 0, proc.stderr[-3000:]
    rep = json.loads((out / "report.json").read_text(encoding="utf-8"))
    assert rep["meta"]["finished"] == 4 and rep["meta"]["complete"] is True
    solved = {(e["task"], e["toolset"]): e["solved"] for e in rep["entries"]}
    assert solved == {("solve", "text"): True, ("solve", "semantic"): True,
                      ("never", "text"): False, ("never", "semantic"): False}
    for e in rep["entries"]:
        assert e["node"] and Path(e["trajectory"]).is_file()  # the trajectory came back from the worker
        assert str(out) in e["trajectory"]
