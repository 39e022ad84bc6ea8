"""Answers that take more than one exchange with the server: the range a rename would change
(prepareRename and its fallbacks) and the diagnostics a server pushes rather than answers."""

from __future__ import annotations

import time

from lsprotocol import types as lsp

from lsp_bridge import convert
from lsp_bridge.client import BridgeClient
from lsp_bridge.documents import OpenDoc
from lsp_bridge.errors import RenameRefused, RequestFailed, RequestTimeout
from lsp_bridge.types import Position, Range
from lsp_bridge.uris import path_to_uri

SETTLE_SECONDS = 1.0  # a server publishing in parts: the least quiet time after its latest part


async def rename_range(client: BridgeClient, doc: OpenDoc, pos: Position, *, server: str, timeout: float) -> Range:
    """The range of the symbol a rename at `pos` would change: prepareRename, else the word there
    (a server without prepareRename). RenameRefused with the server's reason."""
    provider = client.capabilities.rename_provider if client.capabilities else None
    if not provider:
        raise RenameRefused(f"{server} does not support rename")
    fallback = convert.word_range(doc.lines, pos)
    if not (isinstance(provider, lsp.RenameOptions) and provider.prepare_provider):
        if fallback is None:
            raise RenameRefused(f"no symbol at {doc.path}:{pos.shown()}")
        return fallback
    params = lsp.PrepareRenameParams(text_document=lsp.TextDocumentIdentifier(uri=path_to_uri(doc.path)),
                                     position=doc.lines.to_server(pos, client.encoding))
    try:
        result = await client.request(lsp.TEXT_DOCUMENT_PREPARE_RENAME, params, timeout)
    except RequestFailed as exc:
        raise RenameRefused(str(exc).split(": ", 2)[-1]) from exc
    if result is None:
        raise RenameRefused(f"{server}: the element at {doc.path.name}:{pos.shown()} cannot be renamed")
    if isinstance(result, lsp.Range):
        return doc.lines.range_from_server(result, client.encoding)
    if isinstance(result, lsp.PrepareRenamePlaceholder):
        return doc.lines.range_from_server(result.range, client.encoding)
    if fallback is None:
        raise RenameRefused(f"no symbol at {doc.path}:{pos.shown()}")
    return fallback


async def pushed_diagnostics(client: BridgeClient, doc: OpenDoc, *, server: str, timeout: float,
                             in_parts: bool = False) -> list[lsp.Diagnostic]:
    """The diagnostics the server pushed for `doc` since its last sync. A server that stays quiet
    (nothing to re-publish for unchanged content) is taken at its last word after a short wait.
    A server that publishes in parts (ServerSpec.diagnostics_in_parts) is taken once no new
    publication came for a while after the first: three times the time the first took, at least
    SETTLE_SECONDS, so the wait grows with the load that delays its later parts."""
    uri = path_to_uri(doc.path)
    started = time.monotonic()
    deadline = started + timeout
    quiet_until = started + 3.0
    heard: tuple[int, float, float] | None = None  # (publication seen, when, how long to wait for more)
    while True:
        if client.failure is not None:
            raise client.failure
        seq = client.diagnostic_seq.get(uri, 0)
        fresh = seq > doc.diag_seq
        version = client.diagnostic_version.get(uri)
        if fresh and (version is None or version >= doc.version):
            if not in_parts:
                break
            now = time.monotonic()
            if heard is None or heard[0] != seq:
                heard = (seq, now, heard[2] if heard else max(SETTLE_SECONDS, 3 * (now - started)))
            elif now - heard[1] >= heard[2] or now > deadline:
                break
            await client.wait_change(min(heard[1] + heard[2] - now, max(deadline - now, 0.0)) + 0.001)
            continue
        now = time.monotonic()
        if uri in client.diagnostics and not fresh and now > quiet_until:
            break
        if now > deadline:
            raise RequestTimeout(f"{server} published no diagnostics for {doc.path} in time")
        await client.wait_change(min(deadline - now, 0.25))
    return list(client.diagnostics.get(uri, []))
