"""Layer 2 of shell safety, the real boundary: what a command can see and do.

`plan_sandbox` decides the view (system folders and toolchains read-only, the workspace writable,
secrets hidden, no network, not root); `bwrap_argv` turns it into a bubblewrap command line and
`landlock_grants` into Landlock rules for launcher.py. `choose_backend` picks bubblewrap when it
starts here, else Landlock, else refuses (unless the configuration turned the sandbox off).

Which toolchains are shown is decided in toolchains.py, from the user's environment only (workspace
content never widens the view); the paths commands must not change are in protect.py.
"""

from __future__ import annotations

import functools
import glob
import os
import shutil
import stat
import subprocess
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Literal

from ..config import ShellSettings
from .errors import SandboxUnavailable
from .protect import NO_CREATE_NAMES, PROTECTED_NAMES, bwrap_protect_args, find_protected
from .toolchains import check_workspace_paths, split_path_dirs, toolchain_roots
from .toolchains import within as _within

Backend = Literal["bwrap", "landlock", "off"]
__all__ = ["NO_CREATE_NAMES", "PROTECTED_NAMES", "SandboxPlan", "bwrap_argv", "plan_sandbox"]


@dataclass
class SandboxPlan:
    """Everything a backend needs to build the sandbox of one command."""

    backend: Backend
    root: str  # the workspace (writable)
    cwd: str
    home: str  # the home folder path as seen inside (an empty private folder)
    system: list[str] = field(default_factory=list)  # read-only system folders
    read_only: list[str] = field(default_factory=list)
    writable: list[str] = field(default_factory=list)
    hidden: list[str] = field(default_factory=list)
    # Paths inside the workspace that commands must not change: codeagent's own state and the files
    # that steer programs run on the host (see PROTECTED_NAMES). `protected` exist now and are
    # shown read-only; `no_create` do not exist and must not be created by the command.
    protected: list[str] = field(default_factory=list)
    no_create: list[str] = field(default_factory=list)
    network: bool = False
    uid: int = 1000
    gid: int = 1000
    tmp_size_mb: int = 2048
    # What the plan left out and why (a workspace .venv naming an interpreter outside the view, ...):
    # shown with the command's result.
    notes: list[str] = field(default_factory=list)


def _exists(path: str) -> bool:
    return os.path.lexists(path)


@functools.lru_cache(maxsize=8)
def root_only_entries(top: str) -> tuple[str, ...]:
    """Entries under `top` that other users may not read: hidden when the agent runs as root,
    since uid 0 (even without capabilities) would read them as their owner."""
    hidden: list[str] = []
    for dirpath, dirnames, filenames in os.walk(top):
        for name in list(dirnames) + filenames:
            path = os.path.join(dirpath, name)
            try:
                st = os.lstat(path)
            except OSError:
                continue
            if stat.S_ISLNK(st.st_mode):
                continue
            need = 0o005 if stat.S_ISDIR(st.st_mode) else 0o004
            if st.st_mode & need != need:
                hidden.append(path)
                if name in dirnames:
                    dirnames.remove(name)
    return tuple(hidden)


def _expand(pattern: str, home: str) -> list[str]:
    path = pattern.replace("~", home, 1) if pattern.startswith("~") else pattern
    if any(c in path for c in "*?["):
        return sorted(glob.glob(path))
    return [path]


