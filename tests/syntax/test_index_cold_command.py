"""`codeagent index` that must parse (agent/commands/index_cold.py): the whole command runs before
the rest of the CLI loads, and says what it did, and its errors, as the full CLI does. Each
command is a real `codeagent` process on real files, with real worker processes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from agent.config import SyntaxSettings
from agent.syntax import SymbolIndex

# What a cold index has no use for: the tool context's edit checks (and the language-server side
# they import), the other command families' parsers, the daemon client.
NOT_NEEDED = {"agent.bootstrap", "agent.toolcontext", "agent.semantic.diagnostics", "agent.commands.cold_start",
              "agent.daemon.client", "agent.commands.mcp", "agent.commands.refactor", "lsp_bridge.servers"}
FILES = 320


def run(*words: str, importtime: bool = False) -> subprocess.CompletedProcess[str]:
    flags = ["-X", "importtime"] if importtime else []
    return subprocess.run([sys.executable, *flags, "-m", "agent.entry", *words], capture_output=True, text=True,
                          timeout=300)


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    (root / "pkg").mkdir(parents=True)
    for i in range(FILES - 1):  # enough files for the worker processes (syntax.parallel_min_files)
        (root / "pkg" / f"m{i}.py").write_text(f"class Thing{i}:\n    def run_{i}(self):\n        return {i}\n")
    (root / "app.ts").write_text("export function alpha(x: number): number {\n  return x;\n}\n")
    return root


def test_a_cold_index_runs_without_the_rest_of_the_cli(tree: Path) -> None:
    done = run("index", "--root", str(tree), "--json", "--quiet", importtime=True)
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert (data["files"], data["parsed"], data["removed"], data["problem"]) == (FILES, FILES, 0, None)
    assert SyntaxSettings().parallel_min_files <= FILES
    assert data["workers"] == min(os.cpu_count() or 1, FILES)  # parsed by worker processes
    imported = {line.rsplit("|", 1)[-1].strip() for line in done.stderr.splitlines() if "|" in line}
    assert not NOT_NEEDED & imported, sorted(NOT_NEEDED & imported)
    assert "agent.commands.index_cold" in imported and "tree_sitter" in imported
    index = SymbolIndex(tree, cache_path=Path(data["cache"]))  # what it stored is the whole outline
    try:
        assert index.refresh().parsed == 0
        [run_7] = index.find("Thing7.run_7")
        assert (run_7.path, run_7.kind, run_7.line, run_7.signature) == ("pkg/m7.py", "method", 2, "def run_7(self)")
        [alpha] = index.find("alpha")
        assert (alpha.path, alpha.kind, alpha.signature) == ("app.ts", "function", "function alpha(x: number): number")
    finally:
        index.close()
    again = run("index", "--root", str(tree))  # the text summary; nothing to parse now
    assert again.returncode == 0, again.stderr
    assert again.stdout.startswith(f"indexed {FILES} source files (0 parsed, 0 removed"), again.stdout


def test_rebuild_parses_everything_again(tree: Path) -> None:
    assert run("index", "--root", str(tree), "--quiet").returncode == 0
    done = run("index", "--root", str(tree), "--json", "--quiet", "--rebuild")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["parsed"] == FILES


def test_help_and_usage_errors_are_said_by_the_full_cli(tree: Path) -> None:
    helped = run("index", "--help")
    assert helped.returncode == 0 and "usage: " in helped.stdout and "--rebuild" in helped.stdout, helped
    bogus = run("index", "--root", str(tree), "--bogus")
    assert bogus.returncode == 2 and "unrecognized arguments: --bogus" in bogus.stderr, bogus
    missing = run("index", "--root", str(tree / "nowhere"))
    assert missing.returncode == 2, missing
    assert "codeagent: error: --root" in missing.stderr and "is not a folder" in missing.stderr, missing.stderr
    assert not (tree / "nowhere").exists()


def test_a_finished_index_command_ends_without_the_interpreters_teardown(tree: Path, tmp_path: Path) -> None:
    # An atexit handler, installed in every Python process started with this PYTHONPATH, writes a
    # file when the interpreter shuts down in order: it must not run after a completed index (the
    # command's end is os._exit), and must still run after one that failed.
    hooks = tmp_path / "hooks"
    hooks.mkdir()
    marker = tmp_path / "tore-down"
    (hooks / "sitecustomize.py").write_text(
        "import atexit, os, pathlib\n"
        f"atexit.register(lambda: os.getpid() == {os.getpid()} or pathlib.Path({str(marker)!r}).touch())\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(hooks), os.environ.get("PYTHONPATH")]))}

    def index(*words: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "agent.entry", "index", *words], capture_output=True,
                              text=True, timeout=300, env=env)

    done = index("--root", str(tree), "--json", "--quiet")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)  # the whole summary was printed before the end
    assert (data["files"], data["parsed"], data["workers"]) == (FILES, FILES, min(os.cpu_count() or 1, FILES))
    assert not marker.exists()
    index_ = SymbolIndex(tree, cache_path=Path(data["cache"]))  # and the cache was closed whole
    try:
        assert index_.refresh().parsed == 0 and len(index_.files()) == FILES
        assert [m.path for m in index_.find("Thing3")] == ["pkg/m3.py"]
    finally:
        index_.close()
    failed = index("--root", str(tree / "nowhere"))
    assert failed.returncode == 2 and "is not a folder" in failed.stderr, failed
    assert marker.exists()  # (the hook works: a failed command ends as usual)
