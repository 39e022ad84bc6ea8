"""Navigation requests on a session: hover, call hierarchy, type hierarchy, code actions.

Answers are converted to the bridge's positions (0-based lines, code-point columns). A hierarchy
item keeps the server's own item (`raw`): the next level (callers of a caller) is asked with it,
as the protocol requires. Code actions come back with their edits as validated `FileEdits`
(resolved through `codeAction/resolve` when the server sends them without one); nothing is
written here. Every function takes an `LspSession` and runs like its own requests (sync, readiness,
a crashed server restarted once).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from lsprotocol import types as lsp

from lsp_bridge import convert
from lsp_bridge.client import BridgeClient
from lsp_bridge.edits import workspace_edit_to_file_edits
from lsp_bridge.errors import BridgeError, InvalidEdit, RequestFailed
from lsp_bridge.exchanges import pushed_diagnostics
from lsp_bridge.session import LspSession
from lsp_bridge.types import FileEdits, Position, Range
from lsp_bridge.uris import path_to_uri, uri_to_path

MAX_RESOLVED_ACTIONS = 30  # codeAction/resolve round trips per listing


@dataclass(frozen=True, slots=True)
class HierarchyItem:
    """A call- or type-hierarchy node: a function, method or class where the server found it."""

    name: str
    kind: str  # lower-case SymbolKind name: "function", "method", "class", ...
    detail: str | None
    path: Path
    range: Range  # the whole definition
    selection: Range  # its name
    raw: Any = field(default=None, compare=False, repr=False)  # the server's item, for the next level


@dataclass(frozen=True, slots=True)
class Call:
    """One caller (incoming) or callee (outgoing) and the call ranges: in the caller's file for
    incoming calls, in the asked item's file for outgoing ones (LSP's `fromRanges`)."""

    item: HierarchyItem
    sites: list[Range]


@dataclass(frozen=True, slots=True)
class Action:
    """A quick fix or refactoring the server offers. `edits` is None when the action is a bare
    command whose effect the server would apply itself (not applicable by a read-only client)."""

    title: str
    kind: str | None
    edits: list[FileEdits] | None
    command: str | None
    preferred: bool
    fixes: list[str]  # messages of the diagnostics it addresses
    disabled: str | None = None


def _kind(value: int) -> str:
    try:
        return lsp.SymbolKind(value).name.lower()
    except ValueError:
        return "symbol"


def _item(session: LspSession, client: BridgeClient, raw: Any) -> HierarchyItem | None:
    try:
        path = uri_to_path(raw.uri)
    except InvalidEdit:  # a virtual document: nothing a tool can open
        return None
    lines = session._files.lines_checked(path)
    return HierarchyItem(
        name=raw.name, kind=_kind(raw.kind), detail=raw.detail or None, path=path,
        range=convert.convert_range(lines, raw.range, client.encoding),
        selection=convert.convert_range(lines, raw.selection_range, client.encoding), raw=raw)


def _position_params(doc: Any, target: Path, pos: Position, client: BridgeClient) -> dict[str, Any]:
    return {"text_document": lsp.TextDocumentIdentifier(uri=path_to_uri(target)),
            "position": doc.lines.to_server(pos, client.encoding)}


def hover(session: LspSession, path: Path, pos: Position) -> str | None:
    """The server's hover text at `pos` (markdown or plain, as sent), None when it has nothing."""
    target = session._abs(path)

    async def op(client: BridgeClient) -> str | None:
        doc = await session._prepare(client, target, pos)
        result = await client.request(lsp.TEXT_DOCUMENT_HOVER,
                                      lsp.HoverParams(**_position_params(doc, target, pos, client)),
                                      session.request_timeout)
        return None if result is None else _hover_text(result.contents)
    return session._call(op)


def _hover_text(contents: Any) -> str:
    if isinstance(contents, lsp.MarkupContent):
        return contents.value
    if isinstance(contents, str):
        return contents
    if isinstance(contents, lsp.MarkedStringWithLanguage):
        return f"```{contents.language}\n{contents.value}\n```"
    if isinstance(contents, Sequence):
        return "\n\n".join(_hover_text(part) for part in contents)
    return str(contents)


def prepare_hierarchy(session: LspSession, path: Path, pos: Position,
                      what: Literal["calls", "types"]) -> list[HierarchyItem]:
    """The hierarchy items at `pos` (usually one: the function or class named there)."""
    target = session._abs(path)
    method, params_type = ((lsp.TEXT_DOCUMENT_PREPARE_CALL_HIERARCHY, lsp.CallHierarchyPrepareParams)
                           if what == "calls" else
                           (lsp.TEXT_DOCUMENT_PREPARE_TYPE_HIERARCHY, lsp.TypeHierarchyPrepareParams))

    async def op(client: BridgeClient) -> list[HierarchyItem]:
        doc = await session._prepare(client, target, pos)
        result = await client.request(method, params_type(**_position_params(doc, target, pos, client)),
                                      session.request_timeout)
        items = [_item(session, client, raw) for raw in result or []]
        return [i for i in items if i is not None]
    return session._call(op)


def supports(session: LspSession, what: Literal["calls", "types", "implementation", "actions"]) -> bool:
    """Whether the server announced the feature. A server not running yet is started first: asked
    blind, basedpyright fails a type hierarchy request ("Unhandled method") instead of answering none."""
    client = session._client
    if client is None or not client.running:
        client = session._run(session._ensure_client(), session.start_timeout + 30)
    caps = client.capabilities
    if caps is None:
        return True
    provider = {"calls": caps.call_hierarchy_provider, "types": caps.type_hierarchy_provider,
                "implementation": caps.implementation_provider, "actions": caps.code_action_provider}[what]
    return bool(provider)


