"""The demo end to end: on fixtures/buggy the scripted model reads, runs the failing test, edits,
re-runs; `codeagent run` ends with the tests passing. Also Ctrl+C while a command runs."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from clikit import interruptible
from fake_openai import FakeOpenAI, call, tools_reply

from agent.cli import main

FIX_OLD = "    total = sum(values)\n    return total / len(values)\n"
FIX_NEW = "    if not values:\n        return 0.0\n    total = sum(values)\n    return total / len(values)\n"
PYTEST = f"{sys.executable} -m pytest -q -p no:cacheprovider"


def trajectory(root: Path, run_id: str) -> list[dict]:
    return [json.loads(line) for line in (root / ".codeagent/runs" / f"{run_id}.jsonl").read_text().splitlines()]


def test_the_demo_run_ends_with_the_tests_passing(buggy: Path, capsys: pytest.CaptureFixture[str]) -> None:
    script = [
        tools_reply(call("read_file", file_path="buggy.py"), call("read_file", file_path="test_buggy.py"),
                    content="Let me read the code and its tests."),
        tools_reply(call("run_shell_command", command=PYTEST)),
        tools_reply(call("replace_in_file", file_path="buggy.py", old_text=FIX_OLD, new_text=FIX_NEW),
                    content="mean() divides by len(values), which is 0 for an empty list."),
        tools_reply(call("run_shell_command", command=PYTEST)),
        tools_reply(call("finish", summary="mean([]) now returns 0.0; the 3 tests pass.")),
    ]
    with FakeOpenAI(script) as server:
        rc = main(["run", "The tests fail; fix the bug.", "--root", str(buggy), "--base-url", server.base_url,
                   "--model", "m", "--tools", "text", "--json"])
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    outcome = json.loads(out)
    assert rc == 0 and outcome["status"] == "finished", outcome
    assert "▶ run_shell_command" in err and "▶ replace_in_file [mutating]" in err  # each action shown

    shell = [e for e in trajectory(buggy, outcome["run_id"]) if e["type"] == "tool_result"
             and e["name"] == "run_shell_command"]
    assert "1 failed, 2 passed" in shell[0]["raw_output"] and "ZeroDivisionError" in shell[0]["raw_output"]
    assert "3 passed" in shell[1]["raw_output"] and shell[1]["success"]
    check = subprocess.run(PYTEST.split(), cwd=buggy, capture_output=True, text=True, timeout=300)
    assert check.returncode == 0, check.stdout


def test_ctrl_c_during_a_command_lets_it_finish_then_stops(buggy: Path) -> None:
    script = [tools_reply(call("run_shell_command", command="sleep 8; echo slept")),
              tools_reply(call("finish", summary="never reached"))]
    with FakeOpenAI(script) as server:
        proc = subprocess.Popen([sys.executable, "-m", "agent.cli", "run", "wait", "--root", str(buggy),
                                 "--base-url", server.base_url, "--model", "m", "--json"],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                preexec_fn=interruptible, env={**os.environ, "COLUMNS": "200"})
        runs = buggy / ".codeagent/runs"
        deadline = time.monotonic() + 120
        started = False
        while not started and time.monotonic() < deadline:  # wait until the command is under way
            files = list(runs.glob("*.jsonl")) if runs.is_dir() else []
            started = bool(files) and '"type": "tool_call"' in files[0].read_text()
            time.sleep(0.1)
        if not started:
            proc.kill()
            raise AssertionError(f"the agent never called the tool: {proc.communicate()}")
        proc.send_signal(signal.SIGINT)  # to the agent only: the command keeps running
        out, err = proc.communicate(timeout=120)
    said = f"rc={proc.returncode}\nstdout:\n{out}\nstderr:\n{err[-3000:]}"
    assert proc.returncode == 130, said
    assert "Traceback" not in out + err, said
    outcome = json.loads(out)
    assert outcome["status"] == "interrupted" and "tool calls of that step completed" in outcome["message"], said
    events = trajectory(buggy, outcome["run_id"])
    result = next(e for e in events if e["type"] == "tool_result")
    assert result["success"] and "slept" in result["raw_output"], result
    assert len(server.requests) == 1, said  # no further step after the interrupt
