"""The real `codeagent` command for tests that run it as a subprocess (shared by tests/ and
tests/semantic/)."""

from __future__ import annotations

import json
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

BIN = Path(sys.executable).parent


@dataclass
class Cli:
    returncode: int
    stdout: str
    stderr: str

    @property
    def json(self) -> Any:
        return json.loads(self.stdout)


def codeagent_command() -> list[str]:
    exe = shutil.which("codeagent", path=str(BIN))
    return [exe] if exe else [sys.executable, "-m", "agent.cli"]
