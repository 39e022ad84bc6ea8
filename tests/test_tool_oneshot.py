"""A one-shot `codeagent tool NAME` pays only for what its call needs: the `tool` command's own
grammar (not every command family's), no daemon client when no daemon runs, the edit checks made
only when a session first edits, and no walk stamps kept for a next call that never comes. Each
saving keeps the answer: the same help and usage errors as the whole grammar, the same checks on
the first edit, the same search result."""

from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from agent.bootstrap import load_all_tools, open_context
from agent.cli import build_parser
from agent.config import Settings
from agent.semantic.querycache import RACY_NS

# Modules a one-shot search has no use for: the other command families, the daemon client, the
# edit checks and the language-server stack behind them.
NOT_NEEDED = ("agent.commands.code", "agent.commands.mcp", "agent.commands.navigation", "agent.commands.refactor",
              "agent.view", "agent.commands.cold_start", "agent.daemon.client", "agent.syntax.guard",
              "agent.semantic.diagnostics", "agent.semantic.sessions", "lsp_bridge.client",
              "charset_normalizer")  # (a file that is not UTF-8 needs it: none here)

# (an exit callback, not a `finally`: a read-only call ends without the teardown, agent/commands/tool_end.py)
PROBE = ("import atexit, sys; sys.argv = ['codeagent'] + sys.argv[1:]\n"
         "atexit.register(lambda: print(sorted(m for m in sys.modules if m.startswith(('agent', 'lsp_bridge', 'charset_normalizer'))), file=sys.stderr))\n"
         "from agent.entry import main\n"
         "main()")


def _one_shot(root: Path, *argv: str) -> tuple[dict[str, object], set[str]]:
    env = {**os.environ, "CODEAGENT_CONFIG": os.devnull, "CODEAGENT_LSP_DAEMON": "auto"}
    proc = subprocess.run([sys.executable, "-c", PROBE, *argv, "--root", str(root)], capture_output=True, text=True,
                          timeout=300, env=env)
    loaded = eval(proc.stderr.strip().splitlines()[-1])  # (our own probe's list of names)
    return json.loads(proc.stdout), set(loaded)


@pytest.mark.parametrize("no_daemon", [True, False])
def test_a_one_shot_search_imports_no_other_command_family(root: Path, no_daemon: bool) -> None:
    (root / "a.py").write_text("needle = 1\n")
    (root / "b.txt").write_text("no\nneedle\n")
    out, loaded = _one_shot(root, "tool", "search_in_files", *(["--no-daemon"] if no_daemon else []),
                            "--args", json.dumps({"pattern": "needle"}))
    assert out["success"] and out["data"]["total_matches"] == 2, out  # type: ignore[index]
    assert out["output"] == "a.py:1: needle = 1\nb.txt:2: needle\n(2 matching lines in 2 files)"
    assert "walk_reused" not in out["data"]  # type: ignore[operator]
    assert sorted(m for m in loaded if m in NOT_NEEDED or m.startswith(tuple(n + "." for n in NOT_NEEDED))) == []


def _parsed(only_tool: bool, argv: list[str]) -> tuple[int | str | None, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code: int | str | None = None
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            args = build_parser(only_tool=only_tool).parse_args(argv)
            code = repr(sorted((k, v) for k, v in vars(args).items() if k != "func"))
        except SystemExit as exc:
            code = exc.code
    return code, out.getvalue(), err.getvalue()


@pytest.mark.parametrize("argv", [
    ["tool", "--help"], ["tool"], ["tool", "search_in_files", "--bogus"], ["tool", "read_file", "--args", "{}", "--stream"],
    ["tool", "find_files", "--root", "/x", "--no-daemon", "--args", '{"pattern": "*.py"}'], ["tool", "-h", "x"],
])
def test_the_tool_grammar_alone_parses_helps_and_errs_as_the_whole_one(argv: list[str]) -> None:
    assert _parsed(True, argv) == _parsed(False, argv)


def test_the_edit_checks_are_made_on_the_first_edit_and_run(root: Path) -> None:
    probe = ("import sys\nfrom agent.bootstrap import load_all_tools, open_context\n"
             "ctx = open_context(sys.argv[1])\n"
             "before = sorted(m for m in ('agent.syntax.guard', 'agent.semantic.diagnostics') if m in sys.modules)\n"
             "r = load_all_tools().call(ctx, 'write_file', {'file_path': 'm.py', 'content': 'def f(:\\n'})\n"
             "print(before, [c.name for c in ctx.edit_checks], r.success, r.data.get('rejected_by'))")
    env = {**os.environ, "CODEAGENT_CONFIG": os.devnull}
    proc = subprocess.run([sys.executable, "-c", probe, str(root)], capture_output=True, text=True, timeout=300, env=env)
    assert proc.stdout.split() == ["[]", "['syntax',", "'lsp_sync',", "'diagnostics']", "False", "syntax"], proc.stderr
    assert not (root / "m.py").exists()


def test_checks_added_by_a_caller_come_after_the_default_ones(root: Path) -> None:
    class Extra:
        name = "extra"

    with open_context(root, settings=Settings()) as ctx:
        ctx.edit_checks.append(Extra())  # type: ignore[arg-type]
        assert [c.name for c in ctx.edit_checks] == ["syntax", "lsp_sync", "diagnostics", "extra"]


def test_a_session_of_one_call_keeps_no_walk(root: Path) -> None:
    (root / "a.py").write_text("needle = 1\n")
    time.sleep(RACY_NS / 1e9 + 0.1)  # old enough for a walk to be kept
    registry = load_all_tools()
    for one_call in (False, True):
        with open_context(root, settings=Settings(), one_call=one_call) as ctx:
            first = registry.call(ctx, "search_in_files", {"pattern": "needle"})
            again = registry.call(ctx, "search_in_files", {"pattern": "needle"})
            assert first.output == again.output and "walk_reused" not in first.data
            assert again.data.get("walk_reused", False) is not one_call
            assert ctx.has_service("walk.stamped") is not one_call
