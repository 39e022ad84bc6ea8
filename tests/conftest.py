"""Shared test helpers: workspaces in tmp_path, the real `codeagent` command, tree snapshots."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from clikit import Cli, codeagent_command

from agent.bootstrap import load_all_tools, open_context
from agent.config import Settings
from agent.result import ToolResult
from agent.toolcontext import ToolContext

BIN = Path(sys.executable).parent


SHARED_SCOPES = ("module", "class", "package")


@pytest.hookimpl(optionalhook=True)  # (a run with -p no:xdist must not fail on an unknown hook)
def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """`-n auto` (pyproject's addopts): one worker more than cores, since the tests also wait (server
    start-ups, subprocesses, sleeps that prove nothing happens). 3 workers on 2 cores: the whole suite in
    11 min 45 s (vs 20 min 39 s serial, fewer tests); -n 2 not yet compared on the whole suite.
    PYTEST_XDIST_AUTO_NUM_WORKERS overrides, `-n 0` runs serially."""
    wanted = os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS", "")
    if wanted.isdigit():
        return int(wanted)
    files = {arg.split("::", 1)[0] for arg in config.args}
    if len(files) == 1 and files.pop().endswith(".py"):
        return 0  # one test file: serially (starting the workers would cost more than they save)
    return len(os.sched_getaffinity(0)) + 1


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Serially, the lint/type checks run last, so a failing check never hides test results; under
    xdist they are queued first (mypy is the longest single test: last, it would be the run's tail).

    A test that uses a module- or class-scoped fixture (a real server, a copied project) joins its
    module's xdist group, so `--dist loadgroup` runs that module on one worker and sets the fixture up
    once; every other test is scheduled on its own, so one long file of independent tests spreads out."""
    under_xdist = hasattr(config, "workerinput")
    items.sort(key=lambda item: item.nodeid.startswith("tests/test_lint.py") != under_xdist)
    for item in items:
        info = getattr(item, "_fixtureinfo", None)
        defs = info.name2fixturedefs.values() if info is not None else ()
        if any(d.scope in SHARED_SCOPES for chain in defs for d in chain):
            item.add_marker(pytest.mark.xdist_group(item.nodeid.split("::", 1)[0]))


def _run_cli(*args: str, cwd: Path | None = None, stdin: str | None = None, timeout: float = 120) -> Cli:
    """Run the real `codeagent` command in a subprocess."""
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1", "CODEAGENT_CONFIG": os.devnull}
    proc = subprocess.run(
        [*codeagent_command(), *args], cwd=cwd, input=stdin, capture_output=True, text=True,
        timeout=timeout, env=env,
    )
    return Cli(proc.returncode, proc.stdout, proc.stderr)


def _snapshot(folder: Path) -> dict[str, tuple[bytes | str, int]]:
    """Every entry under `folder` (not following symlinks): its bytes (or link target) and mtime."""
    out: dict[str, tuple[bytes | str, int]] = {}
    for dirpath, dirnames, filenames in os.walk(folder):
        for name in dirnames + filenames:
            path = Path(dirpath) / name
            st = path.lstat()
            if path.is_symlink():
                out[str(path.relative_to(folder))] = (os.readlink(path), st.st_mtime_ns)
            elif path.is_file():
                out[str(path.relative_to(folder))] = (path.read_bytes(), st.st_mtime_ns)
            else:
                out[str(path.relative_to(folder)) + "/"] = (b"", 0)
    return out


@pytest.fixture
def root(tmp_path: Path) -> Path:
    """An empty workspace root (real path) inside tmp_path."""
    ws = tmp_path / "ws"
    ws.mkdir()
    return ws.resolve()


@pytest.fixture
def ctx(root: Path) -> Iterator[ToolContext]:
    """A tool context on `root` with default settings (no user or project config)."""
    context = open_context(root, settings=Settings())
    yield context
    context.close()


@pytest.fixture
def call(ctx: ToolContext) -> Callable[..., ToolResult]:
    """`call("read_file", file_path=...)`: a tool call through the registry, as the agent loop makes it."""
    registry = load_all_tools()

    def run(name: str, **args: Any) -> ToolResult:
        return registry.call(ctx, name, args)

    return run


@pytest.fixture
def cli() -> Callable[..., Cli]:
    """`cli("tool", "read_file", "--args", ...)`: the real `codeagent` command in a subprocess."""
    return _run_cli


@pytest.fixture
def snapshot() -> Callable[[Path], dict[str, tuple[bytes | str, int]]]:
    """`snapshot(folder)`: every entry's bytes (or link target) and mtime, to prove nothing changed."""
    return _snapshot