def plan_sandbox(
    settings: ShellSettings, *, backend: Backend, root: str | os.PathLike[str], cwd: str | os.PathLike[str],
    env: Mapping[str, str], home: str, network: bool = False, extra_writable: Iterable[str] = (),
) -> SandboxPlan:
    """The view one command gets. `env` is the environment the command will run with (its PATH
    decides which toolchains are shown); `home` is the real home folder. Only the user's
    environment and settings add folders; what workspace content names (a PATH folder inside the
    workspace and its links, a project virtualenv's interpreter home) is checked, never added:
    the plan's `notes` say what was left out. UnsafeWorkspace (bubblewrap) when a protected path
    is a symlink."""
    root_s = os.path.realpath(os.fspath(root))
    protection = find_protected(root_s, refuse_links=backend == "bwrap")
    system = [p for p in settings.system_paths if _exists(p)]
    user_dirs, workspace_dirs = split_path_dirs(env.get("PATH", "").split(os.pathsep), root_s)
    read_only = toolchain_roots(user_dirs, home=home, system=system, workspace=root_s)
    for extra in settings.read_only_paths:
        for path in _expand(extra, home):
            if os.path.isdir(path) and path not in read_only and not _within(path, root_s) and not any(
                    _within(path, s) for s in system):
                read_only.append(os.path.normpath(path))
    notes = check_workspace_paths(root_s, workspace_dirs, [*system, *read_only, *user_dirs])
    writable = [root_s]
    for extra in [*settings.writable_paths, *extra_writable]:
        for path in _expand(extra, home):
            if os.path.isdir(path) and path not in writable:
                writable.append(os.path.normpath(path))
    visible = system + read_only + writable
    hidden: list[str] = []
    for pattern in settings.hidden_paths:
        for path in _expand(pattern, home):
            if _exists(path) and any(_within(path, v) for v in visible):
                hidden.append(path)
    if os.geteuid() == 0 and "/etc" in system:
        hidden += [p for p in root_only_entries("/etc") if p not in hidden]
    uid = settings.sandbox_uid or (os.getuid() or 1000)
    gid = os.getgid() if os.getuid() and settings.sandbox_uid is None else uid
    return SandboxPlan(backend=backend, root=root_s, cwd=os.path.realpath(os.fspath(cwd)), home=home,
                       system=system, read_only=read_only, writable=writable, hidden=hidden,
                       protected=protection.protected, no_create=protection.no_create, network=network, uid=uid,
                       gid=gid, tmp_size_mb=settings.tmp_size_mb, notes=notes)


# ---------------------------------------------------------------------------- bubblewrap
def bwrap_argv(plan: SandboxPlan, argv: list[str], *, bwrap: str = "bwrap", status_fd: int | None = None) -> list[str]:
    """The bubblewrap command line that runs `argv` inside the plan's view."""
    size = str(plan.tmp_size_mb * 1024 * 1024)
    out = [bwrap, "--die-with-parent", "--new-session", "--unshare-user", "--unshare-pid", "--unshare-ipc",
           "--unshare-uts", "--unshare-cgroup-try", "--hostname", "codeagent",
           "--uid", str(plan.uid), "--gid", str(plan.gid), "--cap-drop", "ALL"]
    if not plan.network:
        out.append("--unshare-net")
    if status_fd is not None:
        out += ["--json-status-fd", str(status_fd)]
    for path in plan.system:
        if os.path.islink(path):
            out += ["--symlink", os.readlink(path), path]
        else:
            out += ["--ro-bind", path, path]
    out += ["--dev", "/dev", "--proc", "/proc", "--size", size, "--tmpfs", "/tmp", "--size", size, "--tmpfs", "/var/tmp"]
    if plan.network and os.path.islink("/etc/resolv.conf"):
        target = os.path.dirname(os.path.realpath("/etc/resolv.conf"))
        if not any(_within(target, p) for p in plan.system):
            out += ["--ro-bind-try", target, target]
    if plan.home not in ("/", "") and not any(_within(plan.home, p) for p in plan.system):
        out += ["--size", size, "--tmpfs", plan.home]
    for path in plan.read_only:
        out += ["--ro-bind", path, path]
    for path in plan.writable:
        out += ["--bind", path, path]
    out += bwrap_protect_args(plan.root, plan.protected, plan.no_create)
    for path in plan.hidden:
        if os.path.isdir(path) and not os.path.islink(path):
            out += ["--tmpfs", path, "--remount-ro", path]
        else:
            out += ["--ro-bind", "/dev/null", path]
    out += ["--chdir", plan.cwd, "--", *argv]
    return out


