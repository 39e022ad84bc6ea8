"""A fresh copy of a task's project for one run; a task with [generate] also gets its larger tree
(thousands of modules), made here rather than shipped, deterministic for a seed."""

from __future__ import annotations

import random
import shutil
from pathlib import Path

from .suite import Generate, Task

MAX_GENERATED = 20_000
_WORDS = ("alpha", "beta", "gamma", "delta", "omega", "sigma", "kappa", "theta", "lambda_", "zeta")


def prepare(task: Task, dest: Path) -> Path:
    """Copy the starting tree to `dest` (which must not exist) and generate what the task asks."""
    shutil.copytree(task.project, dest, symlinks=True)
    if task.generate is not None:
        generate_tree(dest, task.generate)
    return dest


def generate_tree(root: Path, gen: Generate) -> None:
    """`count` small Python modules under `gen.folder`, in folders of 100. Module `gen.target` calls
    `legacy_checksum` (the needle); the others call `checksum_v2` or nothing. Same seed, same tree."""
    rng = random.Random(gen.seed)
    count = min(gen.count, MAX_GENERATED)
    for i in range(count):
        folder = root / gen.folder / f"part{i // 100:03d}"
        folder.mkdir(parents=True, exist_ok=True)
        word = rng.choice(_WORDS)
        if i == gen.target:
            body = ("from tools.checksums import legacy_checksum\n\n\n"
                    f"def {word}_digest_{i}(data: bytes) -> int:\n    return legacy_checksum(data)\n")
        elif i % 3 == 0:
            body = ("from tools.checksums import checksum_v2\n\n\n"
                    f"def {word}_digest_{i}(data: bytes) -> int:\n    return checksum_v2(data)\n")
        else:
            body = f'"""Record type {i} ({word})."""\n\nFIELDS_{i} = ("{word}", {rng.randint(1, 99)})\n'
        (folder / f"mod{i:05d}.py").write_text(body, encoding="utf-8")
    for part in (root / gen.folder).iterdir():
        (part / "__init__.py").touch()
    (root / gen.folder / "__init__.py").touch()
