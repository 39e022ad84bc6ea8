"""apply_code_action: the server's code action with a given title, turned into an EditPlan (each
text edit a site holding the text the server saw, each new/deleted/moved file a file operation)
and committed as one journaled, undoable operation: the plan's checks (file hashes as the server
saw them, every range's text), then the edit checks (syntax guard, diagnostics delta)."""

from __future__ import annotations

from pathlib import Path

from lsp_bridge.positions import TextLines

from ..errors import ToolFailure
from ..languages import server_language
from ..result import ToolResult
from ..semantic.code_actions import choose, request_actions
from ..semantic.target import display_path
from ..toolcontext import ToolContext
from .commit import commit_plan
from .plan import EditPlan


def apply_code_action(ctx: ToolContext, file_path: str, line: int, column: int, end_line: int | None,
                      end_column: int | None, title: str) -> ToolResult:
    where, actions = request_actions(ctx, file_path, line, column, end_line, end_column)
    action = choose(actions, title)
    if action.disabled:
        raise ToolFailure(f"{action.title!r} is disabled here: {action.disabled}")
    if action.edits is None:
        raise ToolFailure(f"{action.title!r} is a server command ({action.command}) with no edit the client "
                          "can apply; make the change with replace_in_file instead")
    plan = EditPlan(operation="code action", old_name="", new_name=action.title,
                    language=server_language(file_path) or "", target=None)
    for fe in action.edits:
        rel = display_path(ctx, fe.path)
        if Path(rel).is_absolute():
            raise ToolFailure(f"{action.title!r} would change {rel}, outside the workspace; not applied")
        if fe.kind != "edit":
            plan.file_ops.append(fe)
            continue
        doc = ctx.workspace.read(rel)
        if fe.seen_hash is not None:
            plan.hashes[rel] = fe.seen_hash  # the plan is refused if the file changed since the server saw it
        lines = TextLines(doc.text)
        for change in fe.changes:
            held = doc.text[lines.offset(change.range.start):lines.offset(change.range.end)]
            plan.add(rel, change.range, change.new_text, "code action", old_text=held)
    return commit_plan(ctx, plan, summary=f"applied {action.title!r} at {where}",
                       operation=f"code action: {action.title}")
