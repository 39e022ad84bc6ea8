"""Running one command in the sandbox: limits, timeout that ends the whole process tree, output
streamed to a file while only a head and a tail are kept in memory, live streaming callback.

stdout and stderr are merged in the order they were written (one pipe), decoded as UTF-8 with
invalid bytes replaced, and bounded to `max_output_chars` (two thirds head, one third tail) with
the count of bytes and lines cut. The full output is written to `.codeagent/shell/` while it
streams (up to `max_log_bytes`) and kept only when something was cut.
"""

from __future__ import annotations

import contextlib
import fcntl
import functools
import importlib.util
import json
import os
import secrets
import selectors
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from ..atomic import ensure_state_dir
from ..config import ShellSettings
from ..workspace import Workspace
from .environment import command_env
from .errors import CommandSetupError, SandboxUnavailable
from .memcap import MemoryCap, open_memory_cap
from .namespaces import remove_placeholders
from .output import OutputCollector
from .sandbox import Backend, bwrap_argv, choose_backend, landlock_grants, plan_sandbox

LOG_DIR = "shell"
_F_SETPIPE_SZ = 1031
_READ_SIZE = 1 << 20
_KILL_GRACE = 3.0
_DRAIN_AFTER_EXIT = 5.0


@dataclass
class CommandResult:
    """What a command did. `output` is the bounded text the model sees."""

    exit_code: int | None
    head: str
    tail: str
    duration: float
    timed_out: bool = False
    cancelled: bool = False  # stopped because the caller cancelled the call (timed_out is set too)
    truncated: bool = False
    total_bytes: int = 0
    cut_bytes: int = 0
    cut_lines: int = 0
    log_path: str | None = None  # workspace-relative path of the full output, when cut
    backend: str = ""
    sandbox: str = ""  # the exact mode and the guarantees that held (Landlock: with or without namespaces)
    setup_error: str | None = None
    notes: list[str] = field(default_factory=list)
    memory_cap: str = ""  # the memory cap in force: "cgroup-v1 4096 MiB", "rlimit-as ...", ... (memcap.py)

    @property
    def output(self) -> str:
        """The output as the model sees it: all of it, or head + what was cut + tail."""
        if not self.truncated:
            return self.head
        where = f"; the full output is in {self.log_path}" if self.log_path else ""
        return (f"{self.head}\n[... {self.cut_bytes} bytes ({self.cut_lines} lines) cut from the middle of "
                f"{self.total_bytes} bytes{where} ...]\n{self.tail}")


def _private_dirs(call_dir: str) -> tuple[str, str]:
    tmp, home = os.path.join(call_dir, "tmp"), os.path.join(call_dir, "home")
    os.makedirs(tmp, mode=0o700)
    os.makedirs(home, mode=0o700)
    return tmp, home


def _log_file(workspace: Workspace, keep: int) -> tuple[Path, IO[bytes]]:
    folder = workspace.tool_dir / LOG_DIR
    folder.mkdir(parents=True, exist_ok=True)
    old = sorted(folder.glob("*.log"))
    for stale in old[: max(len(old) - keep + 1, 0)]:
        with contextlib.suppress(OSError):
            stale.unlink()
    path = folder / f"{time.strftime('%Y%m%d-%H%M%S')}-{secrets.token_hex(3)}.log"
    return path, open(path, "wb")  # noqa: SIM115 (closed by run_command)


