"""The process between the agent and a command: `python -s -m agent.shell.launcher SPEC.json`.

It joins the call's memory cgroup (when memcap.py made one), sets the resource limits, then
- bwrap mode: execs bubblewrap (which kills the whole sandbox when it dies: --die-with-parent and a
  private pid namespace);
- landlock / off modes: becomes a child subreaper, forks the command (new session; Landlock, seccomp
  and capability drops applied in the child), waits for it, then kills every process left behind:
  background jobs, nohup and setsid children all end up as the launcher's children once their
  parents die, so none survives the call. SIGTERM (the runner's timeout) does the same at once.

It reports on the status file descriptor, as bubblewrap's --json-status-fd does:
{"child-pid": N} once the command started, {"exit-code": N} at the end, or {"setup-error": "..."}.
Only the standard library and landlock.py are imported: this runs once per command.
"""

from __future__ import annotations

import contextlib
import json
import os
import resource
import signal
import sys
import time
from typing import Any

PR_SET_PDEATHSIG = 1
PR_SET_CHILD_SUBREAPER = 36
EXIT_SETUP_FAILED = 125


class _Terminate(Exception):
    pass


def _status(fd: int | None, **obj: Any) -> None:
    if fd is None:
        return
    with contextlib.suppress(OSError):
        os.write(fd, (json.dumps(obj) + "\n").encode())


def set_limits(limits: dict[str, int]) -> None:
    names = {"data": resource.RLIMIT_DATA, "nproc": resource.RLIMIT_NPROC, "fsize": resource.RLIMIT_FSIZE,
             "core": resource.RLIMIT_CORE, "nofile": resource.RLIMIT_NOFILE, "as": resource.RLIMIT_AS}
    for name, value in limits.items():
        res = names[name]
        _soft, hard = resource.getrlimit(res)
        if hard != resource.RLIM_INFINITY and value > hard:
            value = hard
        resource.setrlimit(res, (value, value))


def _children(parent: int) -> list[int]:
    out = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as fh:
                data = fh.read()
        except OSError:
            continue
        fields = data[data.rfind(b")") + 2:].split()
        if len(fields) > 1 and int(fields[1]) == parent:
            out.append(int(name))
    return out


def kill_tree(pgid: int | None) -> None:
    """SIGKILL everything this launcher started, until it has no child left."""
    me = os.getpid()
    for _ in range(1000):
        if pgid is not None:
            with contextlib.suppress(OSError):
                os.killpg(pgid, signal.SIGKILL)
        children = _children(me)
        for pid in children:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        reaped = False
        while True:
            try:
                pid, _ = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                break
            reaped = True
        if not children and not reaped:
            time.sleep(0.005)


def _child(spec: dict[str, Any], err_w: int) -> None:
    """In the forked child: new session, limits, restrictions, exec. Never returns."""
    try:
        os.setsid()
        set_limits(spec["rlimits"])
        if spec["mode"] == "landlock":
            from . import landlock

            if spec.get("drop_root"):
                landlock.drop_root_powers()
            if not spec["network"]:
                landlock.block_sockets()
            landlock.restrict_network_and_signals(network=spec["network"])
            landlock.restrict_files([(p, k) for p, k in spec["grants"]])
        os.chdir(spec["cwd"])
        env = spec["env"]
        os.execvpe(spec["argv"][0], spec["argv"], env)
    except BaseException as exc:  # report every failure to the parent, then exit
        msg = f"{type(exc).__name__}: {exc}" if not isinstance(exc, FileNotFoundError) else (
            f"command not found: {spec['argv'][0]}")
        try:
            os.write(err_w, msg.encode(errors="replace")[:4000])
        finally:
            os._exit(127)


def _exit_code(status: int) -> int:
    if os.WIFSIGNALED(status):
        return 128 + os.WTERMSIG(status)
    return os.WEXITSTATUS(status)


def join_cgroup(procs_file: str | None) -> str | None:
    """Move this process into the call's cgroup (memcap.py) before it starts anything; the error."""
    if not procs_file:
        return None
    try:
        with open(procs_file, "w", encoding="ascii") as fh:
            fh.write(str(os.getpid()))
    except OSError as exc:
        return (f"cannot join the memory cgroup {os.path.dirname(procs_file)}: {exc.strerror or exc} "
                "(shell.memory_cgroup = false uses the rlimits alone)")
    return None


def run(spec: dict[str, Any]) -> int:
    status_fd = spec.get("status_fd")
    problem = join_cgroup(spec.get("cgroup_procs"))
    if problem is not None:
        _status(status_fd, **{"setup-error": problem})
        sys.stderr.write(f"codeagent sandbox: {problem}\n")
        return EXIT_SETUP_FAILED
    if spec["mode"] == "bwrap":
        set_limits(spec["rlimits"])
        os.execvpe(spec["argv"][0], spec["argv"], spec["env"])
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)

    def on_signal(signum: int, frame: object) -> None:
        raise _Terminate()

    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, on_signal)
    err_r, err_w = os.pipe()
    pid = -1
    try:
        pid = os.fork()
        if pid == 0:
            os.close(err_r)
            for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
                signal.signal(sig, signal.SIG_DFL)
            _child(spec, err_w)
        os.close(err_w)
        err = b""
        while chunk := os.read(err_r, 4096):
            err += chunk
        os.close(err_r)
        if err:
            os.waitpid(pid, 0)
            message = err.decode(errors="replace")
            _status(status_fd, **{"setup-error": message})
            sys.stderr.write(f"codeagent sandbox: {message}\n")
            return EXIT_SETUP_FAILED
        _status(status_fd, **{"child-pid": pid})
        while True:
            try:
                done, status = os.waitpid(-1, 0)
            except ChildProcessError:
                return 0
            if done == pid:
                code = _exit_code(status)
                kill_tree(pid)
                _status(status_fd, **{"exit-code": code})
                return code
    except _Terminate:
        kill_tree(pid if pid > 0 else None)
        _status(status_fd, **{"exit-code": 128 + signal.SIGKILL, "killed": True})
        return 128 + signal.SIGKILL


def main() -> int:
    with open(sys.argv[1], encoding="utf-8") as fh:
        spec = json.load(fh)
    return run(spec)


if __name__ == "__main__":
    sys.exit(main())
