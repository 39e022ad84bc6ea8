"""The semantic tools run ripgrep on the host: never an `rg` found through a PATH folder inside the
workspace (an activated workspace venv puts one there, and the sandbox may write it)."""

from __future__ import annotations

import os
from pathlib import Path

from semantic_helpers import run_cli


def test_no_rg_from_a_workspace_folder_on_path(tmp_path: Path) -> None:
    root, markers = tmp_path / "ws", tmp_path / "markers"
    (root / "bin").mkdir(parents=True)
    markers.mkdir()
    (root / "a.py").write_text("def foo():\n    return 1\n\nfoo()\n", encoding="utf-8")
    (root / "b.py").write_text("from a import foo\nfoo()\n", encoding="utf-8")
    (root / "bin" / "rg").write_text(f"#!/bin/sh\ntouch {markers}/rg\nexit 1\n", encoding="utf-8")
    (root / "bin" / "rg").chmod(0o755)
    user = tmp_path / "user.toml"  # no server: the syntactic fallback lists files with ripgrep
    user.write_text('[lsp]\nserver_commands = {python = ["/nonexistent/server"]}\n', encoding="utf-8")
    env = {"CODEAGENT_CONFIG": str(user), "PATH": f"{root / 'bin'}{os.pathsep}{os.environ['PATH']}"}
    r = run_cli("refs", "a.py:1:5", "--root", str(root), "--json", "--no-daemon", env=env)
    assert r.returncode == 0, r.stderr
    assert r.json["data"]["source"] == "syntactic"
    assert list(markers.iterdir()) == []
