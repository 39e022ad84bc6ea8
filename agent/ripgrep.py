"""Where the `rg` binary is: the one finder every ripgrep user calls.

Precedence: the `rg` beside this interpreter first (the pinned `ripgrep` wheel installs it
there, so its version is the one we test with), then PATH's. Found once per process.
"""

from __future__ import annotations

import functools
import os
import shutil
import sys


@functools.cache
def find_rg() -> str | None:
    """The path of `rg`, or None when ripgrep is not installed (callers fall back to Python)."""
    return shutil.which("rg", path=os.path.dirname(sys.executable)) or shutil.which("rg")
