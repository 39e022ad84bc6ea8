"""Starting a language server before the rest of the bridge is even imported.

A one-shot command (`codeagent rename` with no daemon, or a daemon just forked) spends about half
a second importing the protocol layer before it can launch a server, and the server then needs
about as long to boot (node start, initialize). `start_early` spawns the server exactly as the
session would — same command, folder and environment, own process group, killed when we die — with
nothing but the standard library, so both happen at once on different cores. The session's next
launch of that command in that folder adopts the running process (`take` + `adopt`) instead of
spawning another. A process nobody adopts is killed at exit (and dies with us in any case).
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import ctypes
import functools
import os
import signal
import subprocess
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol

from lsp_bridge.early_init import frame
from lsp_bridge.servers import server_env

if TYPE_CHECKING:
    from lsp_bridge.early_handshake import EarlyHandshake, Lookup

MAX_AGE = 300.0  # seconds an unadopted early server is kept for a session to take
STREAM_LIMIT = 1024 * 1024  # the asyncio reader's line limit (headers; bodies are read exactly)

_libc_prctl: Any = None
try:  # resolved once, in the parent: the child only calls it (no imports, no locks after fork).
    # The process's own symbols (libc is loaded): ctypes.util.find_library would run `ldconfig -p`.
    _libc_prctl = ctypes.CDLL(None, use_errno=True).prctl
except (OSError, AttributeError):  # not Linux
    _libc_prctl = None
_PR_SET_PDEATHSIG = 1


def die_with_parent() -> None:
    """preexec_fn: the kernel sends SIGKILL to the server when the thread that spawned it exits."""
    if _libc_prctl is not None:
        _libc_prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)


Key = tuple[tuple[str, ...], str]


class Early(NamedTuple):
    proc: subprocess.Popen[bytes]
    env: dict[str, str]
    started: float
    initialize: dict[str, Any] | None  # the params of the `initialize` already written (early_init)
    handshake: EarlyHandshake | None = None  # reads its output until adopted (early_handshake)


_early: dict[Key, Early] = {}


def start_early(command: Sequence[str], *, cwd: Path, env: Mapping[str, str] | None = None,
                initialize: dict[str, Any] | None = None, settings: Callable[[], Lookup] | None = None,
                push_settings: bool = False) -> bool:
    """Spawn `command` in `cwd` now, for a session to adopt later, and write it the `initialize`
    request with `initialize` as params, if given (early_init.initialize_params); then `initialized`
    once it answers, and the answers to its configuration requests of the lookup `settings()`
    makes (called after the spawn: readiness.session_settings; `push_settings`: the spec's).
    False (nothing started) when the program cannot be started here; the session will then
    report that itself."""
    key = (tuple(command), str(cwd))
    if key in _early and _early[key].proc.poll() is None:
        return True
    full_env = server_env(env, root=cwd)
    try:
        proc = subprocess.Popen(list(command), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, cwd=str(cwd), env=full_env, bufsize=0,
                                start_new_session=True, preexec_fn=die_with_parent)
    except OSError:
        return False
    handshake = None
    if initialize is not None:
        assert proc.stdin is not None and proc.stdout is not None
        try:  # a few KB into an empty pipe: never blocks
            proc.stdin.write(frame(initialize))
        except OSError:  # it died at once: the session's own start reports why
            kill(proc)
            return False
        from lsp_bridge.early_handshake import EarlyHandshake  # after the spawn: off the server's path

        handshake = EarlyHandshake(proc.stdout, proc.stdin, settings() if settings is not None else None,
                                   push=push_settings)
    if not _early:
        atexit.register(discard_all)
    _early[key] = Early(proc, full_env, time.monotonic(), initialize, handshake)
    return True


def take(command: Sequence[str], *, cwd: Path, env: Mapping[str, str] | None) -> Early | None:
    """The early process for exactly this command, folder and environment, if it is still running
    (it is then the caller's). Anything else started early for the same key is killed."""
    entry = _early.pop((tuple(command), str(cwd)), None)
    if entry is None:
        return None
    wanted = server_env(env, root=cwd)
    if entry.proc.poll() is not None or entry.env != wanted or time.monotonic() - entry.started > MAX_AGE:
        kill(entry.proc)
        return None
    return entry


def discard_all() -> None:
    """Kill every early process nobody adopted."""
    while _early:
        _key, entry = _early.popitem()
        kill(entry.proc)


def kill(proc: subprocess.Popen[bytes]) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)
    with contextlib.suppress(OSError, subprocess.TimeoutExpired):
        proc.kill()
        proc.wait(timeout=5)
    for pipe in (proc.stdin, proc.stdout, proc.stderr):
        if pipe is not None:
            with contextlib.suppress(OSError):
                pipe.close()


class ServerProcess(Protocol):
    """What the client needs of a server process: asyncio's Process, or an adopted early one."""

    @property
    def pid(self) -> int: ...

    @property
    def returncode(self) -> int | None: ...

    @property
    def stdin(self) -> asyncio.StreamWriter | None: ...

    @property
    def stdout(self) -> asyncio.StreamReader | None: ...

    @property
    def stderr(self) -> asyncio.StreamReader | None: ...

    async def wait(self) -> int: ...

    def kill(self) -> None: ...


class AdoptedProcess:
    """An early-started `Popen` seen through the asyncio subprocess interface the client uses
    (pid, returncode, stdin/stdout/stderr streams, wait, kill)."""

    def __init__(self, proc: subprocess.Popen[bytes], stdin: asyncio.StreamWriter,
                 stdout: asyncio.StreamReader, stderr: asyncio.StreamReader) -> None:
        self._proc = proc
        self.pid = proc.pid
        self.stdin = stdin
        self.stdout = stdout
        self.stderr = stderr
        self._exited = asyncio.Event()
        self._watch()

    @property
    def returncode(self) -> int | None:
        return self._proc.poll()

    def kill(self) -> None:
        self._proc.kill()

    async def wait(self) -> int:
        while True:
            code = self._proc.poll()
            if code is not None:
                return code
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._exited.wait(), 0.5)  # the poll bounds a missed wakeup

    def _watch(self) -> None:
        """Wake `wait` when the process exits: a pidfd where the kernel has them (Linux >= 5.3)."""
        opener = getattr(os, "pidfd_open", None)
        if opener is None:
            return
        try:
            fd = opener(self.pid)
        except OSError:
            return
        loop = asyncio.get_running_loop()

        def exited() -> None:
            loop.remove_reader(fd)
            os.close(fd)
            self._exited.set()
        loop.add_reader(fd, exited)


async def adopt(proc: subprocess.Popen[bytes], read: bytes = b"") -> AdoptedProcess:
    """Wire an early process's pipes into the running event loop; `read` is what was read from
    its stdout already (early_handshake), which the client reads first."""
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    loop = asyncio.get_running_loop()
    readers = []
    for pipe in (proc.stdout, proc.stderr):
        reader = asyncio.StreamReader(limit=STREAM_LIMIT, loop=loop)
        if pipe is proc.stdout and read:
            reader.feed_data(read)
        await loop.connect_read_pipe(functools.partial(asyncio.StreamReaderProtocol, reader, loop=loop), pipe)
        readers.append(reader)
    transport, protocol = await loop.connect_write_pipe(
        lambda: asyncio.StreamReaderProtocol(asyncio.StreamReader(loop=loop), loop=loop), proc.stdin)
    writer = asyncio.StreamWriter(transport, protocol, None, loop)
    return AdoptedProcess(proc, writer, readers[0], readers[1])
