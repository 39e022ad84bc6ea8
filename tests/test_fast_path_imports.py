"""The warm fast path (agent/entry.py → commands/via_daemon.py → daemon/wire.py) loads only a few
small modules of ours and of the interpreter's builtins: not the settings models, pydantic,
tree-sitter, the language-server client or the full CLI, and not even pathlib, typing, re,
argparse, enum or json's Python layer, whose imports were ~25 ms of a ~60 ms warm call.

Run without site (`-S`, the code on PYTHONPATH), so what is counted is what our modules import,
not what a development install's import hook or the interpreter's start-up already loaded."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import agent

REPO = Path(__file__).resolve().parents[1]
HEAVY_PACKAGES = ("pydantic", "tree_sitter", "lsprotocol", "lsp_bridge")
HEAVY_MODULES = {"agent.config", "agent.configtrust", "agent.bootstrap", "agent.registry", "agent.cli"}
# Everything a warm `codeagent refs` may load beyond a bare interpreter's modules.
OURS = {"agent", "agent.entry", "agent.errors", "agent.languages", "agent.configpaths", "agent.commands",
        "agent.commands.via_daemon", "agent.commands.quickparse", "agent.commands.arguments",
        "agent.commands.navigation_arguments", "agent.commands.output", "agent.commands.colour",
        "agent.daemon", "agent.daemon.wire"}
BUILTIN = {"__future__", "gc", "_json", "_sha2", "_sha256", "_socket"}
NEVER = {"pathlib", "typing", "re", "argparse", "enum", "json", "urllib", "urllib.parse", "dataclasses",
         "collections", "functools", "importlib.util", "socket", "gettext", "locale", "hashlib", "tempfile"}

PROBE = """
import os, sys
before = set(sys.modules)
import agent.entry
from agent.commands.output import emit
from agent.commands.via_daemon import semantic_call
from agent.daemon.wire import ask_tool, decode_message, encoded_result
call = semantic_call(["refs", "m.py:1:5", "--root", sys.argv[1], "--json"])
assert call is not None and ask_tool(call.root, call.tool, call.tool_args) is None  # (no daemon: nothing found)
line = b'{"ok": true, "result": {"success": true, "output": "x", "data": {"count": 0}}}\\n'
reply = decode_message(line)
emit(True, reply["result"], encoded=encoded_result(line, reply))
emit(False, reply["result"])
os.write(2, repr(sorted(set(sys.modules) - before)).encode())
"""


def test_the_warm_fast_path_loads_only_its_own_few_modules(tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text("def f():\n    pass\n")
    env = {**os.environ, "PYTHONPATH": str(REPO), "TMPDIR": str(tmp_path)}
    out = subprocess.run([sys.executable, "-S", "-c", PROBE, str(tmp_path)], capture_output=True, text=True,
                         timeout=60, env=env, cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert out.stdout == '{"success": true, "output": "x", "data": {"count": 0}}\nx\n'
    loaded = set(ast.literal_eval(out.stderr))
    assert "agent.commands.via_daemon" in loaded and "agent.daemon.wire" in loaded
    heavy = [m for m in loaded if m in HEAVY_MODULES or m.split(".")[0] in HEAVY_PACKAGES]
    assert heavy == [], heavy
    assert loaded & NEVER == set(), sorted(loaded & NEVER)
    assert loaded - OURS - BUILTIN == set(), sorted(loaded - OURS - BUILTIN)


def test_the_bare_probe_would_see_a_heavy_import() -> None:
    """The probe's method works: a module that imports pathlib shows it (-S loads no pathlib)."""
    code = "import sys; b = set(sys.modules); import agent.daemon.protocol; print(sorted(set(sys.modules) - b))"
    out = subprocess.run([sys.executable, "-S", "-c", code], capture_output=True, text=True, timeout=60,
                         env={**os.environ, "PYTHONPATH": str(REPO)}, check=True)
    assert "'pathlib'" in out.stdout and "'typing'" in out.stdout


def test_the_codeagent_command_imports_nothing_before_the_entry() -> None:
    """`codeagent` is bin/codeagent itself, not an entry point: the wrapper an installer writes for
    one imports re before our code (distlib's template), which the fast path no longer needs."""
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    assert "codeagent" not in project["project"].get("scripts", {})
    assert project["tool"]["setuptools"]["script-files"] == ["bin/codeagent"]
    script = REPO / "bin" / "codeagent"
    tree = ast.parse(script.read_text(encoding="utf-8"))
    imported = {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    imported |= {n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
    assert imported == {"sys", "agent.entry"}
    assert script.read_text(encoding="utf-8").startswith("#!python\n") and os.access(script, os.X_OK)
    out = subprocess.run([sys.executable, str(script), "--version"], capture_output=True, text=True, timeout=120,
                         env={**os.environ, "PYTHONPATH": str(REPO)})
    assert (out.returncode, out.stdout.strip()) == (0, f"codeagent {agent.__version__}"), out.stderr
