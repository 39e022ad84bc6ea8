"""Keeping a server's view of the workspace's files equal to the disk.

Before each request the files it touches are opened or updated (didOpen/didChange with versions,
compared by content hash), files changed on disk since the server last saw them are announced
(didChangeWatchedFiles; found by a stat snapshot of the workspace's source files), and after the
answer every file it mentions is checked to be unchanged (StaleFile otherwise).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections import OrderedDict
from pathlib import Path
from typing import Any

from lsprotocol import types as lsp

from lsp_bridge.client import BridgeClient
from lsp_bridge.convert import LinesOf
from lsp_bridge.documents import SKIP_DIRS, DocumentStore, OpenDoc, Stat, read_file, stat_of
from lsp_bridge.edits import SeenDoc
from lsp_bridge.errors import BridgeError, StaleFile
from lsp_bridge.positions import Decode, TextLines, normalize_text
from lsp_bridge.pyright_scope import hidden_by_config
from lsp_bridge.readiness import expect_enumeration
from lsp_bridge.servers import ServerSpec
from lsp_bridge.uris import path_to_uri

RACY_NS = 2_000_000_000  # a file written this recently may change again within one mtime tick
MAX_HIDDEN_OPEN = 2000  # files hidden by a pyright config that are opened to keep them in scope
MAX_FILE_BYTES = 16 * 1024 * 1024  # larger files are not sent to a server
LINES_CACHE = 1000  # files whose split text is kept for converting answers' columns


class DocumentSync:
    """One server's documents: what it has been sent, and the disk snapshot it is compared with."""

    def __init__(self, root: Path, spec: ServerSpec, *, max_files: int, watch: bool = True,
                 skip_dirs: frozenset[str] = SKIP_DIRS, decode: Decode = normalize_text) -> None:
        self.root = root
        self.skip_dirs = skip_dirs
        self.decode = decode
        self.spec = spec
        self.max_files = max_files
        self.watch = watch
        self._docs = DocumentStore(watch=watch, skip_dirs=skip_dirs)
        self._lines: OrderedDict[Path, tuple[Stat, TextLines]] = OrderedDict()
        self.hidden_files = 0
        self.vouched_files = 0  # answered files taken on the watch's word, without a stat (answer_lines)

    @property
    def open_docs(self) -> dict[Path, OpenDoc]:
        return self._docs.open

    @property
    def known_files(self) -> list[Path]:
        return sorted(self._docs.snapshot)

    async def reset(self, client: BridgeClient) -> None:
        """A fresh server knows nothing: snapshot the disk, open what a pyright config would hide."""
        await self.snapshot()
        await self.started(client)

    async def snapshot(self) -> None:
        """Forget the last server's documents and record the disk (walk, stat, folder watches).
        Needs no server: LspSession runs it while a new server initializes."""
        self._docs.close()
        self._docs = DocumentStore(watch=self.watch, skip_dirs=self.skip_dirs)
        await asyncio.to_thread(self._docs.take_snapshot, self.root, self.spec.language_ids, self.max_files)

    async def started(self, client: BridgeClient) -> None:
        """The new server is initialized (and the snapshot taken): open what a pyright config hides."""
        if self.spec.readiness == "pyright":
            await self.open_hidden(client)

    async def scan(self) -> dict[Path, Any]:
        return await asyncio.to_thread(self._docs.scan)

    def quiet(self) -> bool:
        """The scan's answer is known without running it: nothing changed (see DocumentStore.quiet).
        A request then needs no scan thread (it would contend for the GIL right when the server's
        first message, e.g. pyright's workDoneProgress/create, is to be answered)."""
        return self._docs.quiet()

    def answer_lines(self) -> LinesOf:
        """`lines_checked` for the files of one answer, called once the answer is in: while the
        watch vouches (DocumentStore.vouches: nothing changed since a quiet start, no event
        queued now), a known file in a watched folder is not stat'ed again (Home Assistant's
        answers name ~150 files); any other file is."""
        if not self._docs.vouches():
            return self.lines_checked
        trusted = self._docs.trusted

        def lines_of(path: Path) -> TextLines | None:
            vouched = trusted(path)
            self.vouched_files += vouched
            return self.lines_checked(path, vouched=vouched)
        return lines_of

    def forget_scan(self, found: dict[Path, Any]) -> None:
        """Record a scan without telling the (dead) server: its successor reads the disk afresh."""
        self._docs.apply_scan(found)

    async def open_hidden(self, client: BridgeClient) -> None:
        """Open the files the project's pyright config hides, so references and rename see them."""
        hidden = await asyncio.to_thread(hidden_by_config, self.root, sorted(self._docs.snapshot))
        self.hidden_files = len(hidden)
        for path in hidden[:MAX_HIDDEN_OPEN]:
            self._docs.pinned.add(path)
            with contextlib.suppress(BridgeError):
                await self.sync(client, path)

    async def sync(self, client: BridgeClient, path: Path) -> OpenDoc:
        st = stat_of(path)
        if st is not None and st[1] > MAX_FILE_BYTES:
            raise BridgeError(f"{path} is too large for the language server ({st[1]} bytes)")
        open_doc = self._docs.open.get(path)
        if open_doc is not None and st == open_doc.stat and time.time_ns() - st[0] > RACY_NS:
            self._docs.touch(path)  # unchanged since it was sent (and not too recent to tell by stat)
            return open_doc
        disk = await asyncio.to_thread(read_file, path, self.decode)
        if disk is None:
            raise BridgeError(f"not a readable file: {path}")
        language_id = self.spec.language_id(path)
        if language_id is None:
            raise BridgeError(f"{self.spec.name} does not handle {path.suffix or 'suffix-less'} files: {path}")
        uri = path_to_uri(path)
        doc = self._docs.open.get(path)
        if doc is None:
            doc = OpenDoc(path, language_id, 1, disk.hash, disk.lines, disk.stat,
                          diag_seq=client.diagnostic_seq.get(uri, 0))
            client.notify(lsp.TEXT_DOCUMENT_DID_OPEN, lsp.DidOpenTextDocumentParams(text_document=lsp.TextDocumentItem(
                uri=uri, language_id=language_id, version=1, text=disk.lines.text)))
            self._docs.open[path] = doc
        elif doc.hash != disk.hash:
            doc.version += 1
            doc.hash, doc.lines, doc.stat = disk.hash, disk.lines, disk.stat
            doc.diag_seq = client.diagnostic_seq.get(uri, 0)
            client.notify(lsp.TEXT_DOCUMENT_DID_CHANGE, lsp.DidChangeTextDocumentParams(
                text_document=lsp.VersionedTextDocumentIdentifier(uri=uri, version=doc.version),
                content_changes=[lsp.TextDocumentContentChangeWholeDocument(text=disk.lines.text)]))
        doc.stat = disk.stat
        self._docs.note_unchecked(path, disk.stat)
        self._docs.touch(path)
        for old in self._docs.to_close():
            self._docs.open.pop(old, None)
            client.notify(lsp.TEXT_DOCUMENT_DID_CLOSE, lsp.DidCloseTextDocumentParams(
                text_document=lsp.TextDocumentIdentifier(uri=path_to_uri(old))))
        return doc

    async def refresh(self, client: BridgeClient) -> None:
        """Tell the server about files that changed on disk since it last saw them."""
        await self.apply_scan(client, await asyncio.to_thread(self._docs.scan))

    async def apply_scan(self, client: BridgeClient, found: dict[Path, Any]) -> bool:
        changed, deleted, created = self._docs.apply_scan(found)
        await self.announce(client, [(p, lsp.FileChangeType.Changed) for p in changed]
                            + [(p, lsp.FileChangeType.Deleted) for p in deleted]
                            + [(p, lsp.FileChangeType.Created) for p in created])
        return bool(changed or deleted or created)

    def close(self) -> None:
        self._docs.close()

    async def files_changed(self, client: BridgeClient, paths: list[Path]) -> None:
        events = []
        for path in paths:
            before, now = self._docs.snapshot.get(path), stat_of(path)
            if now is None:
                events.append((path, lsp.FileChangeType.Deleted))
            elif before is None and path not in self._docs.open:
                events.append((path, lsp.FileChangeType.Created))
            else:
                events.append((path, lsp.FileChangeType.Changed))
            if self.spec.language_id(path) is not None or now is None:
                self._docs.note_unchecked(path, now)
        await self.announce(client, events)

    async def announce(self, client: BridgeClient, events: list[tuple[Path, lsp.FileChangeType]]) -> None:
        if not events:
            return
        client.notify(lsp.WORKSPACE_DID_CHANGE_WATCHED_FILES, lsp.DidChangeWatchedFilesParams(
            changes=[lsp.FileEvent(uri=path_to_uri(p), type=kind) for p, kind in events]))
        if any(kind != lsp.FileChangeType.Changed and self.spec.language_id(p) for p, kind in events):
            expect_enumeration(self.spec.readiness, client)
        for path, kind in events:
            if path not in self._docs.open:
                continue
            if kind == lsp.FileChangeType.Deleted:
                self._docs.open.pop(path)
                client.notify(lsp.TEXT_DOCUMENT_DID_CLOSE, lsp.DidCloseTextDocumentParams(
                    text_document=lsp.TextDocumentIdentifier(uri=path_to_uri(path))))
            else:
                await self.sync(client, path)

    def lines_checked(self, path: Path, *, vouched: bool = False) -> TextLines | None:
        """The text a server answer about `path` refers to (for converting its columns); StaleFile if
        the file changed since the server was told about it. Cached by stat: answers that list
        hundreds of files (references on a big repo) must not re-read them every time.
        `vouched`: the folder watch says a known file still has its known stat (answer_lines)."""
        doc = self._docs.open.get(path)
        known = doc.stat if doc is not None else self._docs.snapshot.get(path)
        now = known if vouched and known is not None else stat_of(path)
        if now is None:
            return None
        if known is not None and known != now:
            raise StaleFile(f"{path} changed on disk while {self.spec.name} was answering")
        if doc is not None:
            return doc.lines
        cached = self._lines.get(path)
        if cached is not None and cached[0] == now:
            self._lines.move_to_end(path)
            return cached[1]
        disk = read_file(path, self.decode)
        if disk is None:
            return None
        if known is not None and disk.stat != known:  # changed since its stat (or a vouched one)
            raise StaleFile(f"{path} changed on disk while {self.spec.name} was answering")
        self._lines[path] = (disk.stat, disk.lines)
        if len(self._lines) > LINES_CACHE:
            self._lines.popitem(last=False)
        return disk.lines

    def seen(self, path: Path) -> SeenDoc | None:
        doc = self._docs.open.get(path)
        disk = read_file(path, self.decode)
        if doc is not None:
            if disk is None or disk.hash != doc.hash:
                raise StaleFile(f"{path} changed on disk while {self.spec.name} was answering")
            return SeenDoc(doc.lines, doc.hash, doc.version)
        if disk is None:
            return None
        known = self._docs.snapshot.get(path)
        if known is not None and known != disk.stat:
            raise StaleFile(f"{path} changed on disk while {self.spec.name} was answering")
        return SeenDoc(disk.lines, disk.hash, None)
