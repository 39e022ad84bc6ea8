"""The CLI's side of the daemon: find or start the workspace's daemon and run one tool call in it.

Every failure here (cannot create the folder, the process does not come up, the socket breaks)
is a DaemonError, and the CLI then runs the call in-process; the printed result is the same.
"""

from __future__ import annotations

import contextlib
import ctypes
import fcntl
import os
import socket
import subprocess
import sys
import threading
import time
import traceback
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..configsnapshot import SettingsSnapshot
from ..errors import CodeagentError
from ..languages import server_language
from .protocol import (
    DaemonError,
    NoDaemon,
    inputs_id,
    install_id,
    prune_states,
    recv_message,
    send_message,
    settings_id,
    settings_json,
    state_dir,
)

if TYPE_CHECKING:  # (not imported: a cold start forks before pydantic loads, see configsnapshot)
    from ..config import Settings

START_TIMEOUT = 30.0  # a cold Python import on a loaded machine can take several seconds
CONNECT_TIMEOUT = 2.0


class DaemonClient:
    """`fork=True` (the CLI's choice) starts the daemon by forking this process instead of a new
    interpreter: only for a short-lived, single-threaded process holding nothing else open (a
    forked copy of a test runner would keep its pipes open)."""

    def __init__(self, root: Path, settings: Settings | SettingsSnapshot, *, fork: bool = False):
        self.root = root
        self.settings = settings
        self.fork = fork
        self.state = state_dir(root)
        self.sock_path = self.state / "sock"
        self._build = install_id()
        self._settings_id = settings_id(settings)

    # --------------------------------------------------------------- requests
    def request(self, op: str, *, timeout: float | None = None, **fields: Any) -> dict[str, Any]:
        """Send one request to a running daemon; DaemonError if none answers."""
        self._build = install_id()  # (code changes under a daemon are its own watch's to see)
        # Settings that ignored part of the project file are never served by the fast path, which
        # builds no settings: each command then prints the warnings itself.
        inputs = None if self.settings.warnings else inputs_id(self.root)
        message = {"op": op, "build": self._build, "settings": self._settings_id, "inputs": inputs, **fields}
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
            sock.settimeout(CONNECT_TIMEOUT)
            try:
                sock.connect(str(self.sock_path))
            except OSError as exc:
                raise NoDaemon(f"no daemon at {self.sock_path}: {exc}") from exc
            try:
                sock.settimeout(timeout)
                send_message(sock, message)
                reply = recv_message(sock)
            except OSError as exc:
                raise DaemonError(f"the daemon at {self.sock_path} did not answer: {exc}") from exc
        return reply

    def call_tool(self, name: str, args: dict[str, Any]) -> dict[str, Any]:
        """Run a tool in the daemon (starting it if needed); returns the ToolResult as a dict."""
        file_path = args.get("file_path")
        language = server_language(file_path) if isinstance(file_path, str) else None
        lsp = self.settings.lsp
        timeout = lsp.ready_timeout + 4 * lsp.request_timeout + 60
        try:  # a running daemon answers at once (no ping first: one round trip less per call)
            reply = self.request("tool", name=name, args=args, timeout=timeout)
        except NoDaemon:  # none runs: start one (a request that reached a daemon is never resent)
            self.ensure_running(warm=language, warm_file=file_path if language else None)
            reply = self.request("tool", name=name, args=args, timeout=timeout)
        if reply.get("restart"):
            self._wait_gone()
            self.ensure_running(warm=language, warm_file=file_path if language else None)
            reply = self.request("tool", name=name, args=args, timeout=timeout)
        if not reply.get("ok") or not isinstance(reply.get("result"), dict):
            raise DaemonError(str(reply.get("error") or "daemon gave no result"))
        result: dict[str, Any] = reply["result"]
        return result

    def ping(self) -> dict[str, Any] | None:
        """The running daemon's pid and root, or None when none answers (or it is outdated)."""
        try:
            reply = self.request("ping", timeout=10.0)
        except DaemonError:
            return None
        if reply.get("restart"):
            self._wait_gone()
            return None
        return reply.get("result") if reply.get("ok") else None

    def stop(self, timeout: float = 30.0) -> bool:
        """Ask the daemon to exit and wait until it has; False when none was running."""
        pid = self._pid()
        try:
            self.request("stop", timeout=10.0)
        except DaemonError:
            if pid is None or not process_alive(pid):
                return False
            with contextlib.suppress(OSError):
                os.kill(pid, 15)
        if pid is not None:
            deadline = time.monotonic() + timeout
            while process_alive(pid) and time.monotonic() < deadline:
                time.sleep(0.05)
        return True

    # --------------------------------------------------------------- startup
    def ensure_running(self, warm: str | None = None, warm_file: str | None = None) -> None:
        """Make sure the daemon answers; a new one starts `warm`'s language server at once (and
        opens `warm_file` in it, so the server starts analysing what the first request is about)."""
        if self.ping() is not None:
            return
        lock_path = self.state / "start.lock"
        with open(lock_path, "a+") as lock:
            _lock(lock, START_TIMEOUT)
            for _attempt in range(2):  # a second try if the code changed on disk while it started
                if self.ping() is not None:  # another CLI started it while we waited
                    return
                self._spawn(warm, warm_file, lock.fileno())
                deadline = time.monotonic() + START_TIMEOUT
                while time.monotonic() < deadline:
                    # No socket yet, no ping: CPU the starting daemon and its server need on a
                    # small machine.
                    if self.sock_path.exists() and self.ping() is not None:
                        return
                    if self._exited():
                        break
                    time.sleep(0.02)
                else:
                    raise DaemonError(f"daemon did not answer within {START_TIMEOUT:.0f} s")
            raise DaemonError(f"daemon exited at start; see {self.state / 'daemon.log'}")

    _proc: subprocess.Popen[bytes] | None = None
    _forked: int | None = None

    def _spawn(self, warm: str | None, warm_file: str | None, lock_fd: int) -> None:
        forking = self.fork and threading.active_count() == 1 and hasattr(os, "fork")
        if isinstance(self.settings, SettingsSnapshot) and not forking:  # only a forked daemon checks one
            try:
                self.settings = self.settings.verified()
            except CodeagentError as exc:
                raise DaemonError(str(exc)) from exc
        settings_file = self.state / "settings.json"
        tmp = settings_file.with_suffix(".tmp")
        tmp.write_text(settings_json(self.settings), encoding="utf-8")
        os.replace(tmp, settings_file)
        (self.state / "root").write_text(str(self.root), encoding="utf-8")
        with contextlib.suppress(OSError):
            prune_states(self.state)
        if forking:
            self._fork(warm, warm_file, lock_fd)
            return
        cmd = [sys.executable, "-m", "agent.daemon.server", "--root", str(self.root), "--state", str(self.state)]
        if warm:
            cmd += ["--warm", warm]
            if warm_file:
                cmd += ["--warm-file", warm_file]
        try:
            # Detached: own session (no terminal signals), no inherited pipes (a caller reading our
            # stdout to EOF must not wait for the daemon), cwd outside the workspace.
            with open(self.state / "daemon.log", "ab") as log:  # a crash before logging starts lands here
                self._proc = subprocess.Popen(
                    cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=log,
                    cwd=str(self.state), start_new_session=True, close_fds=True,
                )
        except OSError as exc:
            raise DaemonError(f"cannot start the daemon: {exc}") from exc

    def _fork(self, warm: str | None, warm_file: str | None, lock_fd: int) -> None:
        """Become the daemon by forking: this process has loaded every module already, so the
        server starts a second or so sooner than with a fresh interpreter. Only done while this
        process has a single thread (forking with threads could copy a held lock)."""
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid:
            self._forked = pid
            return
        code = 1
        try:
            os.close(lock_fd)  # the start lock belongs to the parent; a copy here would hold it forever
            os.setsid()
            _name_process(b"codeagent-daemon")
            devnull = os.open(os.devnull, os.O_RDWR)
            for fd in (0, 1, 2):  # a caller reading the parent's output must not wait for the daemon
                os.dup2(devnull, fd)
            os.chdir(self.state)
            if warm:  # the server boots while the daemon's modules load
                from ..semantic.processes import start_language_early

                start_language_early(self.settings, self.root, warm)
            settings = self.settings
            if isinstance(settings, SettingsSnapshot):  # it chose the server: serve only if still true
                settings = _verified(settings)
            from .server import run

            code = run(self.root, self.state, settings, [warm] if warm else [],
                       [warm_file] if warm and warm_file else [])
        except BaseException:
            with contextlib.suppress(Exception), open(self.state / "daemon.log", "a", encoding="utf-8") as fh:
                fh.write(traceback.format_exc())
        finally:
            os._exit(code)

    def _exited(self) -> bool:
        """Whether the daemon this client just started has already exited."""
        if self._proc is not None:
            return self._proc.poll() is not None
        if self._forked is not None:
            return not process_alive(self._forked)
        return False

    def _pid(self) -> int | None:
        try:
            return int((self.state / "pid").read_text(encoding="ascii").strip())
        except (OSError, ValueError):
            return None

    def _wait_gone(self, timeout: float = 15.0) -> None:
        """After a `restart` answer: wait until the outdated daemon has let go of the socket."""
        deadline = time.monotonic() + timeout
        while self.sock_path.exists() and time.monotonic() < deadline:
            time.sleep(0.02)


