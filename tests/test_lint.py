"""ruff and mypy as part of the one test command (`python -m pytest`); conftest runs these last when
serial, first under xdist (mypy is the longest single test)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
LINTED = ["agent", "lsp_bridge", "tests", "benchmarks"]


def _tool(name: str) -> list[str]:
    exe = shutil.which(name, path=str(BIN)) or shutil.which(name)
    if exe is None:
        pytest.fail(f"{name} is not installed; run: pip install -e '.[dev]'")
    return [exe]


def _run(cmd: list[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, timeout=900)


def test_ruff() -> None:
    paths = [p for p in LINTED if (REPO / p).exists()]
    proc = _run([*_tool("ruff"), "check", "--no-cache", *paths])
    assert proc.returncode == 0, f"ruff check {' '.join(paths)}:\n{proc.stdout}{proc.stderr}"


def test_mypy() -> None:
    proc = _run(_tool("mypy"))  # packages and options from [tool.mypy] in pyproject.toml
    assert proc.returncode == 0, f"mypy:\n{proc.stdout}{proc.stderr}"
