"""What a language server started on the host may not take from the workspace it serves.

Servers run outside any sandbox, in the workspace, whose files are untrusted input. Checked with
real servers (see the tests' test_server_confinement.py):
- basedpyright/pyright run a Python interpreter to learn its search paths: `.venv/bin/python` in
  the root (basedpyright's automatic venv) or `python3` from PATH (an activated workspace venv puts
  one there). `venvPath`/`venv` in pyrightconfig.json or [tool.(based)pyright] are read without
  running anything.
- tsserver (typescript-language-server) and `tsc --lsp` start `node` / `npm` from PATH for
  automatic type acquisition in JavaScript projects. tsconfig `plugins` and a workspace
  `node_modules/typescript` are not loaded (we name our own tsserver).
So every server gets a PATH without folders inside the workspace (nor relative entries, which
resolve against it); pyright is told a trusted interpreter outside the workspace (`python.pythonPath`,
which also stops the `.venv` detection) and finds the workspace venv's packages by their folder
(`extraPaths`), and automatic type acquisition is off.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Mapping
from pathlib import Path
from typing import Any

# Variables naming an environment whose programs a server could run; dropped when inside the root.
_ENV_FOLDERS = ("VIRTUAL_ENV", "CONDA_PREFIX", "PYTHONHOME", "PYENV_VIRTUAL_ENV")
NO_INTERPRETER = "/nonexistent/codeagent-no-trusted-python"  # what pyright gets when none is found


def _inside(root: Path, path: str) -> bool:
    if not os.path.isabs(path):
        return True  # relative: resolved against the server's cwd, the workspace
    for candidate in {os.path.normpath(path), os.path.realpath(path)}:
        p = Path(candidate)
        if p == root or root in p.parents:
            return True
    return False


def confined_path(root: Path, path: str) -> str:
    """PATH without its entries inside `root` (and without relative ones)."""
    real = Path(os.path.realpath(root))
    return os.pathsep.join(e for e in path.split(os.pathsep) if e and not _inside(real, e))


def confined_env(env: Mapping[str, str], root: Path) -> dict[str, str]:
    """`env` for a server serving `root`: PATH confined, workspace environments dropped."""
    out = dict(env)
    real = Path(os.path.realpath(root))
    out["PATH"] = confined_path(real, env.get("PATH", os.defpath))
    for var in _ENV_FOLDERS:
        if var in out and _inside(real, out[var]):
            del out[var]
    return out


def trusted_python(root: Path, env: Mapping[str, str]) -> str | None:
    """The first python3/python on the confined PATH that lies outside `root` (also once resolved)."""
    real = Path(os.path.realpath(root))
    path = confined_path(real, env.get("PATH", os.defpath))
    for name in ("python3", "python"):
        exe = shutil.which(name, path=path)
        if exe and not _inside(real, exe):
            return exe
    return None


def venv_site_packages(root: Path, env: Mapping[str, str]) -> list[str]:
    """site-packages folders of the workspace's venvs (`.venv`, an activated one inside the root),
    found by listing folders: the venv's interpreter is a workspace file and never runs."""
    real = Path(os.path.realpath(root))
    venvs = [real / ".venv"]
    active = env.get("VIRTUAL_ENV")
    if active and _inside(real, active):
        venvs.append(Path(active))
    found: list[str] = []
    for venv in venvs:
        for sp in sorted(venv.glob("lib/python3*/site-packages")) + [venv / "Lib" / "site-packages"]:
            if sp.is_dir() and str(sp) not in found:
                found.append(str(sp))
    return found


def pyright_settings(root: Path, env: Mapping[str, str] | None = None) -> dict[str, Any]:
    """workspace/configuration answers that keep pyright from running a workspace interpreter."""
    env = os.environ if env is None else env
    extra = venv_site_packages(root, env)
    analysis = {"extraPaths": extra} if extra else {}
    return {"python": {"pythonPath": trusted_python(root, env) or NO_INTERPRETER, "analysis": analysis},
            "basedpyright": {"analysis": analysis}}
