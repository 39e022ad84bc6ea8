"""Helpers shared by the shell tests (imported as `shellkit`)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

VENV_BIN = str(Path(sys.executable).parent)


def sandbox_env(home: Path, **extra: str) -> dict[str, str]:
    path = os.pathsep.join([str(home / ".mytool/bin"), str(home / ".cargo/bin"), VENV_BIN, "/usr/local/bin",
                            "/usr/bin", "/bin"])
    return {"PATH": path, "HOME": str(home), "LANG": "C.UTF-8", **extra}


def processes_with(marker: str) -> list[int]:
    """Live processes whose command line contains `marker`."""
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit() or int(name) == os.getpid():
            continue
        try:
            cmdline = Path(f"/proc/{name}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            state = Path(f"/proc/{name}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if marker in cmdline and state != "Z":
            found.append(int(name))
    return found
