"""`codeagent eval` end to end against the fake OpenAI server with a scripted policy: solved and
unsolved tasks, both toolsets, a 429 and a timeout, --jobs 2, the report files."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from eval_policy import policy, task_of
from fake_openai import FakeOpenAI, Fault, Reply

from agent.cli import main


def run_eval(server: FakeOpenAI, suite: Path, out: Path, *extra: str) -> int:
    return main(["eval", "--suite", str(suite), "--base-url", server.base_url, "--model", "m",
                 "--out", str(out), *extra])


def load_report(out: Path) -> dict[str, Any]:
    return json.loads((out / "report.json").read_text(encoding="utf-8"))


def test_solved_and_unsolved_tasks_with_both_toolsets(suite: Path, tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out"
    with FakeOpenAI([policy] * 40) as server:
        rc = run_eval(server, suite, out, "--tasks", "solve,never")
    assert rc == 0
    rep = load_report(out)
    assert rep["meta"]["complete"] is True and rep["meta"]["finished"] == 4
    rows = {(r["task"], r["toolset"]): r for r in rep["rows"]}
    assert set(rows) == {("solve", "text"), ("solve", "semantic"), ("never", "text"), ("never", "semantic")}
    for ts in ("text", "semantic"):
        solved, never = rows[("solve", ts)], rows[("never", ts)]
        assert solved["solved"] == 1.0 and never["solved"] == 0.0
        assert (solved["tool_calls"], solved["model_calls"], solved["tokens_in"], solved["tokens_out"]) == (2, 2, 200, 40)
        assert solved["bytes_read"] > 0 and solved["stop"] == "finished" and solved["wall_s"] > 0
        assert never["tool_calls"] == 1 and never["stop"] == "finished"
    entry = next(e for e in rep["entries"] if e["task"] == "never")
    assert any("answer.txt is missing" in f for f in entry["judge"]["failures"])
    assert Path(entry["trajectory"]).is_file()
    # the semantic run was offered the semantic tools, the text run not
    offered = {ts: set() for ts in ("text", "semantic")}
    for body in server.requests:
        names = {t["function"]["name"] for t in body.get("tools", [])}
        offered["semantic" if "find_references" in names else "text"] |= names
    assert "rename_symbol" in offered["semantic"] and "rename_symbol" not in offered["text"]
    assert rep["paired"]["pairs"] == 2 and rep["paired"]["solved"]["mean"] == 0.0
    md = (out / "report.md").read_text(encoding="utf-8")
    assert "| solve | semantic | 1 | 100% | 2 | 2 | 200 | 40 |" in md and "Paired difference (semantic - text" in md
    assert "| solve | text |" in capsys.readouterr().out


def test_a_429_and_a_timeout_are_retried_and_counted(suite: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    with FakeOpenAI([Fault(429), Fault(delay=4.0), policy, policy]) as server:
        rc = run_eval(server, suite, out, "--tasks", "solve", "--toolsets", "text")
    assert rc == 0
    (entry,) = load_report(out)["entries"]
    assert entry["solved"] is True and entry["status"] == "finished"
    assert entry["model_errors"] == 2 and entry["model_calls"] == 2


def test_a_model_that_keeps_failing_is_an_unsolved_model_error(suite: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    with FakeOpenAI([Fault(429)] * 3) as server:
        rc = run_eval(server, suite, out, "--tasks", "solve", "--toolsets", "text")
    assert rc == 0
    (entry,) = load_report(out)["entries"]
    assert entry["solved"] is False and entry["status"] == "model_error" and entry["model_errors"] == 3


def test_jobs_2_runs_units_in_parallel_processes(suite: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    active: list[int] = [0]
    peak: list[int] = [0]
    lock = threading.Lock()

    def slow_policy(body: dict[str, Any]) -> Reply | Fault:
        with lock:
            active[0] += 1
            peak[0] = max(peak[0], active[0])
        time.sleep(0.8)  # long enough for the other worker's request to arrive meanwhile
        with lock:
            active[0] -= 1
        return policy(body)

    with FakeOpenAI([slow_policy] * 40) as server:
        rc = run_eval(server, suite, out, "--tasks", "solve,solve2", "--toolsets", "text,semantic", "--jobs", "2")
    assert rc == 0
    rep = load_report(out)
    assert rep["meta"]["finished"] == 4 and all(e["solved"] for e in rep["entries"])
    assert peak[0] == 2, "two workers never asked the model at the same time"
    assert {task_of(b).count("42") for b in server.requests} == {1}


def test_unknown_task_ids_and_toolsets_are_usage_errors(suite: Path, tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    with FakeOpenAI([]) as server:
        assert run_eval(server, suite, tmp_path / "o", "--tasks", "nope") == 2
        assert "unknown task ids: nope" in capsys.readouterr().err
        assert run_eval(server, suite, tmp_path / "o", "--toolsets", "text,magic") == 2
        assert "--toolsets" in capsys.readouterr().err
        assert server.requests == []
