"""rename_symbol: plan (with a server: the rename engine of agent/rename, which starts from the
server's prepareRename + rename and completes it; without one: the syntactic fallback), let the
rename passes complete the plan, turn it into whole-file FileEdits (every file checked to be exactly
what the server saw), then preview (dry run) or commit through the journal and the edit checks.

A plan lists every edit with its reason ("lsp", "syntactic", and whatever rename passes add, e.g.
"stub", "__all__"). Passes are registered per session: `rename_passes(ctx).append(MyPass())`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from lsp_bridge import FileEdits, LspSession, Position, Range, TextChange, apply_changes
from lsp_bridge.errors import InvalidEdit

from ..changes import MAX_DIFF_CHARS, bounded, changed_lines, commit, unified_diff
from ..errors import ToolFailure
from ..result import FileEdit, ToolResult
from ..toolcontext import ToolContext
from ..workspace import TextDoc
from .identifiers import check_identifier
from .sessions import UNAVAILABLE, server_unavailable, session_for
from .target import Target, display_path
from .textscan import CodeHit, NameSearch, code_hits, unconfirmed_hits

MAX_SITES_LISTED = 500
MAX_UNCONFIRMED = 30
_PASSES = "rename.passes"


@dataclass(frozen=True, slots=True)
class Site:
    """One replacement: `range` (0-based, characters) in the file's current text."""

    path: str
    range: Range
    new_text: str
    reason: str

    def to_dict(self) -> dict[str, Any]:
        r = self.range
        return {"path": self.path, "line": r.start.line + 1, "column": r.start.character + 1,
                "end_line": r.end.line + 1, "end_column": r.end.character + 1, "reason": self.reason}


@dataclass
class RenamePlan:
    target: Target
    new_name: str
    method: str  # "lsp" | "syntactic"
    complete: bool
    sites: list[Site] = field(default_factory=list)
    file_ops: list[FileEdits] = field(default_factory=list)  # create / delete / move, from the server
    docs: dict[str, TextDoc] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    unconfirmed: list[CodeHit] = field(default_factory=list)

    @property
    def old_name(self) -> str:
        return self.target.name

    def doc(self, ctx: ToolContext, rel: str) -> TextDoc:
        if rel not in self.docs:
            self.docs[rel] = ctx.workspace.read(rel)
        return self.docs[rel]

    def add(self, ctx: ToolContext, rel: str, rng: Range, new_text: str, reason: str) -> bool:
        """Add a replacement unless the same range is already planned. True if added."""
        self.doc(ctx, rel)
        if any(s.path == rel and s.range == rng for s in self.sites):
            return False
        self.sites.append(Site(rel, rng, new_text, reason))
        return True

    def files(self) -> list[str]:
        return sorted({s.path for s in self.sites})


class RenamePass(Protocol):
    """Completes a plan after the server's answer (stubs, `__all__` strings, hierarchies, ...)."""

    name: str

    def complete(self, ctx: ToolContext, plan: RenamePlan, session: LspSession | None) -> None: ...


def rename_passes(ctx: ToolContext) -> list[RenamePass]:
    """The passes this session runs on every rename plan, in order (append to register one)."""
    return ctx.service(_PASSES, list)


# -------------------------------------------------------------------------------- planning
def plan_rename(ctx: ToolContext, target: Target, new_name: str, *, allow_syntactic: bool = False) -> RenamePlan:
    check_identifier(new_name, target.language)
    if new_name == target.name:
        raise ToolFailure(f"new_name is the current name {target.name!r}; nothing to rename")
    if target.server is None:
        raise ToolFailure(f"{target.path}: no language server handles this kind of file")
    search = NameSearch(ctx, target.name, target.server).start()  # runs while the server answers
    session: LspSession | None = None
    try:
        session = session_for(ctx, target.server)
        from ..rename.adapter import engine_plan  # the rename engine completes the server's answer (issue 7)

        plan = engine_plan(ctx, session, target, new_name)
    except UNAVAILABLE as exc:
        session = None
        plan = _plan_syntactic(ctx, target, new_name, search, allow_syntactic, server_unavailable(exc))
    for rename_pass in rename_passes(ctx):
        rename_pass.complete(ctx, plan, session)
    if plan.method == "lsp":
        planned: dict[str, set[tuple[int, int]]] = {}
        for s in plan.sites:
            planned.setdefault(s.path, set()).add((s.range.start.line, s.range.start.character))
        scan = unconfirmed_hits(ctx, search, planned)
        plan.unconfirmed.extend(scan.hits)
        if scan.unchecked:
            plan.notes.append(f"the name is common: {scan.unchecked} more file(s) containing it were not "
                              "checked for unrenamed uses")
    return plan


def _plan_syntactic(ctx: ToolContext, target: Target, new_name: str, search: NameSearch, allow: bool,
                    why: str) -> RenamePlan:
    from ..syntax import local_occurrences

    occ = local_occurrences(target.doc.text, target.language, target.pos.line, target.pos.character)
    if occ is None or not occ.occurrences:
        raise ToolFailure(f"{why}\nand the syntax layer finds no identifier to rename at {target.location}")
    plan = RenamePlan(target, new_name, "syntactic", complete=False)
    plan.notes.append(f"{why}\nsyntactic rename (scope analysis without types): review the diff")
    for o in occ.occurrences:
        plan.add(ctx, target.path, Range(Position(o.line, o.column), Position(o.line, o.end_column)), new_name,
                 "syntactic")
    if occ.scope == "local":
        return plan
    others: dict[str, list[CodeHit]] = {}
    for rel in search.files():
        if rel != target.path:
            hits = code_hits(ctx, rel, target.name)
            if hits:
                others[rel] = hits
    if not others:
        return plan
    if not allow:
        listed = ", ".join(sorted(others)[:8]) + (", ..." if len(others) > 8 else "")
        raise ToolFailure(
            f"{why}\n{target.name!r} is a {'module-level' if occ.scope == 'module' else 'member'} name that also "
            f"appears in code in {len(others)} other file(s) ({listed}). Without a language server a "
            "cross-file rename cannot tell them apart, so it was refused; nothing was written. Install the "
            "server (`codeagent servers install`), or pass allow_syntactic=true to rename every same-named "
            "identifier in code in those files too."
        )
    plan.notes.append(f"allow_syntactic: every identifier {target.name!r} in code in {len(others)} other file(s) "
                      "is renamed too, without knowing whether it is the same symbol")
    for rel, hits in sorted(others.items()):
        for h in hits:
            plan.add(ctx, rel, Range(Position(h.line, h.column), Position(h.line, h.column + len(target.name))),
                     new_name, "syntactic-text")
    return plan


