"""Which toolchain folders a command sees read-only, and which paths from workspace content may count.

Toolchains come from the USER's environment: every PATH folder stays usable. One under the home
folder brings its top-level folder (`~/.pyenv` for `~/.pyenv/shims`) unless that folder is a known
secret store (`~/.config`, `~/.local`), where only the PATH folder itself (and where its links lead)
is shown. A virtualenv's bin folder brings the whole virtualenv and the interpreter it was made from.

Workspace content is untrusted: a PATH folder inside the workspace (the project's `.venv/bin`), a
symlink there, or a project virtualenv's `pyvenv.cfg` `home =` never adds a folder to the view.
`check_workspace_paths` resolves each such path and, when it leads outside the workspace and the
folders already visible, says so (the command runs without it) and how to allow it.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from .environment import VENV_NAMES

_HOME_SECRET_TOPS = {".config", ".local", ".ssh", ".aws", ".gnupg", ".docker", ".kube", ".azure", ".gcloud"}
_MAX_LINK_SCAN = 500


def within(path: str, parent: str) -> bool:
    """`path` is `parent` or below it (both normalised, no symlinks resolved)."""
    return path == parent or path.startswith(parent.rstrip("/") + "/")


def _venv_root(path: str) -> str | None:
    """The virtualenv a path belongs to (the nearest ancestor with pyvenv.cfg)."""
    p = Path(path)
    for candidate in (p, *p.parents):
        if (candidate / "pyvenv.cfg").is_file():
            return str(candidate)
    return None


def _venv_home(venv: str) -> str | None:
    """The `home` (base interpreter's bin folder) recorded in a virtualenv's pyvenv.cfg."""
    try:
        for line in Path(venv, "pyvenv.cfg").read_text(errors="replace").splitlines():
            key, _, value = line.partition("=")
            if key.strip() == "home" and value.strip():
                return value.strip()
    except OSError:
        return None
    return None


def toolchain_roots(path_dirs: Iterable[str], *, home: str, system: list[str], workspace: str) -> list[str]:
    """Folders to show read-only so that every PATH folder keeps working."""
    out: list[str] = []

    def add(path: str) -> None:
        path = os.path.normpath(path)
        if path in ("/", home) or within(home, path) or not os.path.isdir(path):
            return
        if any(within(path, s) for s in system) or within(path, workspace):
            return
        if path not in out:
            out.append(path)

    def add_for(entry: str, *, follow_links: bool) -> None:
        if any(within(entry, s) for s in system) or within(entry, workspace):
            return
        venv = _venv_root(entry)
        if venv:
            add(venv)
            base = _venv_home(venv)
            if base and base != entry:
                add_for(base, follow_links=False)
            return
        if within(entry, home) and entry != home:
            top = os.path.relpath(entry, home).split(os.sep)[0]
            if top not in _HOME_SECRET_TOPS:
                add(os.path.join(home, top))
                return
            add(entry)  # inside a secret store (~/.local/bin): the folder itself and where its links lead
        else:
            # a bin folder outside the home folder belongs to an installation prefix (/opt/node/bin,
            # a pyenv version's bin): its libraries live beside it
            add(os.path.dirname(entry) if os.path.basename(entry) in ("bin", "sbin") else entry)
        if follow_links:
            for target in _link_targets(entry):
                add_for(target, follow_links=False)

    for raw in path_dirs:
        if not raw or not os.path.isabs(raw):
            continue
        entry = os.path.normpath(raw)
        if os.path.isdir(entry):
            add_for(entry, follow_links=True)
            real = os.path.realpath(entry)
            if real != entry:
                add_for(real, follow_links=True)
    return out


def _link_targets(folder: str) -> list[str]:
    """Where the symlinks in a bin folder lead (pipx/uv tools link into their own venvs)."""
    targets: list[str] = []
    try:
        with os.scandir(folder) as it:
            for n, entry in enumerate(it):
                if n >= _MAX_LINK_SCAN:
                    break
                if entry.is_symlink():
                    real = os.path.realpath(entry.path)
                    parent = os.path.dirname(real)
                    if not within(parent, folder) and parent not in targets:
                        targets.append(parent)
    except OSError:
        pass
    return targets


def split_path_dirs(path_dirs: Iterable[str], workspace: str) -> tuple[list[str], list[str]]:
    """PATH folders as (the user's, outside the workspace; the workspace's own), normalised."""
    user: list[str] = []
    inside: list[str] = []
    for raw in path_dirs:
        if not raw or not os.path.isabs(raw):
            continue
        entry = os.path.normpath(raw)
        (inside if within(entry, workspace) else user).append(entry)
    return user, inside


def check_workspace_paths(workspace: str, path_dirs: Iterable[str], visible: list[str]) -> list[str]:
    """Notes for the paths that workspace content names but that lead outside the workspace and the
    `visible` folders (system folders, the user's toolchains, shell.read_only_paths): the PATH
    folders inside the workspace (resolved through their symlinks) and the project virtualenvs'
    interpreter home. Nothing is added to the view for them; the notes say how to allow one."""
    trusted = [workspace, *visible, *(os.path.realpath(v) for v in visible)]
    notes: list[str] = []

    def leads_outside(path: str) -> str | None:
        real = os.path.realpath(path)
        return None if any(within(real, t) for t in trusted) else real

    for entry in path_dirs:
        real = leads_outside(entry)
        if real is not None and os.path.exists(real):
            rel = os.path.relpath(entry, workspace)
            notes.append(f"the workspace PATH folder {rel} leads to {real}, outside the workspace and the visible "
                         "toolchains: it is not shown inside the sandbox (add it to shell.read_only_paths in your "
                         "user config if you trust it)")
    for name in VENV_NAMES:
        home = _venv_home(os.path.join(workspace, name))
        if home is None or not os.path.isabs(home):
            continue
        real = leads_outside(home)
        if real is not None:
            notes.append(f"the workspace {name} names interpreter home {home}, outside the visible toolchains: it "
                         "is not shown inside the sandbox, so that virtualenv's python may not start (add it to "
                         "shell.read_only_paths in your user config if you trust it)")
    return notes
