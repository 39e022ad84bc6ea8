"""A one-shot `codeagent tool` call, as a user runs it (the real command, no daemon): what it
prints and the exit code are those of the same call made in process, and a bad argument is the
same clear error, word for word (an unknown field, a wrong type, a missing field, bad JSON).
A read-only call then ends without the interpreter's teardown of its modules (~45-80 ms of CPU;
agent/commands/tool_end.py), but with its exit callbacks; a call that writes, or that leaves a
thread running, ends as usual."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from clikit import codeagent_command

from agent.bootstrap import load_all_tools, open_context
from agent.config import load_settings

Cli = Callable[..., Any]

CALLS: list[tuple[str, dict[str, Any]]] = [
    ("read_file", {"file_path": "m.py", "start_line": 2, "end_line": 6}),
    ("search_in_files", {"pattern": "return", "regex": False}),
    ("list_symbols", {"path": "m.py"}),
    ("get_ast", {"file_path": "m.py", "line": 2, "depth": 1}),
    ("find_files", {"pattern": "*.py"}),
    ("list_directory", {"path": ".", "depth": 2}),
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
    (root / "pkg" / "b.py").write_text("def g():\n    return 'é'\n\n\ndef compute_total(items):\n    return sum(items)\n")


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


# A sitecustomize that shows how the process ended: a module-level object's __del__ runs only in
# the interpreter's teardown of its modules, an exit callback before it; with WITNESS_THREAD, a
# non-daemon thread runs until the main thread has ended (the interpreter waits for it); with
# WITNESS_MODULES, which of those modules the call loaded.
WITNESS = """
import atexit, os, threading


class _Witness:
    def __del__(self, write=os.write):
        write(2, b"[torn down]\\n")


witness = _Witness()
atexit.register(lambda write=os.write: write(2, b"[exit callbacks ran]\\n"))
if os.environ.get("WITNESS_MODULES"):
    import sys
    atexit.register(lambda: print("[loaded: %s]" % ",".join(
        m for m in os.environ["WITNESS_MODULES"].split(",") if m in sys.modules), file=sys.stderr))
if os.environ.get("WITNESS_THREAD"):
    threading.Thread(target=lambda write=os.write: (threading.main_thread().join(), write(2, b"[thread ended]\\n"))).start()
"""


def _witnessed(tmp_path: Path, root: Path, *argv: str, thread: bool = False,
               modules: str = "") -> subprocess.CompletedProcess[str]:
    site = tmp_path / "site"
    site.mkdir(exist_ok=True)
    (site / "sitecustomize.py").write_text(WITNESS)
    path = os.pathsep.join(p for p in (str(site), os.environ.get("PYTHONPATH", "")) if p)
    env = {**os.environ, "CODEAGENT_CONFIG": os.devnull, "PYTHONPATH": path, "WITNESS_THREAD": "1" if thread else "",
           "WITNESS_MODULES": modules}
    return subprocess.run([*codeagent_command(), *argv, "--root", str(root)], capture_output=True, text=True,
                          timeout=120, env=env)


@pytest.mark.parametrize(("name", "args"), [*CALLS[:3], ("read_file", BAD[0][1]), ("read_file", BAD[3][1])],
                         ids=["read_file", "search_in_files", "list_symbols", "wrong-type", "bad-json"])
def test_a_read_only_call_ends_without_the_teardown_but_with_its_exit_callbacks(
        root: Path, tmp_path: Path, cli: Cli, name: str, args: dict[str, Any] | str) -> None:
    _workspace(root)
    text = args if isinstance(args, str) else json.dumps(args)
    usual = cli("tool", name, "--root", str(root), "--args", text)
    ended = _witnessed(tmp_path, root, "tool", name, "--args", text)
    assert (ended.returncode, ended.stdout) == (usual.returncode, usual.stdout)
    assert ended.stderr == usual.stderr + "[exit callbacks ran]\n"  # (and no "[torn down]")


def test_a_call_that_writes_or_leaves_a_thread_ends_as_usual(root: Path, tmp_path: Path) -> None:
    _workspace(root)
    wrote = _witnessed(tmp_path, root, "tool", "write_file", "--args", json.dumps({"file_path": "n.txt", "content": "x"}))
    assert wrote.returncode == 0 and json.loads(wrote.stdout)["success"], wrote.stderr
    assert wrote.stderr.endswith("[exit callbacks ran]\n[torn down]\n"), wrote.stderr
    waited = _witnessed(tmp_path, root, "tool", "read_file", "--args", json.dumps(CALLS[0][1]), thread=True)
    assert waited.returncode == 0 and json.loads(waited.stdout)["success"], waited.stderr
    assert waited.stderr == "[thread ended]\n[exit callbacks ran]\n[torn down]\n"


# Which of the modules in WITNESS_MODULES a call may load: tree-sitter for a file's outline or
# syntax tree, not the index's store and worker pool (agent/syntax/__init__.py) nor rapidfuzz, which
# is for find_symbol's typos (name_match.py); read_file none of them, not even the walk's pathspec
# (agent/tools/files.py: list_directory's).
LOADS = [("list_symbols", CALLS[2][1], "tree_sitter"), ("get_ast", CALLS[3][1], "tree_sitter"),
         ("read_file", CALLS[0][1], "")]


@pytest.mark.parametrize(("name", "args", "loaded"), LOADS, ids=[n for n, _a, _l in LOADS])
def test_a_call_loads_none_of_what_it_does_not_use(root: Path, tmp_path: Path, name: str, args: dict[str, Any],
                                                   loaded: str) -> None:
    _workspace(root)
    ran = _witnessed(tmp_path, root, "tool", name, "--args", json.dumps(args),
                     modules="tree_sitter,rapidfuzz,agent.syntax.index,sqlite3,multiprocessing,pathspec")
    assert ran.returncode == 0 and json.loads(ran.stdout)["success"], ran.stderr
    assert f"[loaded: {loaded}]\n" in ran.stderr, ran.stderr


def test_find_symbol_still_weighs_a_typo(root: Path, cli: Cli) -> None:
    _workspace(root)
    res = cli("tool", "find_symbol", "--root", str(root), "--args", json.dumps({"name": "compute_totl"}))
    assert res.returncode == 0, res.stderr
    assert [(m["name_path"], m["path"]) for m in res.json["data"]["matches"]] == [("compute_total", "pkg/b.py")], res.json
