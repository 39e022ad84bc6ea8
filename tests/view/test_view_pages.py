"""The web view in a real browser: a scripted `codeagent run` is listed, its page shows the tool
calls and the edit's diff, a run in progress grows without a reload, and undo from the page
restores the files (bytes checked) or is refused as `codeagent undo` refuses it."""

from __future__ import annotations

import json
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from clikit import codeagent_command
from viewkit import TASK, ViewServer, cli_env, screenshot, scripted_run, stuck_run

from agent.trajectory import Trajectory
from agent.workspace import Workspace


@pytest.fixture
def view(buggy: Path) -> Iterator[ViewServer]:
    server = ViewServer("view", "--root", str(buggy), "--port", "0")
    yield server
    server.stop()


def test_a_scripted_run_is_listed_and_its_page_shows_the_tool_calls_and_the_diff(buggy: Path, page: Any,
                                                                                   tmp_path: Path) -> None:
    run_id = scripted_run(buggy)
    server = ViewServer("view", "--root", str(buggy), "--port", "0")
    try:
        page.goto(server.url)
        assert "token=" not in page.url  # the token went into a cookie, out of the address bar
        row = page.locator(f'tr[data-run="{run_id}"]')
        assert row.count() == 1
        text = row.inner_text()
        assert TASK[:40] in text and "scripted-model" in text and "finished" in text
        assert "buggy.py" in text and "notes/CHANGES.md" in text and "500 / 100" in text
        # the status filter keeps only runs that ended so
        page.goto(f"{server.origin}/runs?status=stuck")
        assert page.locator("tr[data-run]").count() == 0

        page.goto(f"{server.origin}/runs")
        page.click(f'tr[data-run="{run_id}"] td.task a')
        page.wait_for_url(f"**/runs/{run_id}")
        tools = page.locator(".tool .tname").all_inner_texts()
        assert tools == ["read_file", "search_in_files", "replace_in_file", "read_file", "write_file", "finish"]
        assert page.locator(".tool.fail .tname").inner_text() == "read_file"  # the failed call is marked
        assert "stats/missing.py" in page.locator(".tool.fail").inner_text()
        assert page.locator("#step-3.has-error").count() == 1
        edit = page.locator('.tool[data-tool="replace_in_file"]')
        added = edit.locator("table.unified tr.add td.src").all_inner_texts()
        assert added == ["    if not values:", "        return 0.0"]
        assert edit.locator("table.unified tr.add .k").first.inner_text() == "if"  # highlighted as Python
        assert "mean([]) returns 0.0 now" in page.locator(".answer").inner_text()
        assert page.locator("svg.chart g.bar").count() == 10  # two panels of five steps
        # side by side: the removed column is empty beside the two added lines
        assert not edit.locator("table.split").is_visible()
        edit.locator('button[data-layout="split"]').click()
        assert edit.locator("table.split").is_visible() and not edit.locator("table.unified").is_visible()
        assert edit.locator("table.split td.add").count() == 2
        edit.locator('button[data-layout="unified"]').click()
        page.locator('.reply summary').first.click()
        screenshot(page, "view-run.png", tmp_path)
    finally:
        server.stop()


