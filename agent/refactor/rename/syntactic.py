"""The rename without a language server: the syntax layer's scope analysis in the target's file
(incomplete: no types), and, only when asked (allow_syntactic), every same-named identifier in code
in the other files. A cross-file name is refused otherwise: text cannot tell two symbols apart."""

from __future__ import annotations

from lsp_bridge.types import Position, Range

from ...errors import ToolFailure
from ...semantic.name_occurrences import CodeHit, NameSearch, code_hits
from ...semantic.target import Target
from ...syntax import local_occurrences
from ...toolcontext import ToolContext
from ..plan import EditPlan


def plan_syntactic(ctx: ToolContext, target: Target, new_name: str, search: NameSearch, allow: bool,
                   why: str) -> EditPlan:
    occ = local_occurrences(target.doc.text, target.language, target.pos.line, target.pos.character)
    if occ is None or not occ.occurrences:
        raise ToolFailure(f"{why}\nand the syntax layer finds no identifier to rename at {target.location}")
    name = target.name
    plan = EditPlan("rename", name, new_name, target.language, method="syntactic", complete=False,
                    target=target.location, hashes={target.path: target.doc.hash})
    plan.notes.append(f"{why}\nsyntactic rename (scope analysis without types): review the diff")
    for o in occ.occurrences:
        plan.add(target.path, Range(Position(o.line, o.column), Position(o.line, o.end_column)), new_name,
                 "syntactic", name)
    if occ.scope == "local":
        return plan
    others: dict[str, list[CodeHit]] = {}
    for rel in search.files():
        if rel != target.path:
            hits = code_hits(ctx, rel, name)
            if hits:
                others[rel] = hits
    if not others:
        return plan
    if not allow:
        listed = ", ".join(sorted(others)[:8]) + (", ..." if len(others) > 8 else "")
        raise ToolFailure(
            f"{why}\n{name!r} is a {'module-level' if occ.scope == 'module' else 'member'} name that also "
            f"appears in code in {len(others)} other file(s) ({listed}). Without a language server a "
            "cross-file rename cannot tell them apart, so it was refused; nothing was written. Install the "
            "server (`codeagent servers install`), or pass allow_syntactic=true to rename every same-named "
            "identifier in code in those files too."
        )
    plan.notes.append(f"allow_syntactic: every identifier {name!r} in code in {len(others)} other file(s) "
                      "is renamed too, without knowing whether it is the same symbol")
    for rel, hits in sorted(others.items()):
        plan.hashes[rel] = ctx.workspace.read(rel).hash
        for h in hits:
            plan.add(rel, Range(Position(h.line, h.column), Position(h.line, h.column + len(name))),
                     new_name, "syntactic-text", name)
    return plan