def calls(session: LspSession, item: HierarchyItem, direction: Literal["incoming", "outgoing"]) -> list[Call]:
    """The callers (incoming) or callees (outgoing) of a call-hierarchy item."""
    async def op(client: BridgeClient) -> list[Call]:
        await session._prepare(client, item.path)
        if direction == "incoming":
            incoming = await client.request(lsp.CALL_HIERARCHY_INCOMING_CALLS,
                                            lsp.CallHierarchyIncomingCallsParams(item=item.raw),
                                            session.request_timeout)
            pairs = [(c.from_, c.from_ranges) for c in incoming or []]
        else:
            outgoing = await client.request(lsp.CALL_HIERARCHY_OUTGOING_CALLS,
                                            lsp.CallHierarchyOutgoingCallsParams(item=item.raw),
                                            session.request_timeout)
            pairs = [(c.to, c.from_ranges) for c in outgoing or []]
        out = []
        for raw, ranges in pairs:
            found = _item(session, client, raw)
            if found is None:
                continue
            site_path = found.path if direction == "incoming" else item.path
            lines = session._files.lines_checked(site_path)
            sites = sorted(convert.convert_range(lines, r, client.encoding) for r in ranges)
            out.append(Call(found, sites))
        return out
    return session._call(op)


def related_types(session: LspSession, item: HierarchyItem,
                  direction: Literal["supertypes", "subtypes"]) -> list[HierarchyItem]:
    async def op(client: BridgeClient) -> list[HierarchyItem]:
        await session._prepare(client, item.path)
        method, params = ((lsp.TYPE_HIERARCHY_SUPERTYPES, lsp.TypeHierarchySupertypesParams(item=item.raw))
                          if direction == "supertypes" else
                          (lsp.TYPE_HIERARCHY_SUBTYPES, lsp.TypeHierarchySubtypesParams(item=item.raw)))
        result = await client.request(method, params, session.request_timeout)
        items = [_item(session, client, raw) for raw in result or []]
        return [i for i in items if i is not None]
    return session._call(op)


def code_actions(session: LspSession, path: Path, rng: Range) -> list[Action]:
    """The server's code actions for `rng` (a point when start == end), with the diagnostics
    there in the request's context (servers offer quick fixes only for diagnostics they are given)."""
    target = session._abs(path)

    async def op(client: BridgeClient) -> list[Action]:
        doc = await session._prepare(client, target, rng.start)
        server_range = doc.lines.range_to_server(rng, client.encoding)
        diagnostics = [d for d in await _raw_diagnostics(session, client, doc)
                       if _overlaps(d.range, server_range)]
        params = lsp.CodeActionParams(
            text_document=lsp.TextDocumentIdentifier(uri=path_to_uri(target)), range=server_range,
            context=lsp.CodeActionContext(diagnostics=diagnostics, trigger_kind=lsp.CodeActionTriggerKind.Invoked))
        result = await client.request(lsp.TEXT_DOCUMENT_CODE_ACTION, params, session.request_timeout)
        out = []
        for index, raw in enumerate(result or []):
            out.append(await _action(session, client, raw, resolve=index < MAX_RESOLVED_ACTIONS))
        return out
    return session._call(op)


async def _raw_diagnostics(session: LspSession, client: BridgeClient, doc: Any) -> list[lsp.Diagnostic]:
    if client.pull_diagnostics:
        params = lsp.DocumentDiagnosticParams(text_document=lsp.TextDocumentIdentifier(uri=path_to_uri(doc.path)))
        report = await client.request(lsp.TEXT_DOCUMENT_DIAGNOSTIC, params, session.request_timeout)
        return list(getattr(report, "items", None) or [])
    return await pushed_diagnostics(client, doc, server=session.spec.name, timeout=session.request_timeout,
                                    in_parts=session.spec.diagnostics_in_parts)


def _overlaps(a: lsp.Range, b: lsp.Range) -> bool:
    def key(p: lsp.Position) -> tuple[int, int]:
        return p.line, p.character
    return key(a.start) <= key(b.end) and key(b.start) <= key(a.end)


async def _action(session: LspSession, client: BridgeClient, raw: Any, *, resolve: bool) -> Action:
    if isinstance(raw, lsp.Command):
        return Action(raw.title, None, None, raw.command, False, [])
    edit = raw.edit
    caps = client.capabilities
    provider = caps.code_action_provider if caps is not None else None
    can_resolve = isinstance(provider, lsp.CodeActionOptions) and bool(provider.resolve_provider)
    if edit is None and raw.data is not None and can_resolve and resolve:
        try:
            resolved = await client.request(lsp.CODE_ACTION_RESOLVE, raw, session.request_timeout)
            edit = resolved.edit if resolved is not None else None
            raw = resolved or raw
        except RequestFailed:
            pass
    edits = None
    if edit is not None:
        try:
            edits = workspace_edit_to_file_edits(edit, read=session._files.seen, encoding=client.encoding)
        except BridgeError:
            edits = None
    return Action(
        title=raw.title, kind=str(raw.kind) if raw.kind else None, edits=edits,
        command=raw.command.command if raw.command else None, preferred=bool(raw.is_preferred),
        fixes=[d.message for d in raw.diagnostics or []],
        disabled=raw.disabled.reason if raw.disabled else None)
