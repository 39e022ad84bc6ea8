"""Compile the bytecode of the codeagent a benchmark runs, as an installed package has it.

This machine's environment sets PYTHONDONTWRITEBYTECODE=1, so without this every measured
`codeagent` process would compile our modules again (~15 ms each) — a cost a user's install does
not pay (pip compiles a wheel's modules; an editable install writes them on first import).
compileall writes the .pyc files whatever that variable says."""

from __future__ import annotations

import compileall
import importlib.util
from pathlib import Path


def compile_codeagent() -> list[Path]:
    """Compile agent/ and lsp_bridge/ where they are imported from; returns those folders."""
    done = []
    for name in ("agent", "lsp_bridge"):
        spec = importlib.util.find_spec(name)
        if spec is None or not spec.origin:
            continue
        folder = Path(spec.origin).parent
        compileall.compile_dir(folder, quiet=1)
        done.append(folder)
    print(f"bytecode compiled in {', '.join(map(str, done))} (as an installed package has it)", flush=True)
    return done