def test_an_event_appended_while_the_page_is_open_appears_without_a_reload(buggy: Path, view: ViewServer,
                                                                         page: Any) -> None:
    ws = Workspace(buggy)
    traj = Trajectory(ws, "20260101-120000-live")
    traj.event("run_start", task="a run in progress", toolset="all", llm={"model": "m"}, step=0)
    traj.event("llm_response", step=1, duration_s=0.4, content="", prompt_tokens=50, completion_tokens=5,
               tool_calls=[{"id": "c1", "name": "list_directory", "arguments": "{}"}])
    traj.event("tool_call", step=1, call_id="c1", name="list_directory", arguments="{}")
    traj.event("tool_result", step=1, call_id="c1", name="list_directory", success=True, raw_output="buggy.py",
               duration_s=0.01)
    page.goto(f"{view.origin}/runs/20260101-120000-live?token={view.token}")
    assert page.locator(".live").is_visible()
    page.evaluate("window.__sameDocument = true")
    assert page.locator("#step-2").count() == 0

    traj.event("llm_response", step=2, duration_s=0.3, content="", prompt_tokens=60, completion_tokens=7,
               tool_calls=[{"id": "c2", "name": "read_file", "arguments": '{"file_path": "buggy.py"}'}])
    traj.event("tool_call", step=2, call_id="c2", name="read_file", arguments='{"file_path": "buggy.py"}')
    page.wait_for_selector("#step-2 .tool.pending", timeout=10_000)  # the call, still without its result
    traj.event("tool_result", step=2, call_id="c2", name="read_file", success=False, raw_output="",
               error="buggy.py: not today", duration_s=0.02)
    traj.event("note", step=2, category="stuck", text="You called read_file 3 times with the same failure.")
    page.wait_for_selector("#step-2 .tool.fail", timeout=10_000)
    assert "not today" in page.locator("#step-2").inner_text()
    assert "stuck hint" in page.locator("#step-2 .flag.stuck").inner_text()
    assert "110 / 12" in page.locator("#run-header").inner_text()  # the header's totals moved on

    traj.event("run_end", step=2, status="stuck", reason="the run repeats itself", steps=2, tokens=122,
               duration_s=1.5, files_changed=[])
    traj.close()
    page.wait_for_selector("#run-header .status.stuck", timeout=10_000)
    page.wait_for_function("!document.querySelector('.live')", timeout=10_000)
    assert page.evaluate("window.__sameDocument") is True  # never reloaded


def test_undo_from_the_page_restores_the_files(buggy: Path, page: Any) -> None:
    original = (buggy / "buggy.py").read_bytes()
    run_id = scripted_run(buggy)
    assert (buggy / "buggy.py").read_bytes() != original and (buggy / "notes/CHANGES.md").exists()
    server = ViewServer("view", "--root", str(buggy), "--port", "0")
    try:
        page.goto(f"{server.origin}/runs/{run_id}?token={server.token}")
        page.once("dialog", lambda dialog: dialog.accept())
        page.click("#run-header button.danger")
        page.wait_for_selector(".flash")
        assert "undid" in page.locator(".flash.ok").inner_text()
        assert (buggy / "buggy.py").read_bytes() == original
        assert not (buggy / "notes/CHANGES.md").exists() and not (buggy / "notes").exists()
        assert page.locator(".op").count() == 0  # the journal has nothing left of the run
    finally:
        server.stop()


def test_undo_of_an_operation_whose_file_changed_since_is_refused_as_on_the_command_line(
        buggy: Path, page: Any) -> None:
    run_id = scripted_run(buggy)
    (buggy / "buggy.py").write_text("# edited by hand after the run\n", encoding="utf-8")
    server = ViewServer("view", "--root", str(buggy), "--port", "0")
    try:
        page.goto(f"{server.origin}/ops?run={run_id}&token={server.token}")
        ops = page.locator(".op")
        assert ops.count() == 2
        edit = page.locator(".op", has_text="replace_in_file")
        assert "changed since" in edit.inner_text()  # what it wrote is gone
        page.once("dialog", lambda dialog: dialog.accept())
        edit.locator("button.danger").click()
        page.wait_for_selector(".flash")
        message = page.locator(".flash.refused").inner_text()
        assert "undo refused" in message and "buggy.py: changed since operation" in message
        assert (buggy / "buggy.py").read_text(encoding="utf-8") == "# edited by hand after the run\n"
        # the note it also wrote is untouched and can still be undone on its own
        note = page.locator(".op", has_text="write_file")
        assert note.locator("table.unified tr.add td.src").all_inner_texts() == ["mean([]) is 0.0 now"]
        page.once("dialog", lambda dialog: dialog.accept())
        note.locator("button.danger").click()
        page.wait_for_selector(".flash.ok")
        assert not (buggy / "notes/CHANGES.md").exists()
    finally:
        server.stop()


def test_a_started_view_prints_its_url_and_stops_on_sigterm(buggy: Path) -> None:
    started = time.monotonic()
    server = ViewServer("view", "--root", str(buggy), "--port", "0")
    assert server.url.startswith("http://127.0.0.1:") and len(server.token) >= 32
    server.stop()
    assert server.proc.returncode is not None and time.monotonic() - started < 30
    assert "Traceback" not in server.stderr


