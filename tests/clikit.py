"""The real `codeagent` command for tests that run it as a subprocess (shared by tests/ and
tests/semantic/)."""

from __future__ import annotations

import json
import shutil
import signal
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


# The real `codeagent` command, SIGKILLed by an audit hook just before its Nth rename into the
# workspace (the journal's own renames under .codeagent/ are not counted): a crash at a chosen
# moment of a real write, with the temp file of that write left behind.
_KILLED_CLI = """
import os, signal, sys
kill_at = int(sys.argv[1])
renames = 0
def hook(event, args):
    global renames
    if event == "os.rename" and "/.codeagent/" not in str(args[1]):
        renames += 1
        if renames == kill_at:
            os.kill(os.getpid(), signal.SIGKILL)
sys.addaudithook(hook)
from agent.cli import main
sys.exit(main(sys.argv[2:]))
"""


def killed_cli_command(kill_at: int, *args: str) -> list[str]:
    return [sys.executable, "-c", _KILLED_CLI, str(kill_at), *args]


def interruptible() -> None:
    """`preexec_fn` for a child a test sends SIGINT to: a shell starts background jobs with SIGINT
    ignored, and Python keeps an inherited SIG_IGN, so the child would never see the signal."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
