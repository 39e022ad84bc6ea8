"""The environment a command gets: an allow-list of the agent's variables (never its keys or
tokens), the project's virtualenv first on PATH, and the sandbox's home folder."""

from __future__ import annotations

import fnmatch
import os
from collections.abc import Iterable, Mapping
from pathlib import Path

from ..config import ShellSettings

VENV_NAMES = (".venv", "venv")


def project_venv(root: Path) -> Path | None:
    """The workspace's virtualenv (.venv or venv with a bin/python), if any."""
    for name in VENV_NAMES:
        venv = root / name
        if (venv / "bin" / "python").exists() or (venv / "pyvenv.cfg").is_file():
            return venv
    return None


def _has_glob(pattern: str) -> bool:
    return any(c in pattern for c in "*?[")


def command_env(settings: ShellSettings, base: Mapping[str, str], *, root: Path, home: str,
                extra_allow: Iterable[str] = ()) -> dict[str, str]:
    """Filter `base` (the agent's environment) to what a command may see."""
    allow = [*settings.env_allow, *extra_allow]
    exact = {p for p in allow if not _has_glob(p)}
    env: dict[str, str] = {}
    for name, value in base.items():
        if not any(fnmatch.fnmatchcase(name, p) for p in allow):
            continue
        if name not in exact and any(fnmatch.fnmatchcase(name.upper(), d.upper()) for d in settings.env_deny):
            continue
        env[name] = value
    env.setdefault("PATH", os.defpath)
    env["HOME"] = home
    venv = project_venv(root)
    if venv is not None:
        bin_dir = str(venv / "bin")
        env["PATH"] = os.pathsep.join([bin_dir, *(p for p in env["PATH"].split(os.pathsep) if p != bin_dir)])
        env["VIRTUAL_ENV"] = str(venv)
    env.update(settings.env_set)
    return env
