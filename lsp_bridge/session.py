"""One language server for one workspace root: start, readiness, document sync, restart, stop.

`LspSession` is the synchronous, thread-safe facade; the work runs on the bridge's event loop. Every
request first tells the server about changes on disk (a stat snapshot of the workspace's source files,
plus the precise `files_changed` callers send), opens/updates the files it touches, waits until the
server is ready (so no partial answer is passed on), and converts the answer to code-point positions.
A crashed server is restarted and the request retried once; a request that times out is cancelled,
the server killed (restarted on next use) and RequestTimeout raised."""

from __future__ import annotations

import asyncio
import contextlib
import os
import threading
import time
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, TypeVar

from lsprotocol import types as lsp

from lsp_bridge import convert
from lsp_bridge.client import BridgeClient
from lsp_bridge.documents import SKIP_DIRS, OpenDoc
from lsp_bridge.early_init import CLIENT_NAME, CLIENT_VERSION
from lsp_bridge.edits import workspace_edit_to_file_edits
from lsp_bridge.errors import (
    BridgeError,
    NotReady,
    RenameRefused,
    RequestFailed,
    RequestTimeout,
    ServerCrashed,
    ServerStartError,
    StaleFile,
)
from lsp_bridge.exchanges import pushed_diagnostics, rename_range
from lsp_bridge.loop import LoopThread, shared_loop
from lsp_bridge.memory import tree_rss
from lsp_bridge.positions import Decode, normalize_text
from lsp_bridge.readiness import describe, is_ready, session_settings
from lsp_bridge.servers import ServerSpec, resolve_command
from lsp_bridge.sync import DocumentSync
from lsp_bridge.types import Diagnostic, FileEdits, FileLocation, Position, Range
from lsp_bridge.uris import path_to_uri
from lsp_bridge.wire import client_capabilities

T = TypeVar("T")


