"""One cross-file rename, two ways, each a whole agent run over real HTTP with its trajectory:
`rename_symbol` in one call (a real language server behind it) versus text tools (search, then a
replace per matching line, file by file). Reports the tool-output bytes of each."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from fake_openai import FakeOpenAI, call, tools_reply

from agent.bootstrap import open_context
from agent.config import LLMSettings, Settings
from agent.runner import run_agent
from agent.trajectory import read_events

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "pyproj"
OLD, NEW = "area_of", "compute_area"
WORD = re.compile(rf"\b{OLD}\b")


def text_policy_calls(root: Path) -> list[tuple[str, Any]]:
    """What a model does with text tools: every line matching the word, replaced file by file."""
    calls = []
    for path in sorted(root.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        lines = sorted({ln for ln in text.split("\n") if WORD.search(ln)})
        for line in lines:
            calls.append(call("replace_in_file", file_path=path.relative_to(root).as_posix(), old_text=line,
                              new_text=WORD.sub(NEW, line), replace_all=True))
    return calls


def agent_run(root: Path, script: list[Any], tools: str) -> list[dict[str, Any]]:
    with FakeOpenAI(script) as server:
        settings = Settings(llm=LLMSettings(base_url=server.base_url, model="m", retry_backoff=0.0))
        with open_context(root, settings=settings, run_id=f"rename-{tools}") as ctx:
            outcome, _ = run_agent(ctx, settings, f"rename {OLD} to {NEW}", toolset=tools)
            assert outcome.ok, outcome.message
            return read_events(ctx.workspace, f"rename-{tools}")


def project_tests(root: Path) -> tuple[bool, str]:
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"], cwd=root,
                          capture_output=True, text=True, timeout=300)
    return proc.returncode == 0, proc.stdout[-2000:]


def output_bytes(events: list[dict[str, Any]]) -> tuple[int, int]:
    results = [e for e in events if e["type"] == "tool_result" and e["name"] != "finish"]
    return len(results), sum(e["output_bytes"] for e in results)


@pytest.mark.timeout(600)
def test_rename_symbol_versus_text_tools(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    semantic_root, text_root = tmp_path / "semantic", tmp_path / "text"
    for root in (semantic_root, text_root):
        shutil.copytree(FIXTURE, root)

    sem = agent_run(semantic_root, [
        tools_reply(call("rename_symbol", file_path="shapes/geometry.py", line=30, column=5, new_name=NEW)),
        tools_reply(call("finish", summary="renamed")),
    ], "semantic")
    txt = agent_run(text_root, [
        tools_reply(call("search_in_files", pattern=rf"\b{OLD}\b", glob="*.py")),
        tools_reply(*text_policy_calls(text_root)),
        tools_reply(call("finish", summary="renamed")),
    ], "text")

    sem_calls, sem_bytes = output_bytes(sem)
    txt_calls, txt_bytes = output_bytes(txt)
    with capsys.disabled():  # the figures are the point of this test: show them in every run
        print(f"\n[rename {OLD} -> {NEW} on fixtures/pyproj] rename_symbol: {sem_calls} call, {sem_bytes} B of "
              f"tool output; text tools: {txt_calls} calls, {txt_bytes} B")

    rename = next(e for e in sem if e["type"] == "tool_result" and e["name"] == "rename_symbol")
    assert rename["success"], rename["raw_output"]
    assert sorted(rename["files"]) == ["shapes/__init__.py", "shapes/geometry.py", "shapes/labels.py",
                                       "shapes/registry.py", "tests/test_shapes.py"]
    ok, out = project_tests(semantic_root)
    assert ok, out
    geometry = (semantic_root / "shapes/geometry.py").read_text()
    assert "# area_of rounds: this comment mentions area_of" in geometry  # comments left alone
    assert 'label = "area_of"' in (semantic_root / "shapes/registry.py").read_text()  # strings too
    assert '"compute_area"' in (semantic_root / "shapes/__init__.py").read_text()  # but __all__ follows

    # the text route also rewrote the comment, the string the report prints, and the test that checks
    # that string (so the tests still pass: the public output changed and the tests were bent to match)
    assert "# compute_area rounds: this comment mentions compute_area" in (text_root / "shapes/geometry.py").read_text()
    assert 'label = "compute_area"' in (text_root / "shapes/registry.py").read_text()
    assert '"compute_area: 9.0"' in (text_root / "tests/test_shapes.py").read_text()

    assert sem_calls == 1 and txt_calls > 5 and sem_bytes < txt_bytes
    for events in (sem, txt):  # both trajectories hold every request, response, call and result
        kinds = {e["type"] for e in events}
        assert {"run_start", "llm_request", "llm_response", "tool_call", "tool_result", "run_end"} <= kinds
        json.dumps(events)
