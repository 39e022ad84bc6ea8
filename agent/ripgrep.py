"""Where the `rg` binary is: the one finder every ripgrep user calls.

Precedence: the `rg` beside this interpreter first (the pinned `ripgrep` wheel installs it
there, so its version is the one we test with), then PATH's — never a PATH folder inside the
workspace: rg runs on the host, and an activated workspace venv puts a folder the sandbox may
write on PATH.
"""

from __future__ import annotations

import functools
import os
import shutil
import sys
from pathlib import Path

from lsp_bridge.confine import confined_path


def find_rg(root: Path | None = None) -> str | None:
    """The path of `rg`, or None when ripgrep is not installed (callers fall back to Python).
    With the workspace `root`, a PATH folder inside it is skipped."""
    return _find(None if root is None else str(root), os.environ.get("PATH", os.defpath))


@functools.cache
def _find(root: str | None, path: str) -> str | None:
    here = shutil.which("rg", path=os.path.dirname(sys.executable))
    if here:
        return here
    return shutil.which("rg", path=confined_path(Path(root), path) if root is not None else path)
