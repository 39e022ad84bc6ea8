"""Ctrl+C stops `codeagent eval` cleanly and keeps what finished; `--resume` runs only the rest;
an output folder with results is not overwritten without --resume."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from clikit import interruptible
from eval_policy import policy, task_of
from fake_openai import FakeOpenAI, Reply

from agent.cli import main


def _wait(pred: Any, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if pred():
            return
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_ctrl_c_keeps_finished_units_and_resume_runs_the_rest(jobs: str, suite: Path, tmp_path: Path,
                                                              short_timeouts: Path) -> None:
    short_timeouts.write_text("[llm]\ntimeout = 60\nretry_backoff = 0.01\n", encoding="utf-8")
    out = tmp_path / "out"

    def stall_on_solve2(body: dict[str, Any]) -> Reply:
        if "Then stop." in task_of(body):
            time.sleep(30)  # the model "thinks" until the user presses Ctrl+C
        return policy(body)  # type: ignore[return-value]

    with FakeOpenAI([stall_on_solve2] * 20) as server:
        proc = subprocess.Popen([sys.executable, "-m", "agent.cli", "eval", "--suite", str(suite), "--base-url",
                                 server.base_url, "--model", "m", "--out", str(out), "--toolsets", "text",
                                 "--tasks", "solve,solve2,never", "--jobs", jobs],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, preexec_fn=interruptible, env=dict(os.environ))
        try:
            _wait(lambda: any("Then stop." in task_of(b) for b in server.requests), 120, "the stalled request")
            proc.send_signal(signal.SIGINT)
            stdout, stderr = proc.communicate(timeout=60)
        finally:
            proc.kill()
    assert proc.returncode == 130, stderr
    assert "Traceback" not in stderr and "--resume" in stderr
    rep = json.loads((out / "report.json").read_text(encoding="utf-8"))
    assert rep["meta"]["complete"] is False and rep["meta"]["finished"] == 2
    assert [e["key"] for e in rep["entries"]] == ["never__text__r1", "solve__text__r1"]  # ran in id order
    assert not (out / "results" / "solve2__text__r1.json").exists()

    # without --resume the folder is not overwritten
    with FakeOpenAI([policy] * 20) as server:
        rc = main(["eval", "--suite", str(suite), "--base-url", server.base_url, "--model", "m", "--out", str(out),
                   "--toolsets", "text", "--tasks", "solve,solve2,never"])
        assert rc == 2 and server.requests == []
        rc = main(["eval", "--suite", str(suite), "--base-url", server.base_url, "--model", "m", "--out", str(out),
                   "--toolsets", "text", "--tasks", "solve,solve2,never", "--resume"])
        asked = {task_of(b) for b in server.requests}
    assert rc == 0
    assert asked and all("Then stop." in t for t in asked), "--resume ran a unit that had finished"
    rep = json.loads((out / "report.json").read_text(encoding="utf-8"))
    assert rep["meta"]["complete"] is True and rep["meta"]["finished"] == 3
    assert {e["key"]: e["solved"] for e in rep["entries"]} == {
        "never__text__r1": False, "solve__text__r1": True, "solve2__text__r1": True}
