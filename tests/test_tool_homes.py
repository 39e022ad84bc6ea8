"""`codeagent tool NAME` imports only NAME's tool module (agent/commands/tool_command.py
TOOL_HOMES): the table names every tool and the module that registers it, and a one-shot call
through it answers as the full registry does, without importing the language-server stack."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from agent.bootstrap import load_all_tools
from agent.commands.tool_command import TOOL_HOMES
from agent.tools import TOOL_MODULES


def test_every_tool_is_found_in_the_module_the_table_names() -> None:
    registry = load_all_tools()
    homes = {name: registry.get(name).fn.__module__.rpartition(".")[2] for name in registry.names()}
    assert homes == TOOL_HOMES
    assert set(TOOL_HOMES.values()) <= set(TOOL_MODULES)


def test_a_one_shot_search_loads_one_tool_module(root: Path) -> None:
    (root / "a.py").write_text("needle = 1\n")
    probe = ("import runpy, sys; sys.argv = ['codeagent'] + sys.argv[1:]\n"
             "try:\n    runpy.run_module('agent.cli', run_name='__main__')\n"
             "except SystemExit:\n    pass\n"
             "print(sorted(m for m in sys.modules if m.startswith('agent.tools.')), file=sys.stderr)")
    proc = subprocess.run([sys.executable, "-c", probe, "tool", "search_in_files", "--no-daemon", "--root", str(root),
                           "--args", json.dumps({"pattern": "needle"})], capture_output=True, text=True, timeout=300)
    out = json.loads(proc.stdout)
    assert out["success"] and out["data"]["total_matches"] == 1, proc.stderr
    loaded = proc.stderr.strip().splitlines()[-1]
    assert loaded == "['agent.tools.workspace_search']", loaded
