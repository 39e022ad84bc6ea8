"""The Eval page in a real browser: `codeagent view --eval DIR` opens on the report of a real
`codeagent eval --out DIR` (a toy suite, scripted replies from the tests' OpenAI-protocol server):
one row per task and toolset, the totals, the paired differences overall and per task. Before the
evaluation has written its report the page says so; a reload shows the report once it exists."""

from __future__ import annotations

import json
import os
import subprocess
import textwrap
from pathlib import Path
from typing import Any

import pytest
from clikit import codeagent_command
from viewkit import FakeOpenAI, ViewServer, call, cli_env, tools_reply

ENDPOINT_VARS = ("OPENAI_API_KEY", "OPENAI_BASE_URL", "LLM_API_KEY", "LLM_BASE_URL", "LLM_MODEL", "CODEAGENT_MODEL")


def write_task(suite: Path, task_id: str, text: str, want: str) -> None:
    d = suite / task_id
    (d / "project").mkdir(parents=True)
    (d / "project" / "README.md").write_text("a tiny project\n", encoding="utf-8")
    (d / "task.toml").write_text(textwrap.dedent(f'''
        id = "{task_id}"
        title = "Task {task_id}"
        kind = "toy"
        language = "text"
        text = "{text}"

        [judge]
        test = "grep -qx {want} answer.txt"
        '''), encoding="utf-8")


def policy(body: dict[str, Any]) -> Any:
    """`solve` writes the answer (the semantic run looks around first: one call more); `never` gives up."""
    names = {t["function"]["name"] for t in body.get("tools", [])}
    task = next(str(m.get("content")) for m in body["messages"] if m.get("role") == "user")
    done = sum(1 for m in body["messages"] if m.get("role") == "assistant")
    steps = [call("write_file", file_path="answer.txt", content="42\n")] if "42" in task else []
    if "rename_symbol" in names and steps:
        steps = [call("list_directory", path="."), *steps]
    if done < len(steps):
        return tools_reply(steps[done])
    return tools_reply(call("finish", summary="done"))


def run_eval(suite: Path, out: Path) -> None:
    with FakeOpenAI([policy] * 60) as server:
        env = {k: v for k, v in cli_env().items() if k not in ENDPOINT_VARS}
        proc = subprocess.run([*codeagent_command(), "eval", "--suite", str(suite), "--base-url", server.base_url,
                               "--model", "scripted", "--out", str(out), "--repeat", "2"],
                              capture_output=True, text=True, env=env, timeout=600)
    assert proc.returncode == 0, proc.stderr


@pytest.mark.timeout(600)
def test_the_eval_page_shows_the_report_per_task_and_toolset_with_paired_differences(
        buggy: Path, tmp_path: Path, page: Any) -> None:
    suite, out = tmp_path / "suite", tmp_path / "out"
    write_task(suite, "solve", "Write the answer 42 into `answer.txt`.", "42")
    write_task(suite, "never", "Make `answer.txt` say 43.", "43")
    out.mkdir()
    server = ViewServer("view", "--root", str(buggy), "--port", "0", "--eval", str(out))
    try:
        page.goto(server.url)
        page.wait_for_url("**/eval")
        assert "no report yet" in page.locator("#eval-problem").inner_text()
        assert page.locator("header nav a.on").inner_text() == "Eval"

        run_eval(suite, out)
        page.reload()
        rows = page.locator("#eval-rows tbody tr")
        assert rows.count() == 4
        cells = {(r.get_attribute("data-task"), r.get_attribute("data-toolset")):
                 r.locator("td").all_inner_texts() for r in rows.all()}
        # task, toolset, runs, solved, tool calls, model calls, tokens in, tokens out, bytes read, wall s, stop
        assert cells[("solve", "semantic")][:6] == ["solve", "semantic", "2", "100%", "3", "3"]
        assert cells[("solve", "text")][:6] == ["solve", "text", "2", "100%", "2", "2"]
        assert cells[("never", "text")][:4] == ["never", "text", "2", "0%"]
        assert cells[("never", "text")][-1] == "finished×2"
        assert page.locator('#eval-rows tr[data-task="never"].unsolved').count() == 2
        totals = page.locator("#eval-totals tbody tr").all_inner_texts()
        assert len(totals) == 2 and totals[0].startswith("semantic")
        paired = {r.get_attribute("data-task"): r.locator("td").all_inner_texts()
                  for r in page.locator("#eval-paired tbody tr").all()}
        assert set(paired) == {"(all)", "solve", "never"}
        # semantic - text: 4 pairs over both tasks; `solve` costs one call more every time, `never` none
        assert paired["(all)"][:4] == ["all tasks", "4", "+0 pts ± 0 pts", "0.5 ± 0.9"]
        assert paired["solve"][:4] == ["solve", "2", "+0 pts ± 0 pts", "1 ± 0"]
        assert paired["never"][:4] == ["never", "2", "+0 pts ± 0 pts", "0 ± 0"]
        report = json.loads((out / "report.json").read_text(encoding="utf-8"))
        assert report["paired"]["pairs"] == 4  # the page shows what the file holds
    finally:
        server.stop()


def test_eval_of_a_missing_folder_is_a_usage_error(buggy: Path, tmp_path: Path) -> None:
    proc = subprocess.run([*codeagent_command(), "view", "--root", str(buggy), "--eval", str(tmp_path / "nope")],
                          capture_output=True, text=True, env={**os.environ, **cli_env()}, timeout=120)
    assert proc.returncode == 2 and "is not a folder" in proc.stderr
