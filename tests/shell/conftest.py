"""Helpers for the shell tests: sandbox availability, a fake home folder with secrets, runs."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from shellkit import sandbox_env

from agent.config import ShellSettings
from agent.shell.runner import CommandResult, run_command
from agent.shell.sandbox import probe_bwrap, probe_landlock
from agent.workspace import Workspace

BACKENDS = ["bwrap", "landlock"]


def backend_problem(backend: str) -> str | None:
    if backend == "bwrap":
        return probe_bwrap(shutil.which("bwrap"))
    if backend == "landlock":
        return probe_landlock()
    return None


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> str:
    name = str(request.param)
    problem = backend_problem(name)
    if problem is not None:
        if name == "bwrap" and os.environ.get("CI"):
            pytest.fail(f"CI must test the real bubblewrap sandbox: {problem}")
        pytest.skip(problem)
    return name


@pytest.fixture
def fake_home(tmp_path: Path) -> Path:
    """A home folder with secrets and two toolchains on PATH (one holding a credentials file)."""
    home = tmp_path / "home"
    for rel, text in {
        ".ssh/id_rsa": "SECRET-SSH-KEY", ".aws/credentials": "SECRET-AWS", ".config/gh/hosts.yml": "SECRET-GH",
        ".netrc": "SECRET-NETRC", ".bash_history": "SECRET-HISTORY", ".cargo/credentials.toml": "SECRET-CARGO",
    }.items():
        path = home / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    for tool, rel in (("mytool", ".mytool/bin"), ("fakecargo", ".cargo/bin")):
        script = home / rel / tool
        script.parent.mkdir(parents=True, exist_ok=True)
        script.write_text(f"#!/bin/sh\necho {tool}-works\n")
        script.chmod(0o755)
    return home


@pytest.fixture
def run_in(fake_home: Path) -> Callable[..., CommandResult]:
    """`run_in(workspace_root, backend, "shell command", timeout=..., **settings)`: the runner alone
    (no policy), with the fake home and its PATH."""

    def run(root: Path, backend: str, command: str, *, timeout: float = 60, env: dict[str, str] | None = None,
            network: bool = False, **settings: Any) -> CommandResult:
        shell = ShellSettings(sandbox=backend, **settings)  # type: ignore[arg-type]
        return run_command(shell, Workspace(root), ["bash", "-c", command], cwd=root, timeout=timeout,
                           base_env=env or sandbox_env(fake_home), home=str(fake_home), network=network)

    return run
