"""Fixtures of the eval tests: a tiny suite in a temporary folder (fast tasks whose judges are a
grep and a file check), a scripted policy for the fake OpenAI server, and model settings free of
the developer's own (a user config with short timeouts)."""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "agent"))  # fake_openai lives there


ENDPOINT_VARS = ("OPENAI_API_KEY", "OPENAI_BASE_URL", "LLM_API_KEY", "LLM_BASE_URL", "LLM_MODEL", "CODEAGENT_MODEL")
SOLVE_TEXT = "Write the answer 42 into `answer.txt`."
NEVER_TEXT = "Make `answer.txt` say 43."


def write_task(suite: Path, task_id: str, text: str, want: str) -> None:
    d = suite / task_id
    (d / "project").mkdir(parents=True)
    (d / "project" / "README.md").write_text("a tiny project\n", encoding="utf-8")
    (d / "task.toml").write_text(textwrap.dedent(f'''
        id = "{task_id}"
        title = "Task {task_id}"
        kind = "toy"
        language = "text"
        text = "{text.replace('`', '`')}"

        [judge]
        test = "grep -qx {want} answer.txt"
        unchanged = ["README.md"]

        [[judge.expect]]
        path = "answer.txt"
        contains = "{want}"
        '''), encoding="utf-8")


@pytest.fixture
def suite(tmp_path: Path) -> Path:
    """Three toy tasks: `solve` and `solve2` (the policy solves them) and `never` (it gives up)."""
    root = tmp_path / "suite"
    write_task(root, "solve", SOLVE_TEXT, "42")
    write_task(root, "solve2", SOLVE_TEXT + " Then stop.", "42")
    write_task(root, "never", NEVER_TEXT, "43")
    return root


@pytest.fixture(autouse=True)
def short_timeouts(monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory) -> Path:
    for var in ENDPOINT_VARS:
        monkeypatch.delenv(var, raising=False)
    conf = tmp_path_factory.mktemp("userconf") / "config.toml"
    conf.write_text("[llm]\ntimeout = 2\nretry_backoff = 0.01\nmax_retries = 2\n", encoding="utf-8")
    monkeypatch.setenv("CODEAGENT_CONFIG", str(conf))
    return conf