def run_command(
    settings: ShellSettings, workspace: Workspace, argv: list[str], *, cwd: Path, timeout: float,
    on_output: Callable[[str], None] | None = None, network: bool = False, base_env: Mapping[str, str] | None = None,
    extra_env_allow: Iterable[str] = (), extra_writable: Iterable[str] = (), home: str | None = None,
    max_chars: int | None = None, cancel: threading.Event | None = None, landlock_namespaces: bool = True,
) -> CommandResult:
    """Run `argv` in the sandbox the settings choose; never raises for the command's own failures.
    `max_chars` lowers the output bound below `settings.max_output_chars` (room for a caller's text);
    `cancel`, once set, kills the command as a timeout would (the caller gave up on the call).
    `landlock_namespaces=False` runs the Landlock backend without namespaces (what a kernel without
    them gets; the tests' seam). CommandSetupError when the call could not be prepared (disk full,
    ...); its private folders are removed whatever happens."""
    backend: Backend = choose_backend(settings)
    base_env = os.environ if base_env is None else base_env
    real_home = home or base_env.get("HOME") or os.path.expanduser("~")
    try:
        # before planning, so that it always exists and is always protected
        ensure_state_dir(workspace.tool_dir)
        call_dir = tempfile.mkdtemp(prefix="codeagent-call-")
    except OSError as exc:
        raise CommandSetupError(f"cannot prepare the command: {_why(exc)}") from exc
    call = _Call(call_dir)
    try:
        result = _run(call, settings, workspace, argv, backend=backend, cwd=cwd, timeout=timeout,
                      on_output=on_output, network=network, base_env=base_env, real_home=real_home,
                      extra_env_allow=extra_env_allow, extra_writable=extra_writable, max_chars=max_chars,
                      cancel=cancel, landlock_namespaces=landlock_namespaces)
    except OSError as exc:
        raise CommandSetupError(f"cannot prepare the command: {_why(exc)}") from exc
    finally:
        call.cleanup()
    call.finish(result, workspace)
    return result


def _why(exc: OSError) -> str:
    where = f" ({exc.filename})" if exc.filename else ""
    return f"{exc.strerror or exc}{where}"


class _Call:
    """What one call leaves to clean up: its private folder, the output log, the placeholders
    (mount points) made for paths that must not be created, the memory cgroup."""

    def __init__(self, call_dir: str):
        self.call_dir = call_dir
        self.log_path: Path | None = None
        self.log: IO[bytes] | None = None
        self.collector: OutputCollector | None = None
        self.no_create: list[str] = []
        self.log_error: str | None = None
        self.memory: MemoryCap | None = None

    def cleanup(self) -> None:
        """Never raises: every step runs even when an earlier one failed (a full disk fails them)."""
        if self.log is not None:
            try:
                self.log.close()
            except OSError as exc:
                self.log_error = self.log_error or _why(exc)
        shutil.rmtree(self.call_dir, ignore_errors=True)
        remove_placeholders(self.no_create)
        if self.memory is not None:
            self.memory.close()

    def finish(self, result: CommandResult, workspace: Workspace) -> None:
        """Keep the full output only when something was cut, and say what could not be kept."""
        collector = self.collector
        self.log_error = self.log_error or (collector.log_error if collector else None)
        if self.log_path is None or collector is None:
            return
        if result.truncated and result.setup_error is None and self.log_error is None:
            result.log_path = self.log_path.relative_to(workspace.root).as_posix()
            if collector.logged < collector.total:
                result.notes.append(f"the saved output stops at {collector.logged} of {collector.total} bytes "
                                    "(shell.max_log_bytes)")
            return
        if self.log_error is not None and result.truncated:
            result.notes.append(f"the full output could not be saved: {self.log_error}")
        with contextlib.suppress(OSError):
            self.log_path.unlink()