def _verified(snapshot: SettingsSnapshot) -> Settings:
    """In a daemon forked from a snapshot: the settings loaded now, or (they differ: StaleSnapshot)
    the server spawned from the snapshot killed before the daemon exits without serving."""
    try:
        return snapshot.verified()
    except BaseException:
        from lsp_bridge.processes import discard_all

        discard_all()
        raise


def process_alive(pid: int) -> bool:
    """Whether `pid` runs (a zombie counts as gone; one that is our child is reaped)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    with contextlib.suppress(ChildProcessError, OSError):
        done, _ = os.waitpid(pid, os.WNOHANG)
        if done == pid:
            return False
    try:  # another process's exited child (e.g. forked by a test process) stays a zombie for a while
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as fh:
            return fh.read().rsplit(")", 1)[-1].split()[0] != "Z"
    except OSError:
        return True


def _lock(fh: Any, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while True:
        try:
            fcntl.flock(fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
            return
        except BlockingIOError:
            if time.monotonic() > deadline:
                raise DaemonError("another process is starting the daemon and did not finish") from None
            time.sleep(0.05)


def _name_process(name: bytes) -> None:
    """What `ps -o comm`/top show for the forked daemon (its command line stays the CLI's)."""
    with contextlib.suppress(Exception):
        ctypes.CDLL(None).prctl(15, name[:15], 0, 0, 0)  # PR_SET_NAME
