"""Renaming the symbol a tool call points at: one EditPlan from the rename engine (the server's
prepareRename + rename, completed; see engine.py) or, without a server, from the syntactic
fallback (syntactic.py); then the session's rename passes, and the identifiers in code that nothing
confirmed, for review.

Every site carries its reason ("lsp", "syntactic", and whatever the engine or a pass adds, e.g.
"stub", "__all__"). Passes are registered per session: `rename_passes(ctx).append(MyPass())`.
"""

from __future__ import annotations

from typing import Protocol

from lsp_bridge import LspSession
from lsp_bridge.errors import InvalidEdit, NotReady, RenameRefused, StaleFile
from lsp_bridge.types import Position, Range

from ...errors import ToolFailure
from ...semantic.identifiers import check_identifier
from ...semantic.name_occurrences import NameSearch, unconfirmed_hits
from ...semantic.sessions import UNAVAILABLE, server_unavailable, session_for
from ...semantic.target import Target
from ...toolcontext import ToolContext
from ..plan import EditPlan, ReviewItem, location_of
from .engine import plan_rename
from .review_groups import add_textual
from .syntactic import plan_syntactic

MAX_SITES_LISTED = 60
MAX_STRINGS_LISTED = 20
_PASSES = "rename.passes"


class RenamePass(Protocol):
    """Completes a plan after the server's answer (stubs, `__all__` strings, hierarchies, ...)."""

    name: str

    def complete(self, ctx: ToolContext, plan: EditPlan, session: LspSession | None) -> None: ...


def rename_passes(ctx: ToolContext) -> list[RenamePass]:
    """The passes this session runs on every rename plan, in order (append to register one)."""
    return ctx.service(_PASSES, list)


def plan_symbol_rename(ctx: ToolContext, target: Target, new_name: str, *, allow_syntactic: bool = False,
                       include_strings: bool = False, include_comments: bool = False) -> EditPlan:
    """The plan for renaming `target` to `new_name` (ToolFailure with the reason when impossible).
    The name in strings / docstrings and comments is listed in `plan.textual`, or renamed too with
    `include_strings` / `include_comments`."""
    check_identifier(new_name, target.language)
    if new_name == target.name:
        raise ToolFailure(f"new_name is the current name {target.name!r}; nothing to rename")
    if target.server is None:
        raise ToolFailure(f"{target.path}: no language server handles this kind of file")
    search = NameSearch(ctx, target.name, target.server).start()  # runs while the server answers
    session: LspSession | None = None
    try:
        session = session_for(ctx, target.server)
        plan = _engine_plan(ctx, session, target, new_name)
    except UNAVAILABLE as exc:
        session = None
        plan = plan_syntactic(ctx, target, new_name, search, allow_syntactic, server_unavailable(exc))
    for rename_pass in rename_passes(ctx):
        rename_pass.complete(ctx, plan, session)
    if plan.method == "lsp":
        planned: dict[str, set[tuple[int, int]]] = {}
        for s in plan.sites:
            planned.setdefault(s.path, set()).add((s.line - 1, s.column - 1))
        scan = unconfirmed_hits(ctx, search, planned)
        plan.review.extend(ReviewItem(location_of(h.path, _point(h.line, h.column)), "code") for h in scan.hits)
        if scan.unchecked:
            plan.notes.append(f"the name is common: {scan.unchecked} more file(s) containing it were not "
                              "checked for unrenamed uses")
    add_textual(ctx, plan, search.files(), include_strings=include_strings, include_comments=include_comments)
    plan.review_total = len(plan.review)
    return plan


def _engine_plan(ctx: ToolContext, session: LspSession, target: Target, new_name: str) -> EditPlan:
    try:
        plan = plan_rename(session, ctx.workspace, target.real, target.pos, new_name)
    except RenameRefused as exc:
        raise ToolFailure(f"the language server refuses to rename {target.name!r} at {target.location}: {exc}") from exc
    except NotReady as exc:
        raise ToolFailure(f"{exc}; nothing was renamed, try again when it has finished indexing") from exc
    except StaleFile as exc:
        raise ToolFailure(f"{exc}; nothing was written, run the rename again") from exc
    except InvalidEdit as exc:
        raise ToolFailure(f"the server's rename edit is unsafe ({exc}); nothing was written") from exc
    except UNAVAILABLE:
        raise
    if not plan.sites and not plan.file_ops:
        raise ToolFailure(f"the language server returned no edits for renaming {target.name!r} at {target.location}")
    plan.target = target.location
    plan.notes = explain(plan)
    # the identifiers in code that nothing confirmed are listed by the scan above (it sees the
    # passes' sites too); the engine's review keeps the strings it saw and did not change
    plan.review = [r for r in plan.review if r.kind != "code"]
    return plan


def explain(plan: EditPlan) -> list[str]:
    """What the engine added beyond the server's own answer (each site with its reason), the
    string literals left for review, and its notes. Bounded."""
    out: list[str] = []
    counts = ", ".join(f"{r} {n}" for r, n in sorted(plan.reason_counts().items()))
    if counts:
        out.append(f"sites by reason: {counts} (lsp = the language server's own answer; the rest completes it)")
    # the engine's additions are what needs explaining; the server's own sites are in the diff (or
    # the changed lines) and, each with its reason, in the result's `sites`
    added = [s for sites in plan.by_file().values() for s in sites if s.reason != "lsp"]
    for s in added[:MAX_SITES_LISTED]:
        out.append(f"  {s.location} [{s.reason}]")
    if len(added) > MAX_SITES_LISTED:
        out.append(f"  ... {len(added) - MAX_SITES_LISTED} more (all listed in `sites`)")
    strings = [r for r in plan.review if r.kind != "code"]
    if strings:
        out.append(f"{plan.old_name!r} in strings that no rule tied to the symbol (not changed; review):")
        for r in strings[:MAX_STRINGS_LISTED]:
            where = "code in a string" if r.kind == "embedded" else "string"
            out.append(f"  {r.location} [{where}] {r.line_text[:100]}")
    out.extend(plan.notes)
    return out


def _point(line: int, column: int) -> Range:
    return Range(Position(line, column), Position(line, column))
