"""The protocol client: one language-server process, spoken to through pygls' LanguageClient.

Everything here runs on the bridge's asyncio loop (`loop.LoopThread`, a daemon thread) so that the
synchronous facade in `session.py` can be called from any thread. What pygls leaves to us is done here:
the server is spawned in its own process group with PR_SET_PDEATHSIG (it dies with us), its stderr
is drained into a bounded tail (a chatty server would otherwise block on a full pipe), frames are
read with a size bound, requests the server sends are answered (`workspace/configuration`,
`client/registerCapability`, `window/workDoneProgress/create`, ...), and when the process exits or
breaks the protocol every pending request fails at once with ServerCrashed.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import logging
import os
import signal
import time
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Future
from pathlib import Path
from typing import Any

from lsprotocol import types as lsp
from pygls.exceptions import JsonRpcException
from pygls.lsp.client import LanguageClient

from lsp_bridge import convert, processes
from lsp_bridge.early_handshake import Handover, answered_early, early_settings_agree
from lsp_bridge.early_init import EARLY_ID
from lsp_bridge.errors import (
    ProtocolViolation,
    RequestFailed,
    RequestTimeout,
    ServerCrashed,
    ServerNotInstalled,
    ServerStartError,
)
from lsp_bridge.handlers import answered_plain, heard_plain, install_handlers
from lsp_bridge.positions import Encoding
from lsp_bridge.servers import server_env
from lsp_bridge.types import Diagnostic
from lsp_bridge.uris import path_to_uri

# pygls warns about notifications it has no handler for; without this, Python's last-resort handler
# would print them on the user's stderr. Applications that configure logging still see them.
logging.getLogger("pygls").addHandler(logging.NullHandler())

MAX_MESSAGE_BYTES = 256 * 1024 * 1024  # Django-sized reference lists are a few MiB; this is "broken"
STDERR_TAIL_LINES = 200
LOG_TAIL = 2000
CANCEL_GRACE = 2.0  # seconds a server gets to acknowledge $/cancelRequest before it counts as stuck
_ids = itertools.count(1)

SettingsLookup = Callable[[str | None], Any]



class BridgeClient(LanguageClient):
    """One server process and the protocol state the session needs (progress, logs, diagnostics)."""

    def __init__(self, *, label: str, settings: SettingsLookup, root: Path) -> None:
        super().__init__("codeagent-lsp-bridge", "0.1")
        self.label = label
        self.root = root
        self._settings = settings
        self.process: processes.ServerProcess | None = None
        self.encoding: Encoding = "utf-16"
        self.capabilities: lsp.ServerCapabilities | None = None
        # The params of an `initialize` written at the early spawn (early_init), whose answer
        # answer_early() awaits; None when nothing was sent before this client took the process.
        self.early_initialize: dict[str, Any] | None = None
        self._early_answer: Future[Any] | None = None
        # What the early reader did before this client took the process (early_handshake).
        self.early: Handover | None = None
        self._answered_early: set[int | str] = set()  # its answered requests, until read again
        self.stderr_tail: deque[str] = deque(maxlen=STDERR_TAIL_LINES)
        self.log: deque[str] = deque(maxlen=LOG_TAIL)
        self.progress_active: dict[str, str] = {}  # token -> title
        self.progress_heard: dict[str, float] = {}  # token -> when its last begin/report came
        self.progress_done: int = 0
        self.found_files: int | None = None  # pyright's "Found N source files"
        self.enumeration_due: float | None = None  # a re-enumeration is expected until then
        self.diagnostics: dict[str, list[lsp.Diagnostic]] = {}
        self.diagnostic_seq: dict[str, int] = {}
        self.diagnostic_version: dict[str, int | None] = {}
        self.registrations: dict[str, lsp.Registration] = {}
        self.failure: ServerCrashed | None = None
        self.changed = asyncio.Event()  # set (and replaced) on any state change waiters care about
        self._tasks: list[asyncio.Task[Any]] = []
        self._plain: set[str] = set()  # ids of requests whose result is handed over as parsed JSON
        install_handlers(self)

    def _notify_change(self) -> None:
        self.changed.set()
        self.changed = asyncio.Event()

    async def wait_change(self, timeout: float) -> None:
        """Wait until some protocol state changes (progress, log, diagnostics, exit) or `timeout`."""
        event = self.changed
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(event.wait(), timeout)

    async def published(self, path: Path, timeout: float) -> list[Diagnostic]:
        """What the server pushed for a file it was never sent (a tsconfig.json's option errors),
        waiting up to `timeout` for it to say anything (positions as sent: no text to map them)."""
        uri, deadline = path_to_uri(path), time.monotonic() + timeout
        while uri not in self.diagnostics and self.failure is None and time.monotonic() < deadline:
            await self.wait_change(max(min(deadline - time.monotonic(), 0.25), 0.01))
        return convert.diagnostics(path, self.diagnostics.get(uri, []), None, self.encoding)

    @classmethod
    async def launched(cls, command: Sequence[str], *, label: str, settings: SettingsLookup, root: Path,
                       env: Mapping[str, str], initialize: lsp.InitializeParams,
                       push_settings: bool = False) -> BridgeClient:
        """A client on a running server: the early-started process if there is one, kept only when
        the `initialize` written at its spawn is exactly `initialize` and the settings it was
        given early are `settings`' (else a fresh start)."""
        client = cls(label=label, settings=settings, root=root)
        await client.launch(command, cwd=root, env=env)
        if client.early_initialize is None or (
                client.early_initialize == client.protocol._converter.unstructure(initialize)
                and (client.early is None or early_settings_agree(client.early, settings, push_settings))):
            return client
        client.kill()  # it was sent other params: start again, nothing taken from it
        await client.close(timeout=2)
        client = cls(label=label, settings=settings, root=root)
        await client.launch(command, cwd=root, env=env)
        return client

    # -- process ---------------------------------------------------------------------------------
    async def launch(self, command: Sequence[str], *, cwd: Path, env: Mapping[str, str] | None) -> None:
        early = processes.take(command, cwd=cwd, env=env)
        if early is not None and early.handshake is not None:
            self.early = await asyncio.to_thread(early.handshake.handover)
            if self.early is None:  # its reader is stuck writing to it: not a server to use
                processes.kill(early.proc)
                early = None
            else:
                self._answered_early = set(self.early.answered)
        process: processes.ServerProcess
        try:
            if early is not None:
                process = await processes.adopt(early.proc, self.early.data if self.early is not None else b"")
            else:
                process = await asyncio.create_subprocess_exec(
                    *command, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
                    stderr=asyncio.subprocess.PIPE, cwd=str(cwd), env=server_env(env, root=cwd),
                    start_new_session=True, preexec_fn=processes.die_with_parent, limit=processes.STREAM_LIMIT,
                )
        except FileNotFoundError as exc:
            raise ServerNotInstalled(f"{self.label}: program not found: {command[0]}") from exc
        except OSError as exc:
            raise ServerStartError(f"{self.label}: cannot start {command[0]}: {exc}") from exc
        assert process.stdin is not None and process.stdout is not None and process.stderr is not None
        self.process = process
        self.protocol.set_writer(process.stdin)
        if early is not None and early.initialize is not None:  # its answer may be first in the pipe
            self.early_initialize = early.initialize
            self._early_answer = Future[Any]()
            self.protocol._request_futures[EARLY_ID] = self._early_answer
            self.protocol._result_types[EARLY_ID] = self.protocol.get_result_type(lsp.INITIALIZE)
        reader = asyncio.create_task(self._read_loop(process.stdout))
        self._tasks += [reader, asyncio.create_task(self._drain_stderr(process.stderr)),
                        asyncio.create_task(self._watch_exit(process, reader))]

    @property
    def early_initialized(self) -> bool:
        """`initialized` was written by the early reader (the session must not send it again)."""
        return self.early is not None and self.early.initialized

    @property
    def pull_diagnostics(self) -> bool:
        """The server wants diagnostics pulled (statically or through a dynamic registration)."""
        if self.capabilities is not None and self.capabilities.diagnostic_provider is not None:
            return True
        return any(reg.method == lsp.TEXT_DOCUMENT_DIAGNOSTIC for reg in self.registrations.values())

    @property
    def pid(self) -> int | None:
        return self.process.pid if self.process is not None else None

    @property
    def running(self) -> bool:
        return self.process is not None and self.process.returncode is None and self.failure is None

    async def _drain_stderr(self, stream: asyncio.StreamReader) -> None:
        with contextlib.suppress(Exception):
            while True:
                line = await stream.readline()
                if not line:
                    return
                self.stderr_tail.append(line.decode("utf-8", "replace").rstrip()[:1000])

    async def _read_loop(self, stream: asyncio.StreamReader) -> None:
        try:
            while True:
                length = await self._read_headers(stream)
                if length is None:
                    return
                body = await stream.readexactly(length)
                self._dispatch(body)
        except ProtocolViolation as exc:
            self._fail(exc)
            self.kill()
        except (asyncio.IncompleteReadError, ConnectionError):
            return  # the process is going away; _watch_exit reports it

    async def _read_headers(self, stream: asyncio.StreamReader) -> int | None:
        length: int | None = None
        while True:
            try:
                line = await stream.readline()
            except ValueError as exc:  # a line longer than the stream limit
                raise ProtocolViolation(f"{self.label}: garbage on stdout (an over-long line)") from exc
            if not line:
                return None
            if line.strip() == b"":
                if length is None:
                    continue
                return length
            name, sep, value = line.decode("ascii", "replace").partition(":")
            if not sep:
                self.stderr_tail.append(f"[stdout, not LSP] {line[:200]!r}")
                continue
            if name.strip().lower() == "content-length":
                try:
                    length = int(value.strip())
                except ValueError as exc:
                    raise ProtocolViolation(f"{self.label}: bad Content-Length {value.strip()!r}") from exc
                if length < 0 or length > MAX_MESSAGE_BYTES:
                    raise ProtocolViolation(f"{self.label}: message of {length} bytes exceeds the limit")

    def _dispatch(self, body: bytes) -> None:
        try:
            raw = json.loads(body)
        except ValueError as exc:
            raise ProtocolViolation(f"{self.label}: invalid JSON from the server: {body[:200]!r}") from exc
        if not isinstance(raw, dict):
            raise ProtocolViolation(f"{self.label}: a JSON-RPC message must be an object: {body[:200]!r}")
        if self._answered_early and answered_early(self._answered_early, raw):
            return  # read again from the early reader's bytes: it was answered then
        msg_id = raw.get("id")
        if type(msg_id) is str and msg_id in self._plain and "result" in raw and not {"method", "error"} & raw.keys():
            self._plain.discard(msg_id)  # the caller checks the result's shape (convert.plain_locations)
            self.protocol._result_types.pop(msg_id, None)
            future = self.protocol._request_futures.pop(msg_id, None)
            if future is not None and not future.done():
                future.set_result(raw["result"])
            return
        if heard_plain(self, raw) or answered_plain(self, raw):  # log, progress, progress/create: untyped
            return
        try:  # pygls types the top-level message only (inner objects are typed from it): parse once
            message = self.protocol.structure_message(raw)
        except (JsonRpcException, Exception) as exc:
            # A well-formed frame pygls cannot type: fail just the request it answers, if any.
            msg_id = raw.get("id")
            future = (self.protocol._request_futures.pop(msg_id, None)
                      if isinstance(msg_id, str | int) and "method" not in raw else None)
            if future is not None and not future.done():
                future.set_exception(RequestFailed(f"{self.label}: undecodable answer: {exc}"))
            self.stderr_tail.append(f"[undecodable message] {body[:200]!r}")
            return
        try:
            self.protocol.handle_message(message)
        except Exception as exc:  # a handler bug must not stop the reader
            self.stderr_tail.append(f"[handler error] {type(exc).__name__}: {exc}")

    async def _watch_exit(self, process: processes.ServerProcess, reader: asyncio.Task[None]) -> None:
        code = await process.wait()
        with contextlib.suppress(Exception):  # let answers already on the pipe arrive
            await asyncio.wait_for(asyncio.shield(reader), 2)
        if self.failure is None:
            self._fail(ServerCrashed(f"{self.label}: server process {process.pid} exited with code {code}"
                                     + self.stderr_summary()))
        self._stop_event.set()
        self._notify_change()

    def stderr_summary(self, lines: int = 15) -> str:
        tail = list(self.stderr_tail)[-lines:]
        return ("\nserver stderr (last lines):\n  " + "\n  ".join(tail)) if tail else ""

    def _fail(self, exc: ServerCrashed) -> None:
        """Fail every pending request at once with `exc` (the process is gone or broken)."""
        if self.failure is None:
            self.failure = exc
        for msg_id, future in list(self.protocol._request_futures.items()):
            self.protocol._request_futures.pop(msg_id, None)
            if not future.done():
                future.set_exception(exc)
        self._notify_change()

    def kill(self) -> None:
        """SIGKILL the server's whole process group (it may have children of its own)."""
        if self.process is None:
            return
        # The group outlives its leader when the server forked helpers (tsserver under
        # typescript-language-server), so it is killed even after the leader exited.
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.process.pid, signal.SIGKILL)
        if self.process.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                self.process.kill()

    # -- requests --------------------------------------------------------------------------------
    async def request(self, method: str, params: Any, timeout: float,
                      on_sent: Callable[[], object] | None = None, *, plain: bool = False) -> Any:
        """Send a request and await its result, translating every failure into a bridge error.
        On timeout the request is cancelled ($/cancelRequest) and RequestTimeout raised.
        `on_sent` runs (on the loop thread; keep it short) once the request is written. With
        `plain`, a result is the parsed JSON, not protocol types: the caller checks its shape."""
        if self.failure is not None:
            raise self.failure
        msg_id = f"lb-{next(_ids)}"
        future = self.protocol.send_request(method, params, msg_id=msg_id)
        if plain:  # before any await: no answer can be read in between
            self._plain.add(msg_id)
        if on_sent is not None:
            on_sent()
        try:
            return await self._answer(method, msg_id, future, timeout)
        finally:
            self._plain.discard(msg_id)

    async def answer_early(self, timeout: float) -> Any:
        """The answer to the `initialize` written at the early spawn (see early_initialize)."""
        future = self._early_answer
        assert future is not None, "no early initialize was sent"
        self._early_answer = None
        if self.failure is not None:
            raise self.failure
        return await self._answer(lsp.INITIALIZE, EARLY_ID, future, timeout)

    async def _answer(self, method: str, msg_id: str, future: Future[Any], timeout: float) -> Any:
        answer = asyncio.wrap_future(future)
        try:
            return await asyncio.wait_for(asyncio.shield(answer), timeout)
        except TimeoutError:
            self.notify(lsp.CANCEL_REQUEST, lsp.CancelParams(id=msg_id))
            # A server that acknowledges the cancel is alive (just slow on this request); one that
            # stays silent is stuck and the session kills it.
            with contextlib.suppress(Exception):
                await asyncio.wait_for(asyncio.shield(answer), CANCEL_GRACE)
            stuck = not answer.done()
            self.protocol._request_futures.pop(msg_id, None)
            answer.cancel()
            raise RequestTimeout(f"{self.label}: no answer to {method} within {timeout:g} s",
                                 stuck=stuck) from None
        except JsonRpcException as exc:
            raise RequestFailed(f"{self.label}: {method} failed: {exc.message}", code=exc.code) from exc
        except ServerCrashed:
            raise
        except RuntimeError as exc:
            raise ServerCrashed(f"{self.label}: {exc}{self.stderr_summary()}") from exc

    def notify(self, method: str, params: Any) -> None:
        if self.failure is not None:
            raise self.failure
        try:
            self.protocol.notify(method, params)
        except (BrokenPipeError, ConnectionError) as exc:
            raise ServerCrashed(f"{self.label}: cannot write to the server: {exc}") from exc

    async def close(self, timeout: float = 5.0) -> None:
        """shutdown + exit, then wait for the process; kill it if it lingers. Never raises."""
        if self.running:
            with contextlib.suppress(Exception):
                await self.request(lsp.SHUTDOWN, None, timeout)
                self.notify(lsp.EXIT, None)
        if self.process is not None and self.process.returncode is None:
            try:
                await asyncio.wait_for(self.process.wait(), timeout)
            except TimeoutError:
                self.kill()
                with contextlib.suppress(asyncio.TimeoutError):
                    await asyncio.wait_for(self.process.wait(), timeout)
        self.kill()  # stray children left in the group
        self._stop_event.set()
        for task in self._tasks:
            task.cancel()
        with contextlib.suppress(Exception):
            await asyncio.gather(*self._tasks, return_exceptions=True)
