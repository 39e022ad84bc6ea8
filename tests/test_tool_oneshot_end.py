"""A one-shot `codeagent tool` call, as a user runs it (the real command, no daemon): what it
prints and the exit code are those of the same call made in process, and a bad argument is the
same clear error, word for word (an unknown field, a wrong type, a missing field, bad JSON)."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from agent.bootstrap import load_all_tools, open_context
from agent.config import load_settings

Cli = Callable[..., Any]

CALLS: list[tuple[str, dict[str, Any]]] = [
    ("read_file", {"file_path": "m.py", "start_line": 2, "end_line": 6}),
    ("search_in_files", {"pattern": "return", "regex": False}),
    ("list_symbols", {"path": "m.py"}),
    ("get_ast", {"file_path": "m.py", "line": 2, "depth": 1}),
    ("find_files", {"pattern": "*.py"}),
]
BAD: list[tuple[str, str, str]] = [
    ("read_file", '{"file_path": "a.txt", "start_line": "one"}',
     "read_file: invalid arguments: start_line: Input should be a valid integer, unable to parse string as an integer"),
    ("read_file", '{"file_path": "a.txt", "mode": "r"}',
     "read_file: unknown parameter(s) mode; the parameters are: end_line, file_path, start_line"),
    ("read_file", '{"start_line": 1}', "read_file: invalid arguments: file_path: Field required"),
    ("read_file", '{"file_path": "a.txt",', "--args is not valid JSON: Expecting property name enclosed in double "
     "quotes at char 22"),
    ("read_file", "[1]", "read_file: arguments must be a JSON object, got list"),
    ("read_file", '{"file_path": 5, "start_line": 0}', "read_file: invalid arguments: file_path: Input should be a "
     "valid string; start_line: Input should be greater than or equal to 1"),
    ("search_in_files", '{"pattern": "", "max_results": 0}', "search_in_files: invalid arguments: pattern: String "
     "should have at least 1 character; max_results: Input should be greater than or equal to 1"),
    ("list_symbols", '{"path": "m.py", "depth": "x"}', "list_symbols: invalid arguments: depth: Input should be a "
     "valid integer, unable to parse string as an integer"),
]


def _workspace(root: Path) -> None:
    (root / "m.py").write_text("def f(x):\n    return x + 1\n\n\nclass C:\n    def m(self):\n        return f(2)\n")
    (root / "a.txt").write_text("hello\nworld\n")
    (root / "pkg").mkdir()
    (root / "pkg" / "b.py").write_text("def g():\n    return 'é'\n")


@pytest.mark.parametrize(("name", "args"), CALLS, ids=[c[0] for c in CALLS])
def test_a_one_shot_call_prints_what_the_call_in_process_returns(root: Path, cli: Cli, name: str,
                                                                 args: dict[str, Any],
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    _workspace(root)
    res = cli("tool", name, "--root", str(root), "--args", json.dumps(args))
    monkeypatch.setenv("CODEAGENT_CONFIG", os.devnull)  # (what the cli fixture gives the command)
    with open_context(root, settings=load_settings(root)) as ctx:
        result = load_all_tools().call(ctx, name, args).to_dict()
    assert result["success"], result
    assert (res.returncode, res.stderr) == (0, "")
    assert res.stdout == json.dumps(result, ensure_ascii=False) + "\n"


@pytest.mark.parametrize(("name", "args", "message"), BAD, ids=[f"{b[0]}-{i}" for i, b in enumerate(BAD)])
def test_a_bad_argument_is_the_same_clear_error(root: Path, cli: Cli, name: str, args: str, message: str) -> None:
    _workspace(root)
    res = cli("tool", name, "--root", str(root), "--args", args)
    assert (res.returncode, res.stdout, res.stderr) == (2, "", f"codeagent: error: {message}\n")
