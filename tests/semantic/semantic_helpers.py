"""Helpers for the semantic tests (imported by the test modules): fixture projects copied once per module, tool calls through the
registry, the real `codeagent` command, and daemons that never outlive a test."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from clikit import Cli, codeagent_command

from agent.bootstrap import load_all_tools, open_context
from agent.config import Settings
from agent.daemon.protocol import state_dir
from agent.result import ToolResult
from agent.toolcontext import ToolContext

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
BIN = Path(sys.executable).parent
DAEMON_IDLE = "30"  # seconds: a daemon a test forgot would still go away soon
SERVED = re.compile(r"codeagent\.daemon INFO (\w+) \d+\.\d+ s$")


def copy_fixture(name: str, dest_parent: Path) -> Path:
    dest = (dest_parent / name).resolve()
    shutil.copytree(FIXTURES / name, dest)
    return dest


def tree(root: Path) -> dict[str, bytes]:
    """Every file under root except the tool folder: path → bytes."""
    out = {}
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root)
        if path.is_file() and rel.parts[0] not in (".codeagent", "__pycache__") and "__pycache__" not in rel.parts:
            out[rel.as_posix()] = path.read_bytes()
    return out


class Caller:
    """`caller("find_references", file_path=..., line=..., column=...)` through the registry."""

    def __init__(self, ctx: ToolContext):
        self.ctx = ctx
        self.registry = load_all_tools()

    def __call__(self, name: str, **args: Any) -> ToolResult:
        return self.registry.call(self.ctx, name, args)


def refs_of(data: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """(path, reference) of a find_references answer's data, in order (data format 2: files →
    groups by enclosing symbol → hits; each hit also gets its group's `in`)."""
    assert data["format"] == 2
    return [(f["path"], {**h, "in": g["in"]}) for f in data["files"] for g in f["groups"] for h in g["hits"]]


def module_context(root: Path, settings: Settings | None = None) -> Iterator[tuple[ToolContext, Caller]]:
    ctx = open_context(root, settings=settings or Settings())
    try:
        yield ctx, Caller(ctx)
    finally:
        ctx.close()


def run_cli(*args: str, cwd: Path | None = None, env: dict[str, str] | None = None, timeout: float = 240) -> Cli:
    full_env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1", "CODEAGENT_CONFIG": os.devnull,
                "CODEAGENT_DAEMON_IDLE_TIMEOUT": DAEMON_IDLE, **(env or {})}
    proc = subprocess.run([*codeagent_command(), *args], cwd=cwd, capture_output=True, text=True,
                          timeout=timeout, env=full_env)
    return Cli(proc.returncode, proc.stdout, proc.stderr)


def stop_daemon(root: Path) -> None:
    """Stop the workspace's daemon, if any, and wait until it has exited."""
    run_cli("daemon", "stop", "--root", str(root), timeout=60)


def line_col(root: Path, rel: str, line: int, needle: str, nth: int = 0) -> tuple[int, int]:
    """1-based (line, column in characters) of the nth `needle` on a 1-based line."""
    text = (root / rel).read_text(encoding="utf-8").split("\n")[line - 1]
    col = -1
    for _ in range(nth + 1):
        col = text.index(needle, col + 1)
    return line, col + 1


def served(root: Path, at_least: int = 0, *, until: Callable[[list[str]], bool] | None = None,
           timeout: float = 15.0) -> list[str]:
    """The tool calls the workspace's daemon logged as answered (`NAME 0.012 s`), in order. The
    daemon writes a call's line after its reply is out, so a caller that just got a reply waits
    here (up to `timeout`) until `at_least` calls are logged and `until` holds."""
    log = state_dir(root) / "daemon.log"
    deadline = time.monotonic() + timeout
    while True:
        lines = log.read_text(encoding="utf-8").splitlines() if log.exists() else []
        got = [m.group(1) for line in lines if (m := SERVED.search(line))]
        if (len(got) >= at_least and (until is None or until(got))) or time.monotonic() > deadline:
            return got
        time.sleep(0.02)