class LspSession:
    """A lazily started language server for `root`. Paths may be absolute or relative to `root`;
    positions are 0-based lines and code-point columns of the text `decode` makes of a file's bytes."""

    def __init__(self, root: Path, spec: ServerSpec, *, loop: LoopThread | None = None,
                 command: Sequence[str] | None = None, cache_dir: Path | None = None,
                 auto_install: bool = True, settings: Mapping[str, Any] | None = None,
                 env: Mapping[str, str] | None = None, request_timeout: float = 60.0,
                 ready_timeout: float = 300.0, start_timeout: float = 60.0, max_files: int = 50_000,
                 watch_files: bool = True, skip_dirs: frozenset[str] = SKIP_DIRS,
                 decode: Decode = normalize_text) -> None:
        self.root = Path(root).resolve()
        self.spec = spec
        self.request_timeout = request_timeout
        self.ready_timeout = ready_timeout
        self.start_timeout = start_timeout
        self.restarts = 0
        self.started_at: float | None = None
        self.ready_after: float | None = None  # seconds from start to ready, once measured
        self._loop = loop or shared_loop()
        self._command = list(command) if command is not None else None
        self._cache_dir = cache_dir
        self._auto_install = auto_install
        self._settings = session_settings(spec, self.root, settings)
        self._env = env
        self._client: BridgeClient | None = None
        self._files = DocumentSync(self.root, spec, max_files=max_files, watch=watch_files, skip_dirs=skip_dirs,
                                   decode=decode)
        self._start_lock: asyncio.Lock | None = None
        self._starts = 0
        self.last_used = time.monotonic()  # when the latest call began or ended (callers stop idle servers)
        self._busy = 0  # calls under way (on any thread)
        self._busy_lock = threading.Lock()

    # -- public, synchronous ------------------------------------------------------------------------
    @property
    def pid(self) -> int | None:
        """The server's process id (None while not running)."""
        client = self._client
        return client.pid if client is not None and client.running else None

    @property
    def busy(self) -> bool:
        """A call (a request, a wait for readiness) is under way."""
        return self._busy > 0

    def memory(self) -> int | None:
        """Resident bytes of the server and its child processes (None while not running, or off Linux)."""
        pid = self.pid
        return tree_rss(pid) if pid is not None else None

    @property
    def hidden_files(self) -> int:
        """Files the project's pyright config hides from the server (opened to keep them in scope)."""
        return self._files.hidden_files

    @property
    def encoding(self) -> str:
        return self._client.encoding if self._client is not None else "utf-16"

    def ready(self, timeout: float) -> bool:
        """Start the server if needed and wait up to `timeout` s until it has indexed the workspace."""
        async def run() -> bool:
            client = await self._ensure_client()
            await self._files.refresh(client)
            if not self._files.open_docs and self.spec.readiness in ("tsserver", "typescript-native"):
                # TypeScript servers load a project only once one of its files is open.
                first = next(iter(self._files.known_files), None)
                if first is not None:
                    await self._files.sync(client, first)
            return await self._wait_ready(client, timeout)
        return self._used(lambda: self._run(run(), timeout + self.start_timeout + 30))

    def sync(self, path: Path) -> None:
        """Tell the server the file's current disk content (didOpen / didChange as needed)."""
        self._call(lambda client: self._files.sync(client, self._abs(path)))

    def files_changed(self, paths: Iterable[Path]) -> None:
        """Files were created, changed or deleted on disk: tell the server (didChangeWatchedFiles) and
        re-sync open documents. Cheap when the server is not running (it reads the disk at start)."""
        targets = [self._abs(p) for p in paths]
        if self._client is None or not self._client.running:
            return
        self._run(self._files.files_changed(self._client, targets), self.request_timeout + 10)

    def definition(self, path: Path, pos: Position) -> list[FileLocation]:
        return self._locations(lsp.TEXT_DOCUMENT_DEFINITION, path, pos, lsp.DefinitionParams)

    def implementation(self, path: Path, pos: Position) -> list[FileLocation]:
        return self._locations(lsp.TEXT_DOCUMENT_IMPLEMENTATION, path, pos, lsp.ImplementationParams)

    def type_definition(self, path: Path, pos: Position) -> list[FileLocation]:
        """Where the type of the expression at `pos` is defined."""
        return self._locations(lsp.TEXT_DOCUMENT_TYPE_DEFINITION, path, pos, lsp.TypeDefinitionParams)

    def references(self, path: Path, pos: Position, include_declaration: bool = True, *,
                   on_sent: Callable[[], object] | None = None) -> list[FileLocation]:
        """References to the symbol at `pos`. `on_sent` is called (on the bridge's thread; it must
        be quick) once the request is on its way: work started there runs while the server
        answers without delaying the request itself."""
        target = self._abs(path)

        async def op(client: BridgeClient) -> list[FileLocation]:
            doc = await self._prepare(client, target, pos)
            params = lsp.ReferenceParams(
                text_document=lsp.TextDocumentIdentifier(uri=path_to_uri(target)),
                position=doc.lines.to_server(pos, client.encoding),
                context=lsp.ReferenceContext(include_declaration=include_declaration))
            result = await client.request(lsp.TEXT_DOCUMENT_REFERENCES, params, self.request_timeout,
                                          on_sent=on_sent, plain=True)
            return convert.plain_locations(result, self._files.answer_lines(), client.encoding)
        return self._call(op)

    def prepare_rename(self, path: Path, pos: Position) -> Range:
        """The range of the symbol a rename at `pos` would change. Raises RenameRefused with the
        server's reason when the symbol cannot be renamed."""
        target = self._abs(path)

        async def op(client: BridgeClient) -> Range:
            doc = await self._prepare(client, target, pos)
            return await rename_range(client, doc, pos, server=self.spec.name, timeout=self.request_timeout)
        return self._call(op)

    def rename(self, path: Path, pos: Position, new_name: str) -> list[FileEdits]:
        """The validated edits a rename to `new_name` needs (nothing is written). Raises
        RenameRefused, InvalidEdit or StaleFile."""
        target = self._abs(path)

        async def op(client: BridgeClient) -> list[FileEdits]:
            doc = await self._prepare(client, target, pos)
            await rename_range(client, doc, pos, server=self.spec.name, timeout=self.request_timeout)
            params = lsp.RenameParams(text_document=lsp.TextDocumentIdentifier(uri=path_to_uri(target)),
                                      position=doc.lines.to_server(pos, client.encoding), new_name=new_name)
            try:
                result = await client.request(lsp.TEXT_DOCUMENT_RENAME, params, self.request_timeout)
            except RequestFailed as exc:
                raise RenameRefused(str(exc)) from exc
            if result is None:
                raise RenameRefused(f"{self.spec.name} returned no edit for a rename at {target}:{pos.shown()}")
            return workspace_edit_to_file_edits(result, read=self._files.seen, encoding=client.encoding)
        return self._call(op)

    def diagnostics(self, path: Path) -> list[Diagnostic]:
        """Errors and warnings for one file, computed on its current disk content."""
        target = self._abs(path)
        if self.spec.language_id(target) is None:  # a config file (tsconfig.json): what the server pushed
            return self._call(lambda client: client.published(target, min(self.request_timeout, 10.0)))
        async def op(client: BridgeClient) -> list[Diagnostic]:
            doc = await self._prepare(client, target)
            uri = path_to_uri(target)
            if client.pull_diagnostics:
                params = lsp.DocumentDiagnosticParams(text_document=lsp.TextDocumentIdentifier(uri=uri))
                report = await client.request(lsp.TEXT_DOCUMENT_DIAGNOSTIC, params, self.request_timeout)
                items = list(getattr(report, "items", None) or [])
            else:
                items = await pushed_diagnostics(client, doc, server=self.spec.name,
                                                 in_parts=self.spec.diagnostics_in_parts,
                                                 timeout=self.request_timeout)
            return convert.diagnostics(target, items, doc.lines, client.encoding)
        return self._call(op)

    def stop(self) -> None:
        """shutdown + exit the server (killed if it does not comply). The session restarts on next use."""
        if self._client is None:
            return
        with contextlib.suppress(BridgeError, TimeoutError):
            self._run(self._stop(), 30)

    def _abs(self, path: Path) -> Path:
        path = Path(path)
        return path if path.is_absolute() else self.root / path

    def _run(self, coro: Awaitable[T], timeout: float) -> T:
        try:
            return self._loop.run(coro, timeout)  # type: ignore[arg-type]
        except TimeoutError as exc:
            raise RequestTimeout(f"{self.spec.name}: gave up after {timeout:g} s") from exc

    def _call(self, op: Callable[[BridgeClient], Awaitable[T]]) -> T:
        budget = self.ready_timeout + 2 * (self.start_timeout + self.request_timeout) + 60
        return self._used(lambda: self._run(self._attempt(op), budget))

    def _used(self, call: Callable[[], T]) -> T:
        with self._busy_lock:
            self._busy += 1
            self.last_used = time.monotonic()
        try:
            return call()
        finally:
            with self._busy_lock:
                self._busy -= 1
                self.last_used = time.monotonic()

    async def _attempt(self, op: Callable[[BridgeClient], Awaitable[T]]) -> T:
        for attempt in range(2):
            client = await self._ensure_client()
            # The disk scan runs alongside the request (~25 ms for 3,000 files; none when the watch
            # shows nothing changed); what it finds is announced and the request repeated.
            scan = None if self._files.quiet() else asyncio.create_task(self._files.scan())
            try:
                result = await op(client)
            except StaleFile:
                await self._settle_scan(client, scan)
                if attempt:
                    raise
                await self._files.refresh(client)  # the server hears of the change before the retry
                continue
            except ServerCrashed:
                await self._settle_scan(client, scan)
                await self._discard(client)
                if attempt:
                    raise
                continue
            except RequestTimeout as exc:
                await self._settle_scan(client, scan)
                if exc.stuck:
                    await self._discard(client)  # a server stuck on one request is stuck for all
                raise
            except BaseException:
                await self._settle_scan(client, scan)
                raise
            if await self._settle_scan(client, scan):
                result = await op(client)
            return result
        raise AssertionError("unreachable")

    async def _settle_scan(self, client: BridgeClient, scan: asyncio.Task[dict[Path, Any]] | None) -> bool:
        try:  # (None: nothing changed, DocumentSync.quiet)
            found = await scan if scan is not None else {}
        except Exception:
            return False
        if client.failure is not None:
            self._files.forget_scan(found)
            return False
        return await self._files.apply_scan(client, found)

    def _lock(self) -> asyncio.Lock:
        if self._start_lock is None:
            self._start_lock = asyncio.Lock()
        return self._start_lock

    async def _ensure_client(self) -> BridgeClient:
        async with self._lock():
            if self._client is not None and self._client.running:
                return self._client
            if self._client is not None:
                await self._discard(self._client)
            if self._starts:
                self.restarts += 1
            self._starts += 1
            self._client = await self._start()
            return self._client

    async def _start(self) -> BridgeClient:
        folder = None
        if self._command is not None:
            command = self._command
        else:
            command, folder = await asyncio.to_thread(
                resolve_command, self.spec, cache_dir=self._cache_dir, auto_install=self._auto_install)
        env = {**os.environ, **(self._env or {})}
        options = self.spec.initialization_options(folder) if self.spec.initialization_options and folder else None
        params = lsp.InitializeParams(
            process_id=os.getpid(), root_uri=path_to_uri(self.root), root_path=str(self.root),
            workspace_folders=[lsp.WorkspaceFolder(uri=path_to_uri(self.root), name=self.root.name)],
            capabilities=client_capabilities(), initialization_options=options,
            client_info=lsp.ClientInfo(name=CLIENT_NAME, version=CLIENT_VERSION))
        self.started_at, self.ready_after = time.monotonic(), None
        client = await BridgeClient.launched(command, label=self.spec.name, settings=self._settings,
                                             root=self.root, env=env, initialize=params,
                                             push_settings=self.spec.push_settings)
        # The walk of the disk runs while the server initializes, not after (a cold start is shorter
        # by it). The server reads the disk only after `initialized`, and a change made after the
        # walk is caught by the next scan: nothing is missed that the later walk would have seen.
        snapshot = asyncio.create_task(self._files.snapshot())
        try:
            result: lsp.InitializeResult = (
                await client.answer_early(self.start_timeout) if client.early_initialize is not None
                else await client.request(lsp.INITIALIZE, params, self.start_timeout))
            client.capabilities = result.capabilities
            encoding = result.capabilities.position_encoding
            client.encoding = "utf-8" if encoding == lsp.PositionEncodingKind.Utf8 else (
                "utf-32" if encoding == lsp.PositionEncodingKind.Utf32 else "utf-16")
            if not client.early_initialized:  # else written when the answer came (early_handshake)
                client.notify(lsp.INITIALIZED, lsp.InitializedParams())
                if self.spec.push_settings:
                    client.notify(lsp.WORKSPACE_DID_CHANGE_CONFIGURATION,
                                  lsp.DidChangeConfigurationParams(settings=self._settings(None)))
        except BridgeError as exc:
            await asyncio.gather(snapshot, return_exceptions=True)  # the next start walks again
            await client.close(timeout=1)
            raise ServerStartError(f"{self.spec.name} did not initialize: {exc}{client.stderr_summary()}") from exc
        except BaseException:
            await asyncio.gather(snapshot, return_exceptions=True)
            raise
        await snapshot
        await self._files.started(client)
        return client

    async def _discard(self, client: BridgeClient) -> None:
        client.kill()
        await client.close(timeout=2)
        if self._client is client:
            self._client = None

    async def _stop(self) -> None:
        async with self._lock():
            client, self._client = self._client, None
            if client is not None:
                await client.close(timeout=5)
            self._files.close()

    async def _wait_ready(self, client: BridgeClient, timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        while True:
            if client.failure is not None:
                raise client.failure
            if is_ready(self.spec.readiness, client, opened=bool(self._files.open_docs)):
                if self.ready_after is None and self.started_at is not None:
                    self.ready_after = time.monotonic() - self.started_at
                return True
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return False
            await client.wait_change(min(remaining, 0.25))

    async def _prepare(self, client: BridgeClient, path: Path, pos: Position | None = None) -> OpenDoc:
        """Sync `path`, then wait for readiness: the document the request is about is open, and the
        server has seen the whole workspace."""
        doc = await self._files.sync(client, path)
        if pos is not None and (pos.line < 0 or pos.character < 0 or pos.line >= len(doc.lines.lines)
                                or pos.character > len(doc.lines.line(pos.line))):
            raise BridgeError(f"{path}:{pos.shown()}: the position is outside the file "
                              f"({len(doc.lines.lines)} lines)")
        if not await self._wait_ready(client, self.ready_timeout):
            raise NotReady(f"{self.spec.name} was still indexing {self.root} after {self.ready_timeout:g} s "
                           f"(its answers would be partial); {describe(self.spec.readiness, client)}")
        return doc

    def _locations(self, method: str, path: Path, pos: Position, params_type: Any) -> list[FileLocation]:
        target = self._abs(path)

        async def op(client: BridgeClient) -> list[FileLocation]:
            doc = await self._prepare(client, target, pos)
            params = params_type(text_document=lsp.TextDocumentIdentifier(uri=path_to_uri(target)),
                                 position=doc.lines.to_server(pos, client.encoding))
            result = await client.request(method, params, self.request_timeout)
            return convert.locations(result, self._files.answer_lines(), client.encoding)
        return self._call(op)
