"""The `codeagent` command as a user runs it: a real subprocess, JSON out, exit codes 0/1/2."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

Cli = Callable[..., Any]
Snapshot = Callable[[Path], dict[str, Any]]


def test_tool_success_prints_one_json_object(root: Path, cli: Cli) -> None:
    (root / "a.txt").write_text("hello\nworld\n")
    res = cli("tool", "read_file", "--args", '{"file_path": "a.txt"}', "--root", str(root))
    assert res.returncode == 0, res.stderr
    assert res.json == {"success": True, "output": "1  hello\n2  world", "error": None,
                        "data": {"path": "a.txt", "total_lines": 2, "encoding": "utf-8", "start_line": 1,
                                 "end_line": 2, "truncated": False}}
    assert res.stdout.count("\n") == 1


def test_root_defaults_to_the_current_folder(root: Path, cli: Cli) -> None:
    res = cli("tool", "write_file", "--args", '{"file_path": "new/x.txt", "content": "x\\n"}', cwd=root)
    assert res.returncode == 0 and res.json["success"]
    assert (root / "new" / "x.txt").read_text() == "x\n"


def test_failed_tool_exits_1_with_its_result(root: Path, cli: Cli) -> None:
    res = cli("tool", "read_file", "--args", '{"file_path": "missing.txt"}', "--root", str(root))
    assert res.returncode == 1
    assert res.json["success"] is False and "missing.txt: no such file" in res.json["error"]


@pytest.mark.parametrize(("args", "message"), [
    (["tool", "no_such_tool", "--args", "{}"], "unknown tool 'no_such_tool'; known tools:"),
    (["tool", "write_file", "--args", "{not json"], "--args is not valid JSON"),
    (["tool", "write_file", "--args", "[1, 2]"], "arguments must be a JSON object"),
    (["tool", "write_file", "--args", '{"file_path": "a.txt", "content": 5}'], "content: Input should be a valid string"),
    (["tool", "write_file", "--args", '{"file_path": "a.txt"}'], "content: Field required"),
    (["tool", "write_file", "--args", '{"file_path": "a.txt", "content": "x", "mode": "w"}'],
     "unknown parameter(s) mode; the parameters are: content, file_path, force"),
    (["tool", "read_file", "--args", '{"file_path": "a.txt", "start_line": 0}'], "start_line: Input should be greater"),
    (["tool", "write_file", "--args", '{"file_path": "a.txt", "content": "x"}', "--root", "/no/such/dir"],
     "--root '/no/such/dir'"),
    (["tool"], "the following arguments are required: name"),
    (["tools", "--toolset", "bogus"], "invalid choice: 'bogus'"),
    (["frobnicate"], "invalid choice: 'frobnicate'"),
])
def test_usage_errors_exit_2_and_change_nothing(root: Path, cli: Cli, snapshot: Snapshot, args: list[str],
                                                message: str) -> None:
    (root / "a.txt").write_text("keep\n")
    before = snapshot(root)
    res = cli(*args, cwd=root)
    assert res.returncode == 2, (res.stdout, res.stderr)
    assert message in res.stderr, res.stderr
    assert res.stdout == ""
    assert snapshot(root) == before


def test_escape_through_the_cli_is_refused(root: Path, tmp_path: Path, cli: Cli, snapshot: Snapshot) -> None:
    (tmp_path / "outside.txt").write_text("safe\n")
    before = snapshot(tmp_path)
    res = cli("tool", "write_file", "--args", json.dumps({"file_path": "../outside.txt", "content": "pwned"}),
              "--root", str(root))
    assert res.returncode == 1 and "outside the workspace" in res.json["error"]
    assert snapshot(tmp_path) == before


def test_args_from_a_file_and_from_stdin(root: Path, tmp_path: Path, cli: Cli) -> None:
    (root / "f.py").write_text("a = 1\n")
    patch = "--- a/f.py\n+++ b/f.py\n@@ -1 +1 @@\n-a = 1\n+a = 2\n"
    args_file = tmp_path / "args.json"
    args_file.write_text(json.dumps({"patch": patch}))
    res = cli("tool", "apply_patch", "--args", f"@{args_file}", "--root", str(root))
    assert res.returncode == 0 and (root / "f.py").read_text() == "a = 2\n"
    res = cli("tool", "replace_in_file", "--args", "-", "--root", str(root),
              stdin=json.dumps({"file_path": "f.py", "old_text": "a = 2", "new_text": "a = 3"}))
    assert res.returncode == 0 and (root / "f.py").read_text() == "a = 3\n"
    res = cli("tool", "apply_patch", "--args", "@/no/such/args.json", "--root", str(root))
    assert res.returncode == 2 and "No such file" in res.stderr


def test_tools_lists_and_prints_schemas(cli: Cli) -> None:
    res = cli("tools")
    assert res.returncode == 0
    names = [line.split()[0] for line in res.stdout.splitlines()]
    assert {"read_file", "write_file", "list_directory", "find_files", "search_in_files", "replace_in_file",
            "apply_patch"} <= set(names)
    schemas = cli("tools", "--json").json
    by_name = {s["function"]["name"]: s for s in schemas}
    assert by_name["replace_in_file"]["function"]["parameters"]["required"] == ["file_path", "old_text", "new_text"]
    text_only = {s["function"]["name"] for s in cli("tools", "--json", "--toolset", "text").json}
    assert "read_file" in text_only and text_only <= set(by_name)


def test_undo_through_the_cli(root: Path, cli: Cli) -> None:
    (root / "a.txt").write_text("one\n")
    assert cli("tool", "write_file", "--args", '{"file_path": "a.txt", "content": "two\\n"}', cwd=root).returncode == 0
    assert cli("tool", "write_file", "--args", '{"file_path": "b.txt", "content": "b\\n"}', cwd=root).returncode == 0
    res = cli("undo", "--root", str(root), "--json")
    assert res.returncode == 0 and res.json == {"success": True, "files": ["b.txt"], "operations": ["write_file b.txt"]}
    assert not (root / "b.txt").exists()
    (root / "a.txt").write_text("edited by hand\n")
    res = cli("undo", "--root", str(root))
    assert res.returncode == 1 and "a.txt: changed since operation" in res.stderr and "--force" in res.stderr
    assert (root / "a.txt").read_text() == "edited by hand\n"
    res = cli("undo", "--root", str(root), "--force")
    assert res.returncode == 0 and "undid write_file a.txt" in res.stdout
    assert (root / "a.txt").read_text() == "one\n"
    res = cli("undo", "--root", str(root))
    assert res.returncode == 1 and "nothing to undo" in res.stderr


def test_listing_and_search_tools_through_the_cli(root: Path, cli: Cli) -> None:
    (root / "pkg").mkdir()
    (root / "pkg" / "mod.py").write_text("def target():\n    return 1\n")
    (root / "notes.md").write_text("target practice\n")
    listing = cli("tool", "list_directory", "--args", '{"depth": 2}', cwd=root)
    assert listing.returncode == 0 and listing.json["output"].splitlines()[:3] == ["./", "  pkg/", "    mod.py  27 B"]
    found = cli("tool", "find_files", "--args", '{"pattern": "**/*.py"}', cwd=root)
    assert found.returncode == 0 and found.json["data"]["files"] == ["pkg/mod.py"]
    hits = cli("tool", "search_in_files", "--args", '{"pattern": "target", "glob": "*.py"}', cwd=root)
    assert hits.returncode == 0 and hits.json["output"] == "pkg/mod.py:1: def target():\n(1 matching lines in 1 files)"


def test_stream_shows_shell_output_live_on_stderr(root: Path) -> None:
    """`--stream`: the first line reaches stderr while the command is still running; stdout stays
    one JSON object with the whole output."""
    args = json.dumps({"command": "echo first-line; sleep 4; echo last-line"})
    proc = subprocess.Popen([sys.executable, "-m", "agent.cli", "tool", "run_shell_command", "--root", str(root),
                             "--stream", "--args", args],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stderr is not None
        first = proc.stderr.readline()
        seen_while_running = proc.poll() is None
        started = time.monotonic()
        out, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert first == "first-line\n"
    assert seen_while_running and time.monotonic() - started > 1.0, "output came only at the end"
    assert "last-line" in err
    result = json.loads(out)
    assert result["success"] is True and "first-line\nlast-line" in result["output"]
