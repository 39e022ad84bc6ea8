"""From an EditPlan to the workspace's whole-file FileEdits, and the one journaled commit.

Before anything is written, every file is read as it is now and checked: unchanged since the plan
was made (its hash), and every site's range holds exactly the text the plan expects there (the old
name). A plan with conflicts, a changed file or a range holding other text is refused as a whole,
naming the file (and path:line:col); nothing is written.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import dataclass

from lsp_bridge import FileEdits, apply_changes
from lsp_bridge.errors import InvalidEdit
from lsp_bridge.positions import TextLines

from ..commit import Applied, commit, diff_of
from ..errors import StaleFileError, ToolFailure
from ..result import FileEdit, ToolResult
from ..toolcontext import ToolContext
from ..workspace import Workspace
from .plan import EditPlan, Site


@dataclass(frozen=True, slots=True)
class PlanEdits:
    """The plan as the workspace applies it, and each file's text before (None: it does not exist)."""

    edits: list[FileEdit]
    before: dict[str, str | None]


def file_edits(ws: Workspace, plan: EditPlan) -> PlanEdits:
    """Whole-file edits for the plan, every file and every range checked first (see the module)."""
    if plan.conflicts:
        listed = "; ".join(plan.conflicts[:5]) + (" ..." if len(plan.conflicts) > 5 else "")
        raise ToolFailure(f"the {plan.operation} was refused: {listed}; nothing was written")
    texts: dict[str, str | None] = {}
    hashes: dict[str, str | None] = {}
    before: dict[str, str | None] = {}
    for rel, sites in plan.by_file().items():
        doc = ws.read(rel)
        seen = plan.hashes.get(rel)
        if seen is not None and doc.hash != seen:
            raise StaleFileError(f"{rel} changed since the {plan.operation} was planned; nothing was written. "
                                 "Run it again.")
        check_ranges(doc.text, sites)
        try:
            texts[rel] = apply_changes(doc.text, sites)
        except InvalidEdit as exc:
            raise ToolFailure(f"{rel}: the planned edits are inconsistent ({exc}); nothing was written") from exc
        hashes[rel] = doc.hash
        before[rel] = doc.text
    for op in plan.file_ops:
        _file_op(ws, op, texts, hashes, before)
    return PlanEdits([FileEdit(rel, text, hashes.get(rel)) for rel, text in sorted(texts.items())], before)


def check_ranges(text: str, sites: list[Site]) -> None:
    """Refuse (ToolFailure naming path:line:col) unless each site's range holds its `old_text`."""
    lines = TextLines(text)
    for site in sites:
        if site.old_text is None:
            continue
        rng = site.range
        try:
            held = text[lines.offset(rng.start):lines.offset(rng.end)]
        except InvalidEdit:
            held = None
        if held != site.old_text:
            found = "nothing (the range is outside the file)" if held is None else repr(held[:80])
            raise ToolFailure(f"{site.location}: the plan expects {site.old_text!r} there but the file holds "
                              f"{found}; the plan was refused, nothing was written")


def commit_plan(ctx: ToolContext, plan: EditPlan, *, summary: str, operation: str | None = None,
                show: Callable[[Applied], str] = diff_of, skip: Collection[str] = (),
                edits: PlanEdits | None = None) -> ToolResult:
    """Check the plan (file_edits, unless given) and apply it as one journaled operation (named
    `operation`, by default "<operation> OLD -> NEW") with the edit checks."""
    checked = edits if edits is not None else file_edits(ctx.workspace, plan)
    name = operation or f"{plan.operation} {plan.old_name} -> {plan.new_name}"
    try:
        return commit(ctx, checked.edits, operation=name, summary=summary, show=show, skip=skip)
    except OSError as exc:  # the workspace restored every file it had written before the failure
        raise ToolFailure(f"writing the {plan.operation} failed ({exc}); every file was restored, "
                          "nothing changed") from exc


def _file_op(ws: Workspace, op: FileEdits, texts: dict[str, str | None], hashes: dict[str, str | None],
             before: dict[str, str | None]) -> None:
    rel = ws.rel(op.path)
    if op.kind == "create":
        if ws.exists(rel):
            raise ToolFailure(f"the rename would create {rel}, which already exists; nothing was written")
        texts[rel] = apply_changes("", op.changes)
        hashes[rel] = None
        before[rel] = None
    elif op.kind == "delete":
        texts[rel] = None
        if rel not in hashes:
            doc = ws.read(rel)
            hashes[rel], before[rel] = doc.hash, doc.text
    elif op.kind == "rename" and op.new_path is not None:
        new_rel = ws.rel(op.new_path)
        if ws.exists(new_rel):
            raise ToolFailure(f"the rename would move {rel} onto {new_rel}, which exists; nothing was written")
        current = texts.get(rel)
        if current is None:
            doc = ws.read(rel)
            current, hashes[rel], before[rel] = doc.text, doc.hash, doc.text
        texts[new_rel] = apply_changes(current, op.changes) if op.changes else current
        hashes[new_rel] = None
        before[new_rel] = None
        texts[rel] = None
