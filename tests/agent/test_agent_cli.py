"""`codeagent run / runs / replay / undo --run` end to end, in-process and as a real subprocess."""

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
from fake_openai import HTML_PAGE, FakeOpenAI, Fault, Reply, call, tools_reply

from agent.cli import main
from agent.config import load_settings

FIX_OLD = "    total = sum(values)\n    return total / len(values)\n"
FIX_NEW = "    if not values:\n        return 0.0\n    total = sum(values)\n    return total / len(values)\n"


def cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    rc = main(list(argv))
    out, err = capsys.readouterr()
    return rc, out, err


def run_json(capsys: pytest.CaptureFixture[str], server: FakeOpenAI, root: Path, *extra: str) -> tuple[int, dict, str]:
    rc, out, err = cli(capsys, "run", "make the tests pass", "--root", str(root), "--base-url", server.base_url,
                       "--model", "m", "--json", *extra)
    assert "Traceback" not in out + err
    return rc, json.loads(out), err


def test_without_an_endpoint_run_says_how_to_configure_one(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, err = cli(capsys, "run", "fix it", "--root", str(tmp_path))
    assert rc == 2 and out == ""
    for needle in ("OPENAI_API_KEY", "LLM_BASE_URL", "DeepSeek", "https://api.deepseek.com/v1", "vLLM",
                   "http://localhost:8000/v1", "llama.cpp", "http://localhost:8080/v1", "Ollama",
                   "http://localhost:11434/v1", ".codeagent.toml", "--model"):
        assert needle in err, needle


def test_a_base_url_without_a_model_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rc, _, err = cli(capsys, "run", "fix it", "--root", str(tmp_path), "--base-url", "http://127.0.0.1:9/v1")
    assert rc == 2 and "no model name" in err and "--model" in err


def test_invalid_settings_name_the_file_and_field(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                  project_config: Any) -> None:
    project_config(tmp_path, llm={"temperature": 7})
    rc, _, err = cli(capsys, "run", "fix it", "--root", str(tmp_path), "--model", "m")
    assert rc == 2 and ".codeagent.toml" in err and "llm.temperature" in err and "less than or equal to 2" in err


def test_settings_merge_user_file_project_file_env_flags(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                          project_config: Any) -> None:
    user = tmp_path / "user.toml"
    user.write_text('[llm]\nmodel = "from-user"\ntemperature = 0.5\ntimeout = 10\n', encoding="utf-8")
    project_config(tmp_path, llm={"model": "from-project", "temperature": 0.7})
    monkeypatch.setenv("CODEAGENT_CONFIG", str(user))
    monkeypatch.setenv("OPENAI_BASE_URL", "http://openai-var/v1")
    monkeypatch.setenv("LLM_BASE_URL", "http://llm-var/v1")  # ours wins over OpenAI's name
    monkeypatch.setenv("OPENAI_API_KEY", "k1")
    s = load_settings(tmp_path, overrides={"llm": {"temperature": 0.1}})
    assert (s.llm.model, s.llm.temperature, s.llm.timeout) == ("from-project", 0.1, 10)
    assert s.llm.base_url == "http://llm-var/v1" and s.llm.api_key == "k1"
    assert "k1" not in repr(s)  # the key never shows in a repr (logs, tracebacks)


# ----------------------------------------------------------------------------- fault injection
ok_end = tools_reply(call("finish", summary="all good"))


@pytest.mark.parametrize("script, rc_expected, says", [
    ([Fault(429), ok_end], 0, "all good"),
    ([Fault(500), Fault(500), ok_end], 0, "all good"),
    ([Fault(delay=3.0), ok_end], 0, "all good"),
    ([Fault(200, HTML_PAGE, "text/html"), ok_end], 0, "all good"),
    ([tools_reply(("read_file", '{"file_path": ')), ok_end], 0, "all good"),
    ([tools_reply(call("delete_everything")), ok_end], 0, "all good"),
    ([Fault(delay=3.0), Fault(delay=3.0), Fault(delay=3.0)], 1, "no answer within 1 s"),
    ([Fault(401)], 1, "refused the credentials (401)"),
    ([tools_reply(call("read_file", file_path="buggy.py")), tools_reply(call("list_directory"))] * 3, 1, "stuck"),
], ids=["429", "500x2", "timeout", "html", "bad-args", "unknown-tool", "timeouts", "auth", "loop"])
def test_faults_recover_or_stop_with_a_clear_reason(buggy: Path, capsys: pytest.CaptureFixture[str],
                                                    project_config: Any, script: list, rc_expected: int,
                                                    says: str) -> None:
    project_config(buggy, llm={"retry_backoff": 0.01, "timeout": 1.0})
    with FakeOpenAI(list(script)) as server:
        rc, outcome, err = run_json(capsys, server, buggy)
    assert rc == rc_expected, outcome
    assert says in outcome["message"]


# ----------------------------------------------------------------------------- runs, undo, replay
def edit_run_script() -> list[Reply]:
    return [
        tools_reply(call("read_file", file_path="buggy.py"), call("search_in_files", pattern="def mean")),
        tools_reply(call("replace_in_file", file_path="buggy.py", old_text=FIX_OLD, new_text=FIX_NEW)),
        tools_reply(call("replace_in_file", file_path="buggy.py", old_text="A tiny statistics module",
                         new_text="A small statistics module")),
        tools_reply(call("write_file", file_path="notes/CHANGES.md", content="mean([]) is 0.0 now\n")),
        tools_reply(call("remember", note="Tests run with `python -m pytest -q` from the root.")),
        tools_reply(call("finish", summary="mean([]) returns 0.0")),
    ]


def test_undo_run_restores_every_file_and_replay_reproduces_it(buggy: Path, capsys: pytest.CaptureFixture[str]) -> None:
    original = (buggy / "buggy.py").read_bytes()
    with FakeOpenAI(edit_run_script()) as server:
        rc, outcome, _ = run_json(capsys, server, buggy)
    assert rc == 0 and outcome["status"] == "finished"
    run_id = outcome["run_id"]
    fixed = (buggy / "buggy.py").read_text()
    assert "if not values:" in fixed and (buggy / "notes/CHANGES.md").is_file()
    assert "python -m pytest -q" in (buggy / ".codeagent/memory.md").read_text()

    rc, out, _ = cli(capsys, "runs", "--root", str(buggy), "--json")
    runs = json.loads(out)
    assert [r["run_id"] for r in runs] == [run_id] and runs[0]["status"] == "finished"
    assert runs[0]["tool_calls"] == 7 and runs[0]["task"] == "make the tests pass"
    rc, out, _ = cli(capsys, "runs", "--root", str(buggy))
    assert run_id in out and "finished" in out

    rc, out, _ = cli(capsys, "undo", "--root", str(buggy), "--run", run_id, "--json")
    assert rc == 0
    assert (buggy / "buggy.py").read_bytes() == original and not (buggy / "notes/CHANGES.md").exists()
    assert sorted(set(json.loads(out.splitlines()[-1])["files"])) == ["buggy.py", "notes/CHANGES.md"]

    rc, out, _ = cli(capsys, "replay", run_id, "--root", str(buggy))
    assert rc == 0, out
    assert "replayed 5 tool calls" in out and "(2 skipped)" in out and "no divergence" in out
    assert (buggy / "buggy.py").read_text() == fixed and (buggy / "notes/CHANGES.md").is_file()
    assert (buggy / ".codeagent/memory.md").read_text().count("python -m pytest") == 1  # remember is not replayed

    # the tree now differs from the one the run started from: the replay says where
    rc, out, _ = cli(capsys, "replay", run_id, "--root", str(buggy), "--json")
    assert rc == 1
    report = json.loads(out)
    first = report["divergences"][0]
    assert first["index"] == 1 and first["tool"] == "read_file" and "if not values:" in first["got"]
    assert any(d["tool"] == "replace_in_file" and d["got"].startswith("ERROR") for d in report["divergences"])


def test_replay_of_an_unknown_run_is_a_usage_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rc, _, err = cli(capsys, "replay", "nope", "--root", str(tmp_path))
    assert rc == 2 and "no such run 'nope'" in err
    rc, _, err = cli(capsys, "replay", "../../etc/passwd", "--root", str(tmp_path))
    assert rc == 2 and "not a run id" in err


def test_memory_is_read_at_the_start_of_the_next_run(buggy: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with FakeOpenAI([tools_reply(call("remember", note="Use  tabs?  No: 4 spaces.")), ok_end]) as server:
        run_json(capsys, server, buggy)
    with FakeOpenAI([ok_end]) as server:
        rc, _, _ = run_json(capsys, server, buggy)
        system = server.requests[0]["messages"][0]["content"]
    assert rc == 0 and "Project memory" in system and "- Use tabs? No: 4 spaces." in system


def test_git_checkpoint_records_the_tree_without_touching_the_index(buggy: Path,
                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@t"}
    for args in (["init", "-q"], ["add", "buggy.py"], ["commit", "-qm", "base"]):
        subprocess.run(["git", *args], cwd=buggy, check=True, env=env)
    status_before = subprocess.run(["git", "status", "--porcelain"], cwd=buggy, capture_output=True, text=True).stdout
    with FakeOpenAI([ok_end]) as server:
        rc, outcome, err = run_json(capsys, server, buggy, "--checkpoint")
    assert rc == 0 and "git checkpoint refs/codeagent/runs/" in err
    ref = f"refs/codeagent/runs/{outcome['run_id']}"
    files = subprocess.run(["git", "ls-tree", "-r", "--name-only", ref], cwd=buggy, capture_output=True, text=True)
    assert {"buggy.py", "test_buggy.py", "README.md"} <= set(files.stdout.split())  # untracked files too
    status_after = subprocess.run(["git", "status", "--porcelain"], cwd=buggy, capture_output=True, text=True).stdout
    assert status_after == status_before  # the user's index is as it was


def test_ctrl_c_while_waiting_for_the_model_stops_cleanly(buggy: Path) -> None:
    with FakeOpenAI([Fault(delay=30.0)]) as server:
        proc = subprocess.Popen([sys.executable, "-m", "agent.cli", "run", "fix it", "--root", str(buggy),
                                 "--base-url", server.base_url, "--model", "m"],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                preexec_fn=interruptible, env={**os.environ, "COLUMNS": "200"})
        deadline = time.monotonic() + 60
        while not server.requests and time.monotonic() < deadline:
            time.sleep(0.1)
        assert server.requests, "the agent never asked the model"
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, out + err
    assert "interrupted" in out and "Traceback" not in out + err
    run_id = next(p.stem for p in (buggy / ".codeagent/runs").glob("*.jsonl"))
    last = json.loads((buggy / f".codeagent/runs/{run_id}.jsonl").read_text().splitlines()[-1])
    assert last["type"] == "run_end" and last["status"] == "interrupted"