def _run(call: _Call, settings: ShellSettings, workspace: Workspace, argv: list[str], *, backend: Backend,
         cwd: Path, timeout: float, on_output: Callable[[str], None] | None, network: bool,
         base_env: Mapping[str, str], real_home: str, extra_env_allow: Iterable[str], extra_writable: Iterable[str],
         max_chars: int | None, cancel: threading.Event | None, landlock_namespaces: bool) -> CommandResult:
    private_tmp, private_home = _private_dirs(call.call_dir)
    inside_home = private_home if backend == "landlock" else real_home
    env = command_env(settings, base_env, root=workspace.root, home=inside_home, extra_allow=extra_env_allow)
    if backend == "landlock":
        env["TMPDIR"] = private_tmp
    spec: dict[str, Any] = {
        "mode": backend, "cwd": str(cwd), "env": env, "network": network,
        "rlimits": {"data": settings.memory_limit_mb << 20, "nproc": settings.max_processes,
                    "fsize": settings.max_file_size_mb << 20, "core": 0},
        "drop_root": os.geteuid() == 0, "argv": argv, "grants": [],
    }
    notes: list[str] = []
    status_r, status_w = os.pipe()
    try:
        spec["status_fd"] = status_w
        if backend != "off":
            plan = plan_sandbox(settings, backend=backend, root=workspace.root, cwd=cwd, env=env, home=real_home,
                                network=network, extra_writable=extra_writable)
            notes += plan.notes
            # the placeholders either backend makes for them; a launcher killed outright cannot remove them
            call.no_create = plan.no_create
            if backend == "bwrap":
                spec["argv"] = bwrap_argv(plan, argv, bwrap=shutil.which("bwrap") or "bwrap", status_fd=status_w)
            else:
                spec["grants"] = landlock_grants(plan, [private_tmp, private_home])
                spec.update(root=plan.root, protected=plan.protected, no_create=plan.no_create,
                            namespaces=landlock_namespaces, shm_size=plan.tmp_size_mb << 20)
        call.memory = open_memory_cap(settings.memory_limit_mb, use_cgroup=settings.memory_cgroup,
                                      address_space_factor=settings.address_space_factor)
        spec["cgroup_procs"] = call.memory.procs_file
        spec["rlimits"]["data"] = call.memory.rlimit_data()
        if call.memory.rlimit_as is not None:
            spec["rlimits"]["as"] = call.memory.rlimit_as
        spec_path = os.path.join(call.call_dir, "spec.json")
        with open(spec_path, "w", encoding="utf-8") as fh:
            json.dump(spec, fh)
        if settings.max_log_bytes > 0:
            call.log_path, call.log = _log_file(workspace, settings.keep_logs)
    except BaseException:
        os.close(status_r)
        os.close(status_w)
        raise
    limit = min(settings.max_output_chars, max_chars) if max_chars else settings.max_output_chars
    call.collector = OutputCollector(max(limit, 1000), log=call.log, log_limit=settings.max_log_bytes,
                                     on_output=on_output)
    cap = call.memory
    assert cap is not None
    result = _spawn_and_collect([*cap.prefix, sys.executable, "-s", "-m", "agent.shell.launcher", spec_path],
                                status_r, status_w, call.collector, timeout=timeout, backend=backend, cancel=cancel)
    result.memory_cap = cap.describe()
    result.notes += notes + _memory_notes(cap, result)
    return result


def _memory_notes(cap: MemoryCap, result: CommandResult) -> list[str]:
    """Say when the memory cap stopped the command (certain for a cgroup, likely for an rlimit)."""
    kills = cap.oom_kills()
    if kills:
        return [f"the memory cap ({cap.describe()}) was reached: the kernel killed {kills} process"
                f"{'es' if kills > 1 else ''} of the command (shell.memory_limit_mb)"]
    if cap.cgroup is None and result.exit_code not in (0, None):
        text = f"{result.head}\n{result.tail}"
        if any(sign in text for sign in ("MemoryError", "Cannot allocate memory", "out of memory", "bad_alloc")):
            return [f"the command probably hit the memory cap ({cap.describe()}; shell.memory_limit_mb)"]
    return []


@functools.lru_cache(maxsize=1)
def _launcher_env() -> dict[str, str]:
    """The launcher's own environment (the command's is in the spec): just where its imports live,
    whether the agent is installed or only on PYTHONPATH."""
    paths = [str(Path(__file__).resolve().parents[2])]
    spec = importlib.util.find_spec("landlock")
    if spec is not None and spec.origin:
        paths.append(str(Path(spec.origin).resolve().parents[1]))
    return {"PYTHONPATH": os.pathsep.join(dict.fromkeys(paths)), "PATH": os.defpath, "LANG": "C.UTF-8"}


