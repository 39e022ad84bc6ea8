"""A daemon imports the tools its first request needs before answering and the others after that
answer (agent/daemon/toolload.py), so a cold `codeagent refs` does not spend ~0.5 s of CPU on
tools it does not use while the language server analyses. A request for a tool not loaded yet is
answered as by a fully loaded daemon."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.timeout(300)

# Builds a real Daemon on the workspace in a fresh interpreter (the registry is per process) and
# runs the scenario named by argv[2]; prints what it saw as JSON.
_PROBE = """
import json, sys, tempfile
from pathlib import Path
from agent.config import load_settings
from agent.daemon.server import Daemon
root, scenario = Path(sys.argv[1]), sys.argv[2]
d = Daemon(root, Path(tempfile.mkdtemp()), load_settings(root))
def ask(name, args, **kw):
    return d.answer({"op": "tool", "build": d.build, "settings": d.settings_id, "inputs": None,
                     "name": name, "args": args, **kw})
seen = {"before": sorted(d.registry.names())}
if scenario == "first-answer":
    reply = ask("find_definition", {"file_path": "notes.txt", "line": 1, "column": 1})
    seen["reply_ok"] = reply["ok"]
    seen["loaded_at_answer"] = "read_file" in d.registry.names()
    d._after_request()  # what serve() does once the answer is sent
    if hasattr(d, "tools"):  # (a daemon that loads everything at once has nothing to wait for)
        d.tools.join(120)
    seen["after"] = sorted(d.registry.names())
elif scenario == "other-tool-first":
    reply = ask("read_file", {"file_path": "notes.txt"})
    seen["success"] = reply["result"]["success"]
    seen["output"] = reply["result"]["output"]
elif scenario == "read-only-refusal":
    reply = ask("write_file", {"file_path": "new.txt", "content": "x"}, read_only=True)
    seen["refused"] = bool(reply.get("not_read_only"))
d.close()
print(json.dumps(seen))
"""


def _probe(root: Path, scenario: str) -> dict[str, object]:
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1", "CODEAGENT_CONFIG": os.devnull}
    proc = subprocess.run([sys.executable, "-c", _PROBE, str(root), scenario], capture_output=True,
                          text=True, timeout=240, env=env, cwd=root)
    assert proc.returncode == 0, proc.stderr[-3000:]
    seen: dict[str, object] = json.loads(proc.stdout.strip().splitlines()[-1])
    return seen


@pytest.fixture()
def root(tmp_path: Path) -> Path:
    (tmp_path / "notes.txt").write_text("alpha\nbeta\n", encoding="utf-8")
    return tmp_path.resolve()


def test_the_other_tools_load_after_the_first_answer(root: Path) -> None:
    seen = _probe(root, "first-answer")
    before = seen["before"]
    assert isinstance(before, list)
    assert "find_references" in before and "rename_symbol" in before  # the first request's module
    assert "read_file" not in before and "run_command" not in before  # not yet
    assert seen["reply_ok"] is True
    assert seen["loaded_at_answer"] is False  # nothing else was imported to give this answer
    after = seen["after"]
    assert isinstance(after, list)
    assert {"read_file", "run_command", "search_in_files", "find_references"} <= set(after)  # then all of them


def test_a_tool_not_loaded_yet_is_answered(root: Path) -> None:
    seen = _probe(root, "other-tool-first")
    assert seen["success"] is True
    assert "alpha" in str(seen["output"]) and "beta" in str(seen["output"])


def test_read_only_refusal_holds_for_a_tool_not_loaded_yet(root: Path) -> None:
    seen = _probe(root, "read-only-refusal")
    assert seen["refused"] is True
    assert not (root / "new.txt").exists()
