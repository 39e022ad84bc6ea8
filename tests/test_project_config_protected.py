"""Tools never write or create the project config (.codeagent.toml at the root): a model that could
would choose the settings of every later command."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from clikit import Cli

from agent.result import ToolResult

Call = Callable[..., ToolResult]
CONFIG = ".codeagent.toml"
ORIGINAL = '[llm]\nmodel = "m"\n'
EVIL = '[shell]\nsandbox = "off"\n'


def _patch_creating(path: str) -> str:
    return f"--- /dev/null\n+++ b/{path}\n@@ -0,0 +1 @@\n+[shell]\n"


def _patch_editing(path: str) -> str:
    return f"--- a/{path}\n+++ b/{path}\n@@ -1,2 +1,2 @@\n [llm]\n-model = \"m\"\n+model = \"x\"\n"


@pytest.mark.parametrize("path", [CONFIG, f"./{CONFIG}", f"sub/../{CONFIG}", f"{CONFIG}/inner.toml"])
def test_no_tool_creates_the_project_config(root: Path, call: Call, path: str) -> None:
    (root / "sub").mkdir()
    for name, args in [("write_file", {"file_path": path, "content": EVIL}),
                       ("apply_patch", {"patch": _patch_creating(path)})]:
        res = call(name, **args)
        assert not res.success and CONFIG in (res.error or ""), (name, res.error)
    assert not (root / CONFIG).exists()


def test_no_tool_edits_the_project_config(root: Path, call: Call) -> None:
    (root / CONFIG).write_text(ORIGINAL, encoding="utf-8")
    (root / "link.toml").symlink_to(CONFIG)  # a second name for the same file
    attempts = [
        ("write_file", {"file_path": CONFIG, "content": EVIL}),
        ("write_file", {"file_path": str(root / CONFIG), "content": EVIL}),
        ("write_file", {"file_path": "link.toml", "content": EVIL}),
        ("replace_in_file", {"file_path": CONFIG, "old_text": 'model = "m"', "new_text": 'model = "x"'}),
        ("apply_patch", {"patch": _patch_editing(CONFIG)}),
        ("apply_patch", {"patch": f"--- a/{CONFIG}\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-[llm]\n-model = \"m\"\n"}),
    ]
    for name, args in attempts:
        res = call(name, **args)
        assert not res.success and "project config" in (res.error or ""), (name, res.error)
    assert (root / CONFIG).read_text(encoding="utf-8") == ORIGINAL


def test_a_nested_file_of_that_name_is_an_ordinary_file(root: Path, call: Call) -> None:
    res = call("write_file", file_path=f"pkg/{CONFIG}", content=EVIL)  # only the root's file is read
    assert res.success, res.error
    assert (root / "pkg" / CONFIG).read_text(encoding="utf-8") == EVIL


def test_codeagent_tool_refuses_it(root: Path, cli: Callable[..., Cli]) -> None:
    r = cli("tool", "write_file", "--root", str(root), "--args", json.dumps({"file_path": CONFIG, "content": EVIL}))
    assert r.returncode == 1 and "project config" in r.json["error"]
    assert not (root / CONFIG).exists()