def _spawn_and_collect(launcher: list[str], status_r: int, status_w: int,
                       collector: OutputCollector, *, timeout: float, backend: Backend,
                       cancel: threading.Event | None = None) -> CommandResult:
    start = time.monotonic()
    try:
        proc = subprocess.Popen(launcher, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                env=_launcher_env(), start_new_session=True, pass_fds=(status_w,), close_fds=True)
    except OSError as exc:
        os.close(status_r)
        os.close(status_w)
        raise SandboxUnavailable(f"cannot start the command launcher: {exc}") from exc
    os.close(status_w)
    assert proc.stdout is not None
    out_fd = proc.stdout.fileno()
    with contextlib.suppress(OSError):
        fcntl.fcntl(out_fd, _F_SETPIPE_SZ, _READ_SIZE)
    timed_out = cancelled = False
    kill_at: float | None = None
    exited_at: float | None = None
    deadline = start + timeout
    with selectors.DefaultSelector() as sel:
        sel.register(out_fd, selectors.EVENT_READ)
        while True:
            now = time.monotonic()
            stop = now >= deadline or (cancel is not None and cancel.is_set())
            if not timed_out and stop and proc.poll() is None:
                timed_out = True
                cancelled = now < deadline
                _stop(proc, backend, hard=backend == "bwrap")
                kill_at = now + _KILL_GRACE
            if kill_at is not None and now >= kill_at:
                _stop(proc, backend, hard=True)
                kill_at = now + _KILL_GRACE
            wait = 0.25 if timed_out else min(max(deadline - now, 0.0), 0.1)
            if sel.select(timeout=wait):
                data = os.read(out_fd, _READ_SIZE)
                if not data:
                    break
                collector.feed(data)
                continue
            if proc.poll() is not None:
                exited_at = exited_at or time.monotonic()
                if time.monotonic() - exited_at > _DRAIN_AFTER_EXIT:
                    break  # something outside the tree holds the pipe; do not wait for it
    try:
        proc.wait(timeout=_KILL_GRACE * 2)
    except subprocess.TimeoutExpired:
        _stop(proc, backend, hard=True)
        proc.wait()
    proc.stdout.close()
    duration = time.monotonic() - start
    status = _read_status(status_r)
    head, tail, cut_bytes, cut_lines = collector.result()
    exit_code: int | None = status.get("exit-code", proc.returncode)
    setup_error = status.get("setup-error")
    if backend == "bwrap" and "exit-code" not in status and not timed_out:
        setup_error = head.strip() or f"bubblewrap exited with code {proc.returncode}"
    if timed_out:
        exit_code = None
    notes = [str(n) for n in status.get("notes", [])] if isinstance(status.get("notes"), list) else []
    return CommandResult(exit_code=exit_code, head=head, tail=tail, duration=duration, timed_out=timed_out,
                         cancelled=cancelled,
                         truncated=cut_bytes > 0 or bool(tail), total_bytes=collector.total, cut_bytes=cut_bytes, cut_lines=cut_lines,
                         backend=backend, sandbox=str(status.get("sandbox") or backend), setup_error=setup_error,
                         notes=notes)


def _stop(proc: subprocess.Popen[bytes], backend: Backend, *, hard: bool) -> None:
    """Timeout: bubblewrap takes its whole pid namespace down when killed; the launcher kills its
    tree on SIGTERM (a SIGKILL of its group is the last resort)."""
    with contextlib.suppress(OSError):
        if hard:
            os.killpg(proc.pid, signal.SIGKILL)
        else:
            proc.send_signal(signal.SIGTERM)


def _read_status(fd: int) -> dict[str, Any]:
    status: dict[str, Any] = {}
    chunks = b""
    try:
        os.set_blocking(fd, False)
        while True:
            try:
                chunk = os.read(fd, 65536)
            except BlockingIOError:
                break
            if not chunk:
                break
            chunks += chunk
    finally:
        os.close(fd)
    for line in chunks.decode(errors="replace").splitlines():
        with contextlib.suppress(ValueError):
            obj = json.loads(line)
            if isinstance(obj, dict):
                status.update(obj)
    return status
