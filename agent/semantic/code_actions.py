"""code_actions: the server's quick fixes and refactorings at a position or range, numbered, each
with the change it would make; `request_actions` and `choose` serve apply_code_action
(agent/refactor/code_action.py, which commits one as an EditPlan)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from lsp_bridge import Position, Range, apply_changes, navigation
from lsp_bridge.errors import InvalidEdit, NotReady
from lsp_bridge.navigation import Action
from lsp_bridge.types import FileEdits

from ..commit import unified_diff
from ..errors import ToolFailure
from ..languages import server_language
from ..result import FileEdit, ToolResult
from ..toolcontext import ToolContext
from .sessions import UNAVAILABLE, server_unavailable, session_for
from .target import display_path, to_position

MAX_ACTIONS = 40
MAX_PREVIEW_LINES = 12


def request_actions(ctx: ToolContext, file_path: str, line: int, column: int, end_line: int | None,
             end_column: int | None) -> tuple[str, list[Action]]:
    real = ctx.workspace.resolve(file_path)
    doc = ctx.workspace.read(real)
    language = server_language(real)
    if language is None:
        raise ToolFailure(f"{doc.path}: no language server handles this kind of file")
    start = to_position(doc, line, column)
    end = to_position(doc, end_line or line, end_column or column) if end_line or end_column else start
    if end < start:
        raise ToolFailure("the range ends before it starts")
    try:
        session = session_for(ctx, language)
        actions = navigation.code_actions(session, real, Range(Position(start.line, start.character),
                                                               Position(end.line, end.character)))
    except NotReady as exc:
        raise ToolFailure(f"{exc}; try again when it has finished indexing") from exc
    except UNAVAILABLE as exc:
        raise ToolFailure(f"{server_unavailable(exc)}; code actions need the server") from exc
    where = f"{doc.path}:{line}:{column}" + (f"-{end_line or line}:{end_column or column}" if end != start else "")
    return where, actions


def _file_edits(ctx: ToolContext, action: Action) -> list[FileEdit]:
    """Whole-file edits for the action, each guarded by the hash of the bytes the server saw."""
    if action.edits is None:
        raise ToolFailure(f"{action.title!r} is a server command ({action.command}) with no edit the client "
                          "can apply; make the change with replace_in_file instead")
    out = []
    for fe in action.edits:
        rel = display_path(ctx, fe.path)
        if Path(rel).is_absolute():
            raise ToolFailure(f"{action.title!r} would change {rel}, outside the workspace; not applied")
        out.append(_one(ctx, rel, fe))
    return out


def _one(ctx: ToolContext, rel: str, fe: FileEdits) -> FileEdit:
    if fe.kind == "create":
        return FileEdit(rel, apply_changes("", fe.changes), None)
    if fe.kind != "edit":
        raise ToolFailure(f"the action would {fe.kind} {rel}; only text edits and new files are applied")
    doc = ctx.workspace.read(rel)
    if fe.seen_hash is not None and fe.seen_hash != doc.hash:
        raise ToolFailure(f"{rel} changed since the server computed the action; ask code_actions again")
    try:
        return FileEdit(rel, apply_changes(doc.text, fe.changes), doc.hash)
    except InvalidEdit as exc:
        raise ToolFailure(f"the server's edit for {rel} is invalid ({exc}); nothing was written") from exc


def _preview(ctx: ToolContext, action: Action) -> tuple[list[str], list[str]]:
    """(files it changes, a short diff) of what the action would do."""
    try:
        edits = _file_edits(ctx, action)
    except ToolFailure as exc:
        return [], [f"   ({exc})"]
    lines: list[str] = []
    for e in edits:
        before = None if e.old_hash is None else ctx.workspace.read(e.path).text
        diff = [ln for ln in unified_diff(e.path, before, e.new_text).split("\n")
                if ln[:1] in ("+", "-") and not ln.startswith(("+++", "---"))]
        lines.append(f"   {e.path}:")
        lines += [f"     {ln}" for ln in diff[:MAX_PREVIEW_LINES]]
        if len(diff) > MAX_PREVIEW_LINES:
            lines.append(f"     [... {len(diff) - MAX_PREVIEW_LINES} more changed lines ...]")
    return [e.path for e in edits], lines


def list_code_actions(ctx: ToolContext, file_path: str, line: int, column: int, end_line: int | None,
                      end_column: int | None) -> ToolResult:
    where, actions = request_actions(ctx, file_path, line, column, end_line, end_column)
    out = [f"{len(actions)} code action(s) at {where}" + (":" if actions else
                                                          " (the server offers none here)")]
    rows: list[dict[str, Any]] = []
    for number, action in enumerate(actions[:MAX_ACTIONS], 1):
        files, preview = _preview(ctx, action)
        label = ", ".join(x for x in (action.kind, "preferred" if action.preferred else "",
                                      f"disabled: {action.disabled}" if action.disabled else "") if x)
        out.append(f"{number}. {action.title}" + (f"  [{label}]" if label else ""))
        out += preview
        rows.append({"number": number, "title": action.title, "kind": action.kind, "preferred": action.preferred,
                     "files": files, "applicable": action.edits is not None and not action.disabled,
                     "fixes": action.fixes, "command": action.command})
    if len(actions) > MAX_ACTIONS:
        out.append(f"[... {len(actions) - MAX_ACTIONS} more actions not listed ...]")
    if actions:
        out.append("apply one with apply_code_action(title=...)")
    return ToolResult.ok("\n".join(out), target=where, actions=rows, count=len(actions))


def choose(actions: list[Action], title: str) -> Action:
    """The action with this title: exact, then case-insensitive, then a unique prefix."""
    wanted = title.strip()
    for test in (lambda a: a.title == wanted, lambda a: a.title.lower() == wanted.lower(),
                 lambda a: a.title.lower().startswith(wanted.lower())):
        found = [a for a in actions if test(a)]
        if len(found) == 1:
            return found[0]
        if len(found) > 1:
            titles = "; ".join(repr(a.title) for a in found[:10])
            raise ToolFailure(f"{len(found)} actions match {title!r}: {titles}; give the whole title")
    offered = "; ".join(repr(a.title) for a in actions[:20]) or "none"
    raise ToolFailure(f"no code action titled {title!r} here; the server offers: {offered}")
