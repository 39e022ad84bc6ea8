"""The warm fast path (agent/entry.py → commands/via_daemon.py, and the daemon protocol it asks)
loads only standard-library modules and a few small ones of ours: not the settings models,
pydantic, tree-sitter, the language-server client or the full CLI, whose imports every warm call
would pay."""

from __future__ import annotations

import json
import subprocess
import sys

HEAVY_PACKAGES = ("pydantic", "tree_sitter", "lsprotocol", "lsp_bridge")
HEAVY_MODULES = {"agent.config", "agent.configtrust", "agent.bootstrap", "agent.registry", "agent.cli"}


def test_the_warm_fast_path_loads_none_of_the_heavy_modules() -> None:
    code = ("import json, sys; import agent.entry, agent.commands.via_daemon, agent.daemon.protocol; "
            "print(json.dumps(sorted(sys.modules)))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    loaded = json.loads(out.stdout)
    assert "agent.commands.via_daemon" in loaded and "agent.commands.output" in loaded
    heavy = [m for m in loaded if m in HEAVY_MODULES or m.split(".")[0] in HEAVY_PACKAGES]
    assert heavy == [], heavy
