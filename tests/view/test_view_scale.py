"""How long the run page takes to show a 200-step run, written with the real Trajectory writer
(each step: a model request carrying its messages, the reply, a tool call and its result; every
tenth step an edit with a diff). The figure is printed; the bound only catches a regression by
an order of magnitude."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from viewkit import ViewServer

from agent.trajectory import Trajectory
from agent.workspace import Workspace

STEPS = 200
BOUND_S = 15.0


def write_long_run(root: Path, run_id: str) -> int:
    ws = Workspace(root)
    traj = Trajectory(ws, run_id)
    traj.event("run_start", step=0, task="refactor the billing module (a long run)", toolset="all",
               llm={"model": "big-model"})
    history: list[dict[str, Any]] = [{"role": "system", "content": "You are a coding agent. " * 80}]
    for n in range(1, STEPS + 1):
        history.append({"role": "user", "content": f"observation {n}: " + "result text " * 40})
        traj.event("llm_request", step=n, attempt=1, model="big-model", messages=history[-24:], tools=["read_file"])
        args = json.dumps({"file_path": f"billing/module_{n % 17}.py", "start_line": n})
        traj.event("llm_response", step=n, attempt=1, duration_s=0.8 + (n % 7) / 10, content=f"Step {n}: looking.",
                   tool_calls=[{"id": f"c{n}", "name": "read_file", "arguments": args}],
                   prompt_tokens=3000 + 40 * n, completion_tokens=60 + n % 50, finish_reason="tool_calls")
        traj.event("tool_call", step=n, call_id=f"c{n}", name="read_file", arguments=args)
        diff = None
        if n % 10 == 0:
            body = "".join(f" line {i}\n" for i in range(3)) + "-    old = compute(x)\n+    new = compute(x, y)\n"
            diff = f"--- a/billing/module_{n}.py\n+++ b/billing/module_{n}.py\n@@ -1,4 +1,4 @@\n{body}"
        traj.event("tool_result", step=n, call_id=f"c{n}", name="read_file", success=n % 23 != 0,
                   raw_output="\n".join(f"{i:4}  def f_{i}(x): return x * {i}" for i in range(60)),
                   error=None if n % 23 else "no such line", duration_s=0.02, output_chars=2000, diff=diff)
    traj.event("run_end", step=STEPS, status="limit", reason="reached the step limit", steps=STEPS, tokens=1_500_000,
               duration_s=900.0, files_changed=[])
    traj.close()
    return (root / ".codeagent/runs" / f"{run_id}.jsonl").stat().st_size


def test_a_200_step_run_page_shows_in_seconds(tmp_path: Path, page: Any) -> None:
    size = write_long_run(tmp_path, "20260101-000000-long")
    server = ViewServer("view", "--root", str(tmp_path), "--port", "0")
    try:
        page.goto(f"{server.origin}/runs?token={server.token}")  # the cookie; not part of the figure
        started = time.monotonic()
        page.goto(f"{server.origin}/runs/20260101-000000-long")
        page.locator(f"#step-{STEPS}").wait_for(state="visible")
        shown = time.monotonic() - started
        assert page.locator("section.step").count() == STEPS
        assert page.locator("svg.chart g.bar").count() == 2 * STEPS
        assert page.locator("section.step.has-error").count() == STEPS // 23
        assert page.locator(".diff").count() == STEPS // 10
        started = time.monotonic()
        page.goto(f"{server.origin}/runs")
        page.locator('tr[data-run="20260101-000000-long"]').wait_for()
        listed = time.monotonic() - started
    finally:
        server.stop()
    print(f"\n200-step run ({size / 1e6:.1f} MB trajectory): run page shown in {shown:.2f} s, "
          f"runs list in {listed:.2f} s")
    assert shown < BOUND_S