def test_a_stuck_run_shows_the_hint_it_was_given_and_filters_by_status(buggy: Path, page: Any) -> None:
    finished = scripted_run(buggy)
    stuck = stuck_run(buggy)
    server = ViewServer("view", "--root", str(buggy), "--port", "0")
    try:
        page.goto(f"{server.url}")
        assert page.locator("tr[data-run]").count() == 2
        assert page.locator("tr[data-run]").first.get_attribute("data-run") == stuck  # newest first
        page.select_option("select[name=status]", "stuck")
        page.wait_for_url("**/runs?status=stuck")
        assert [r.get_attribute("data-run") for r in page.locator("tr[data-run]").all()] == [stuck]
        page.goto(f"{server.origin}/runs?status=finished")
        assert [r.get_attribute("data-run") for r in page.locator("tr[data-run]").all()] == [finished]
        page.goto(f"{server.origin}/runs/{stuck}")
        hint = page.locator(".step.has-stuck .flag.stuck")
        assert hint.count() >= 1 and "stuck hint" in hint.first.inner_text()
        assert "stopped:" in page.locator("#run-header").inner_text()
    finally:
        server.stop()


def test_open_hands_the_printed_url_to_the_browser(buggy: Path, tmp_path: Path) -> None:
    opener = tmp_path / "opener.sh"
    seen = tmp_path / "opened.txt"
    opener.write_text(f'#!/bin/sh\necho "$1" > {seen}\n')
    opener.chmod(0o755)
    server = ViewServer("view", "--root", str(buggy), "--port", "0", "--open", env={"BROWSER": str(opener)})
    try:
        deadline = time.monotonic() + 20
        while not seen.exists() and time.monotonic() < deadline:
            time.sleep(0.1)
        assert seen.read_text().strip() == server.url
    finally:
        server.stop()


def test_operations_from_the_command_line_show_what_each_wrote(buggy: Path, page: Any) -> None:
    """Two edits of one file outside any run: each diff is rebuilt from the journal (the first one's
    new bytes are the second one's old bytes), and undoing the newest restores the middle state."""
    env = cli_env()
    for old, new in (("A tiny statistics module", "A small statistics module"), ("A small statistics", "A compact statistics")):
        args = json.dumps({"file_path": "buggy.py", "old_text": old, "new_text": new})
        proc = subprocess.run([*codeagent_command(), "tool", "replace_in_file", "--root", str(buggy), "--args", args],
                              capture_output=True, text=True, env=env, timeout=120)
        assert proc.returncode == 0, proc.stdout + proc.stderr
    middle = (buggy / "buggy.py").read_bytes().replace(b"A compact statistics", b"A small statistics")
    server = ViewServer("view", "--root", str(buggy), "--port", "0")
    try:
        page.goto(f"{server.origin}/ops?token={server.token}")
        ops = page.locator(".op")
        assert ops.count() == 2 and ops.first.locator(".tag", has_text="command line").count() == 1
        newest, oldest = ops.nth(0), ops.nth(1)
        assert "compact statistics" in newest.locator("tr.add").inner_text()
        assert "small statistics" in newest.locator("tr.del").inner_text()
        assert "small statistics" in oldest.locator("tr.add").inner_text()
        assert "tiny statistics" in oldest.locator("tr.del").inner_text()
        page.once("dialog", lambda dialog: dialog.accept())
        newest.locator("button.danger").click()
        page.wait_for_selector(".flash.ok")
        assert (buggy / "buggy.py").read_bytes() == middle
        assert page.locator(".op").count() == 1
    finally:
        server.stop()


def test_an_older_trajectory_without_diffs_draws_its_edits_from_the_journal(buggy: Path, page: Any) -> None:
    run_id = scripted_run(buggy)
    path = buggy / ".codeagent/runs" / f"{run_id}.jsonl"
    events = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    for ev in events:  # as trajectories were written before they kept each edit's diff
        ev.pop("diff", None)
        ev.pop("sites", None)
    path.write_text("".join(json.dumps(ev) + "\n" for ev in events), encoding="utf-8")
    server = ViewServer("view", "--root", str(buggy), "--port", "0")
    try:
        page.goto(f"{server.origin}/runs/{run_id}?token={server.token}")
        edit = page.locator('.tool[data-tool="replace_in_file"]')
        assert edit.locator(".difftitle").inner_text().lower() == "edit (from the journal)"
        assert edit.locator("table.unified tr.add td.src").all_inner_texts() == ["    if not values:", "        return 0.0"]
    finally:
        server.stop()
