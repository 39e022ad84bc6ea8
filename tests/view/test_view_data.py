"""What the view reads is untrusted (a checkout can carry any `.codeagent/` folder): a half-written
last line waits for its end, malformed events are left out, and markup in a trajectory is shown
as text, never run, in a real browser."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from viewkit import ViewServer

from agent.trajectory import Trajectory, read_events_from, run_path
from agent.view.runs import load_run, tail
from agent.workspace import Workspace


def test_tailing_takes_only_whole_lines(tmp_path: Path) -> None:
    ws = Workspace(tmp_path)
    traj = Trajectory(ws, "20260101-000000-tail")
    traj.event("run_start", task="t", step=0)
    view = load_run(ws, "20260101-000000-tail")
    assert view.task == "t" and view.steps == {}
    path = run_path(ws, "20260101-000000-tail")
    line = json.dumps({"type": "tool_call", "step": 1, "call_id": "a", "name": "list_directory", "arguments": "{}"})
    with open(path, "a", encoding="utf-8") as fh:
        fh.write(line[:20])  # the writer is mid-line
    assert tail(ws, view) == set() and view.offset < path.stat().st_size
    with open(path, "a", encoding="utf-8") as fh:
        fh.write(line[20:] + "\n")
    assert tail(ws, view) == {1} and view.steps[1].tools[0].name == "list_directory"
    assert read_events_from(ws, "20260101-000000-tail", view.offset) == ([], view.offset)
    traj.close()


def test_malformed_events_are_left_out(tmp_path: Path) -> None:
    ws = Workspace(tmp_path)
    path = run_path(ws, "20260101-000000-bad")
    path.parent.mkdir(parents=True)
    path.write_text("\n".join([
        json.dumps({"type": "run_start", "task": "bad", "time": 1}),
        json.dumps({"type": "tool_call", "step": "three", "call_id": "x"}),
        json.dumps({"type": "llm_response", "step": 1, "duration_s": "slow"}),
        "not json at all",
        json.dumps([1, 2]),
        json.dumps({"type": "tool_call", "step": 1, "call_id": "c", "name": "read_file", "arguments": "{"}),
        json.dumps({"type": "tool_result", "step": 1, "call_id": "c", "success": "yes", "duration_s": None,
                    "files": "nope", "sites": [1, {"path": "a", "line": 1}], "raw_output": 5}),
    ]) + "\n")
    view = load_run(ws, "20260101-000000-bad")
    assert view.skipped == 2 and list(view.steps) == [1]
    result = view.steps[1].tools[0].result
    assert result is not None and result["success"] is False and result["files"] == [] and result["raw_output"] == "5"
    assert result["sites"] == [{"path": "a", "line": 1}] and view.steps[1].tools[0].arguments == "{"


def test_markup_in_a_trajectory_is_shown_as_text(tmp_path: Path, page: Any) -> None:
    ws = Workspace(tmp_path)
    evil = '<script>window.__pwned = 1</script><img src=x onerror="window.__pwned = 2">'
    traj = Trajectory(ws, "20260101-000000-evil")
    traj.event("run_start", task=evil, step=0, llm={"model": evil})
    traj.event("tool_call", step=1, call_id="c", name=evil, arguments=json.dumps({"x": evil}))
    traj.event("tool_result", step=1, call_id="c", name=evil, success=False, raw_output=evil, error=evil,
               diff=f"--- a/x.py\n+++ b/x.py\n@@ -1 +1 @@\n-{evil}\n+{evil}\n",
               sites=[{"path": "x.py", "line": 1, "reason": evil}])
    traj.event("run_end", step=1, status=evil, reason=evil, steps=1)
    traj.close()
    server = ViewServer("view", "--root", str(tmp_path), "--port", "0")
    try:
        for path in ("/runs", "/runs/20260101-000000-evil", "/runs?status=finished"):
            page.goto(f"{server.origin}{path}?token={server.token}" if "?" not in path
                      else f"{server.origin}{path}&token={server.token}")
            assert page.evaluate("window.__pwned") is None, path
            assert page.locator("img[src=x]").count() == 0
        page.goto(f"{server.origin}/runs/20260101-000000-evil")
        assert evil in page.locator("#run-header h1").inner_text()
        assert evil in page.locator("table.unified tr.del td.src").inner_text()
        assert page.evaluate("window.__pwned") is None
    finally:
        server.stop()
