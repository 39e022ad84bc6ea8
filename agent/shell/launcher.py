"""The process between the agent and a command: `python -s -m agent.shell.launcher SPEC.json`.

It joins the call's memory cgroup (when memcap.py made one), sets the resource limits, then
- bwrap mode: execs bubblewrap (which kills the whole sandbox when it dies: --die-with-parent and a
  private pid namespace);
- landlock / off modes: becomes a child subreaper, forks the command (new session; for Landlock the
  child builds the sandbox, see confine.py), waits for it, then kills every process left behind:
  background jobs, nohup and setsid children all end up as the launcher's children once their
  parents die, so none survives the call. SIGTERM (the runner's timeout) does the same at once.

It reports on the status file descriptor, as bubblewrap's --json-status-fd does:
{"child-pid": N} once the command started, {"exit-code": N} at the end, or {"setup-error": "..."};
in Landlock mode the end also carries {"sandbox": the exact mode, "notes": [...]}. The command never
inherits that descriptor. Only the standard library and this package's sandbox modules are imported:
this runs once per command.
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

from . import confine, guard, namespaces

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
    """In the forked child: new session, limits, then the sandbox (confine.py) or, with the sandbox
    off, the command itself. Never returns."""
    try:
        os.setsid()
        set_limits(spec["rlimits"])
    except BaseException as exc:  # report every failure to the parent, then exit
        confine.tell(err_w, error=confine.failure_text(exc, spec["argv"][0])[:4000])
        os._exit(127)
    if spec["mode"] == "landlock":
        confine.run(spec, err_w)
    confine.exec_command(spec, err_w)


def _setup_messages(err_r: int) -> dict[str, Any]:
    """Everything the child said before the command started (see confine.py)."""
    data = b""
    while chunk := os.read(err_r, 4096):
        data += chunk
    os.close(err_r)
    said: dict[str, Any] = {"notes": []}
    for line in data.decode(errors="replace").splitlines():
        try:
            obj = json.loads(line)
        except ValueError:
            obj = {"error": line}
        if isinstance(obj, dict):
            said["notes"] += obj.pop("notes", [])
            said.update(obj)
    return said


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
    # The status descriptor is the launcher's alone: a command holding it could forge its own exit.
    if status_fd is not None:
        os.set_inheritable(status_fd, False)
    guarded: guard.Snapshot = {}
    notes: list[str] = []
    skipped: list[str] = []
    if spec["mode"] == "landlock" and spec.get("root"):  # plain Landlock's undo; with namespaces only links can change
        guarded, skipped = guard.take(spec["root"])
    err_r, err_w = os.pipe()
    pid = -1
    said: dict[str, Any] = {}
    try:
        pid = os.fork()
        if pid == 0:
            os.close(err_r)
            for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
                signal.signal(sig, signal.SIG_DFL)
            _child(spec, err_w)
        os.close(err_w)
        said = _setup_messages(err_r)
        if said.get("sandbox") == confine.MODE_PLAIN:
            notes += [f"{p} could not be saved (a folder or too big): not restored after the call" for p in skipped]
        else:  # the mounts hold the rest; restoring it could undo the user's own edits made meanwhile
            guarded = guard.links_only(guarded)
        if "error" in said:
            os.waitpid(pid, 0)  # it waited for pid 1 of the namespace: nothing of the call is left
            namespaces.remove_placeholders(list(said.get("placeholders", [])))
            message = str(said["error"])
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
                code = confine.exit_code(status)
                kill_tree(pid)
                _status(status_fd, **_after(said, guarded, notes), **{"exit-code": code})
                return code
    except _Terminate:
        kill_tree(pid if pid > 0 else None)
        _status(status_fd, **_after(said, guarded, notes), **{"exit-code": 128 + signal.SIGKILL, "killed": True})
        return 128 + signal.SIGKILL


def _after(said: dict[str, Any], guarded: guard.Snapshot, notes: list[str]) -> dict[str, Any]:
    """Once every process of the call is gone: undo what plain Landlock could not prevent, remove
    the placeholders of the namespace view; what to tell the runner."""
    namespaces.remove_placeholders(list(said.get("placeholders", [])))
    notes = [*said.get("notes", []), *notes]
    restored = guard.restore(guarded) if guarded else []
    if restored:
        notes.append("the command changed protected files; restored after the call: " + ", ".join(restored))
    out: dict[str, Any] = {"notes": notes}
    if "sandbox" in said:
        out["sandbox"] = said["sandbox"]
    return out


def main() -> int:
    with open(sys.argv[1], encoding="utf-8") as fh:
        spec = json.load(fh)
    return run(spec)


if __name__ == "__main__":
    sys.exit(main())
