"""The Landlock backend's child side: what launcher.py's forked child does before the command runs.

With namespaces (the kernel allows them; see namespaces.py) the child unshares them and forks the
first process of the new pid namespace, which mounts the sandbox's view, applies the restrictions,
forks the command and reaps every process until the command exits (when that process exits the
kernel kills whatever is left in the namespace):

    launcher ── child (waits) ── pid 1: view, restrictions, reaper ── the command
    launcher ── child: restrictions, exec the command                 (no namespaces: plain Landlock)

Restrictions: capability drop for root, seccomp (no IP/packet/unix sockets, no io_uring), Landlock
network and signal scoping, Landlock file-system grants. Before exec every file descriptor but
0-2 is closed, so the command cannot write the launcher's status.

Messages to the launcher go over the error pipe, one JSON object a line: {"sandbox": mode, ...}
once the sandbox stands, {"error": "..."} when it could not be set up or the command not started.

Nothing here may import agent.config or pydantic: the launcher must start fast.
"""

from __future__ import annotations

import json
import os
import signal
from typing import Any, NoReturn

from . import landlock, namespaces

MODE_NAMESPACES = "landlock+namespaces"
MODE_PLAIN = ("landlock (no namespaces: host processes visible in /proc, no /dev/shm, .codeagent/ writable; "
              ".codeagent.toml, .git/config and .git/hooks restored after the call)")
PR_SET_PDEATHSIG = 1
PR_SET_DUMPABLE = 4
_SHM_DEFAULT = 64 << 20


def tell(fd: int, **obj: Any) -> None:
    """One message line to the launcher (see the module docstring)."""
    os.write(fd, (json.dumps(obj) + "\n").encode())


def failure_text(exc: BaseException, argv0: str) -> str:
    if isinstance(exc, FileNotFoundError):
        return f"command not found: {argv0}"
    return f"{type(exc).__name__}: {exc}"


def exit_code(status: int) -> int:
    if os.WIFSIGNALED(status):
        return 128 + os.WTERMSIG(status)
    return os.WEXITSTATUS(status)


def run(spec: dict[str, Any], err_w: int) -> NoReturn:
    """In the launcher's forked child (new session, limits set): set up and run the command."""
    problem = "turned off for this call"
    try:
        _close_all_but(err_w)  # the launcher's status descriptor above all (pid 1 below outlives the exec)
        if spec.get("namespaces", True):
            problem = namespaces.enter(spec.get("uid", os.getuid()), spec.get("gid", os.getgid())) or ""
    except BaseException as exc:
        _fail(err_w, exc, spec)
    if not problem:
        _waiter(spec, err_w)
    try:
        notes = restrict(spec, private_shm=False, drop_caps=bool(spec.get("drop_root")))
        tell(err_w, sandbox=MODE_PLAIN, notes=[f"namespaces unavailable: {problem}", *notes])
    except BaseException as exc:
        _fail(err_w, exc, spec)
    exec_command(spec, err_w)


def _fail(err_w: int, exc: BaseException, spec: dict[str, Any]) -> NoReturn:
    try:
        tell(err_w, error=failure_text(exc, spec["argv"][0])[:4000])
    finally:
        os._exit(127)


def _waiter(spec: dict[str, Any], err_w: int) -> NoReturn:
    """In the new namespaces: fork pid 1 and exit with its status."""
    try:
        pid = os.fork()
    except BaseException as exc:
        _fail(err_w, exc, spec)
    if pid == 0:
        _pid_one(spec, err_w)
    os.close(err_w)
    while True:
        try:
            _, status = os.waitpid(pid, 0)
        except InterruptedError:
            continue
        os._exit(exit_code(status))


def _pid_one(spec: dict[str, Any], err_w: int) -> NoReturn:
    try:
        landlock.prctl(PR_SET_PDEATHSIG, signal.SIGKILL)  # the launcher's child gone: the namespace goes
        landlock.prctl(PR_SET_DUMPABLE, 0)  # the command may not ptrace it nor open its /proc/1/fd
        view = namespaces.build_view(root=spec["root"], protected=spec.get("protected", []),
                                     no_create=spec.get("no_create", []), shm_size=spec.get("shm_size", _SHM_DEFAULT))
        # in a user namespace pid 1 holds every capability of it: dropped for root and non-root alike
        notes = restrict(spec, private_shm=view.private_shm, drop_caps=True)
        mode = MODE_NAMESPACES + (f" ({'; '.join(view.problems)})" if view.problems else "")
        tell(err_w, sandbox=mode, placeholders=view.placeholders, notes=notes)
        r, w = os.pipe()
        pid = os.fork()
    except BaseException as exc:
        _fail(err_w, exc, spec)
    if pid == 0:
        os.close(r)
        os.close(err_w)
        exec_command(spec, w)
    os.close(w)
    err = b""
    while chunk := os.read(r, 4096):
        err += chunk
    os.close(r)
    if err:
        os.write(err_w, err)
        os._exit(127)
    os.close(err_w)
    while True:  # the reaper of the namespace: every orphan ends up here
        try:
            done, status = os.waitpid(-1, 0)
        except InterruptedError:
            continue
        except ChildProcessError:
            os._exit(0)
        if done == pid:
            os._exit(exit_code(status))


def restrict(spec: dict[str, Any], *, private_shm: bool, drop_caps: bool) -> list[str]:
    """Capabilities, seccomp, Landlock: in this order, each needs the powers the next removes.
    Returns what could not be applied, for the call's notes."""
    notes = []
    if drop_caps:
        landlock.drop_root_powers()
    if not landlock.block_sockets(network=spec["network"]):
        notes.append("libseccomp is missing: unix-socket and UDP connections are not refused")
    landlock.restrict_network_and_signals(network=spec["network"])
    grants = [(p, k) for p, k in spec["grants"]]
    if private_shm:  # the host's /dev/shm is never granted: it is shared with every host process
        grants.append(("/dev/shm", "write"))
    landlock.restrict_files(grants)
    return notes


def _close_all_but(keep: int) -> None:
    os.closerange(3, keep)
    os.closerange(keep + 1, 1 << 20)  # close_range(2) underneath: one system call


def exec_command(spec: dict[str, Any], err_w: int) -> NoReturn:
    """Close every descriptor but 0-2 (err_w is close-on-exec), then exec. Reports failures on err_w."""
    try:
        for sig in (signal.SIGPIPE, signal.SIGXFSZ):  # Python ignores them; an ignored signal survives exec
            signal.signal(sig, signal.SIG_DFL)
        os.chdir(spec["cwd"])
        _close_all_but(err_w)
        os.execvpe(spec["argv"][0], spec["argv"], spec["env"])
    except BaseException as exc:
        _fail(err_w, exc, spec)
