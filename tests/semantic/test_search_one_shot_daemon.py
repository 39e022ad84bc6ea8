"""A one-shot `codeagent tool search_in_files` uses the workspace's daemon when one runs (the
warm fast path, or the full CLI when the daemon does not yet know the settings), with the
answer the process gives alone; with none running it starts none and answers itself."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from semantic_helpers import run_cli, served, stop_daemon

from agent.daemon.protocol import state_dir

ARGS = json.dumps({"pattern": "needle", "max_results": 1})


@pytest.fixture
def ws(root: Path) -> Iterator[Path]:
    (root / "src").mkdir()
    (root / "src" / "a.py").write_text("needle = 1\nneedle = 2\n")
    (root / "b.txt").write_text("a needle\n")
    yield root
    stop_daemon(root)


def test_a_one_shot_search_is_answered_by_a_running_daemon_as_by_itself(ws: Path) -> None:
    alone = run_cli("tool", "search_in_files", "--root", str(ws), "--args", ARGS)
    assert alone.returncode == 0, alone.stderr
    assert not (state_dir(ws) / "sock").exists() and served(ws) == []  # none started for a search
    assert run_cli("daemon", "start", "--root", str(ws)).returncode == 0
    answers = [run_cli("tool", "search_in_files", "--root", str(ws), "--args", ARGS) for _ in range(3)]
    assert served(ws, 3) == ["search_in_files"] * 3
    for answer in answers:
        assert answer.returncode == 0, answer.stderr
        data = dict(answer.json["data"])
        data.pop("walk_reused", None)
        assert {**answer.json, "data": data} == alone.json
    assert alone.json["output"] == ("b.txt:1: a needle\n[showing the first 1 of 3 matching lines in 2 files; "
                                    "narrow the pattern, path or glob, or raise max_results]")