# -------------------------------------------------------------------------------- edits
def plan_edits(ctx: ToolContext, plan: RenamePlan) -> list[FileEdit]:
    """Whole-file edits for the plan (validated; each guarded by the hash the file was read with)."""
    texts: dict[str, str | None] = {}
    hashes: dict[str, str | None] = {}
    by_file: dict[str, list[TextChange]] = {}
    for s in plan.sites:
        by_file.setdefault(s.path, []).append(TextChange(s.range, s.new_text))
    for rel, changes in by_file.items():
        doc = plan.docs[rel]
        try:
            texts[rel] = apply_changes(doc.text, changes)
        except InvalidEdit as exc:
            raise ToolFailure(f"{rel}: the planned edits are inconsistent ({exc}); nothing was written") from exc
        hashes[rel] = doc.hash
    for op in plan.file_ops:
        _file_op(ctx, op, texts, hashes)
    return [FileEdit(rel, text, hashes.get(rel)) for rel, text in sorted(texts.items())]


def _file_op(ctx: ToolContext, op: FileEdits, texts: dict[str, str | None], hashes: dict[str, str | None]) -> None:
    rel = display_path(ctx, op.path)
    if op.kind == "create":
        if ctx.workspace.exists(rel):
            raise ToolFailure(f"the rename would create {rel}, which already exists; nothing was written")
        texts[rel] = apply_changes("", op.changes)
        hashes[rel] = None
    elif op.kind == "delete":
        texts[rel] = None
        hashes.setdefault(rel, ctx.workspace.read(rel).hash)
    elif op.kind == "rename" and op.new_path is not None:
        new_rel = display_path(ctx, op.new_path)
        if ctx.workspace.exists(new_rel):
            raise ToolFailure(f"the rename would move {rel} onto {new_rel}, which exists; nothing was written")
        current = texts.get(rel)
        if current is None:
            doc = ctx.workspace.read(rel)
            current, hashes[rel] = doc.text, doc.hash
        texts[new_rel] = apply_changes(current, op.changes) if op.changes else current
        hashes[new_rel] = None
        texts[rel] = None


# -------------------------------------------------------------------------------- the tool
def rename_symbol(ctx: ToolContext, target: Target, new_name: str, *, dry_run: bool,
                  allow_syntactic: bool, check_diagnostics: bool = True) -> ToolResult:
    plan = plan_rename(ctx, target, new_name, allow_syntactic=allow_syntactic)
    edits = plan_edits(ctx, plan)
    sites = [s.to_dict() for s in sorted(plan.sites, key=lambda s: (s.path, s.range))]
    reasons: dict[str, int] = {}
    for s in plan.sites:
        reasons[s.reason] = reasons.get(s.reason, 0) + 1
    unconfirmed = [{"path": h.path, "line": h.line + 1, "column": h.column + 1} for h in plan.unconfirmed]
    files = sorted(e.path for e in edits)
    summary = (f"{'would rename' if dry_run else 'renamed'} {plan.old_name} -> {new_name}: {len(plan.sites)} "
               f"site(s) in {len(files)} file(s) [{plan.method}{'' if plan.complete else ', incomplete'}]")
    extra = list(plan.notes)
    if unconfirmed:
        extra.append(f"same name, not renamed ({len(unconfirmed)}; review: dynamic access, a string, or another "
                     "symbol?):")
        extra.extend(f"  {u['path']}:{u['line']}:{u['column']}" for u in unconfirmed[:MAX_UNCONFIRMED])
    data: dict[str, Any] = {
        "old_name": plan.old_name, "new_name": new_name, "target": str(target.location), "method": plan.method,
        "complete": plan.complete, "sites": sites[:MAX_SITES_LISTED], "site_count": len(sites),
        "reasons": reasons, "unconfirmed": unconfirmed[:MAX_UNCONFIRMED], "unconfirmed_count": len(unconfirmed),
        "dry_run": dry_run,
    }
    if dry_run:
        diff = "".join(unified_diff(e.path, _before(plan, e.path), e.new_text) for e in edits)
        text = "\n".join([summary, *extra, bounded(diff, MAX_DIFF_CHARS)])
        return ToolResult.ok(text, files=files, diff=diff, **data)
    try:
        # the model reads each changed line once; the full diff is in data (and `--dry-run` shows it)
        result = commit(ctx, edits, operation=f"rename_symbol {plan.old_name} -> {new_name}",
                        summary="\n".join([summary, *extra]), show=changed_lines,
                        skip=() if check_diagnostics else ("diagnostics",))
    except OSError as exc:  # the workspace restored every file it had written before the failure
        raise ToolFailure(f"writing the rename failed ({exc}); every file was restored, nothing changed") from exc
    result.data.update(data)
    return result


def _before(plan: RenamePlan, rel: str) -> str | None:
    doc = plan.docs.get(rel)
    return doc.text if doc is not None else None