@functools.lru_cache(maxsize=4)
def probe_bwrap(bwrap: str | None) -> str | None:
    """None when bubblewrap can start a sandbox here, else why not."""
    if bwrap is None:
        return "bubblewrap (bwrap) is not installed"
    probe = [bwrap, "--die-with-parent", "--unshare-user", "--unshare-pid", "--unshare-net", "--unshare-ipc",
             "--uid", "1000" if os.getuid() == 0 else str(os.getuid()),
             "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--", "true"]
    try:
        done = subprocess.run(probe, capture_output=True, timeout=30, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"bubblewrap did not start: {exc}"
    if done.returncode != 0:
        why = done.stderr.decode(errors="replace").strip() or f"exit code {done.returncode}"
        return f"bubblewrap cannot create a sandbox here: {why}"
    return None


@functools.lru_cache(maxsize=1)
def probe_landlock() -> str | None:
    """None when Landlock can restrict processes here, else why not."""
    try:
        from .landlock import abi_version

        abi = abi_version()
    except Exception as exc:  # ImportError, OSError from the syscall
        return f"Landlock is not available: {exc}"
    if abi < 1:
        return "Landlock is not available in this kernel"
    return None


def choose_backend(settings: ShellSettings) -> Backend:
    """The sandbox to use, or SandboxUnavailable saying why none can start and how to fix it."""
    wanted = settings.sandbox
    if wanted == "off":
        return "off"
    bwrap_problem = probe_bwrap(shutil.which("bwrap")) if wanted in ("auto", "bwrap") else None
    if wanted == "bwrap" or (wanted == "auto" and bwrap_problem is None):
        if bwrap_problem is None:
            return "bwrap"
        raise SandboxUnavailable(f"shell.sandbox is 'bwrap' but {bwrap_problem}. Install bubblewrap "
                                 "(apt-get install bubblewrap) or choose another sandbox.")
    landlock_problem = probe_landlock()
    if landlock_problem is None:
        return "landlock"
    raise SandboxUnavailable(
        "no OS sandbox can start here, so shell commands are refused: "
        + "; ".join(p for p in (bwrap_problem, landlock_problem) if p)
        + ". Install bubblewrap (apt-get install bubblewrap), or, only on a disposable machine, turn the sandbox "
        "off with shell.sandbox = \"off\" (or CODEAGENT_SANDBOX=off).")


# ---------------------------------------------------------------------------- Landlock
# No terminal (/dev/tty, /dev/ptmx, /dev/pts: the host's terminals could be read and typed into)
# and no /dev/shm here: the launcher grants /dev/shm only when it mounted a private one.
_DEVICES = ["/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom"]


def landlock_grants(plan: SandboxPlan, private: list[str]) -> list[tuple[str, str]]:
    """Landlock rules for the plan: (path, "read" | "write" | "device" | "list"). Landlock only
    allows (it cannot hide a path inside an allowed folder), so a folder holding a hidden path is
    granted entry by entry around it. `private` are the call's own writable folders (tmp, home)."""
    out: list[tuple[str, str]] = []
    for path in [*plan.system, *plan.read_only, "/proc"]:
        _grant_tree(path, "read", plan.hidden, out)
    for path in plan.writable:
        _grant_tree(path, "write", plan.hidden, out)
    out += [(p, "write") for p in private]
    out.append(("/dev", "list"))
    out += [(p, "device") for p in _DEVICES if os.path.exists(p)]
    return out


def _grant_tree(path: str, kind: str, hidden: list[str], out: list[tuple[str, str]]) -> None:
    inside = [h for h in hidden if _within(h, path)]
    if not inside:
        out.append((path, kind))
        return
    if path in hidden or not os.path.isdir(path) or os.path.islink(path):
        return
    out.append((path, "list"))
    try:
        entries = sorted(os.listdir(path))
    except OSError:
        return
    for name in entries:
        child = os.path.join(path, name)
        if child in hidden:
            continue
        if any(_within(h, child) for h in inside):
            _grant_tree(child, kind, inside, out)
        else:
            out.append((child, kind))
