"""find_implementations: implementations of an interface, abstract method or protocol, overrides
of a method, subclasses of a class. The server's `implementation` answer first; completed from the
syntax index (class headers) where it answers nothing, and always for a Python Protocol, whose
implementers are structural: a class implements it when it defines every member the protocol
declares, by name (signatures are not compared; the answer labels these hits)."""

from __future__ import annotations

from lsp_bridge.errors import NotReady

from ..errors import ToolFailure
from ..result import ToolResult
from ..toolcontext import ToolContext
from .class_tree import CLASS_KINDS, PROTOCOL_BASES, ClassInfo, ClassTree, bases_of
from .hits import Hit, group_hits
from .outlines import Outlines
from .sessions import UNAVAILABLE, server_unavailable, session_for
from .target import Target, display_path, inside_workspace


def find_implementations(ctx: ToolContext, target: Target) -> ToolResult:
    if target.server is None:
        raise ToolFailure(f"{target.path}: no language server handles this kind of file")
    outlines = Outlines(ctx)
    notes: list[str] = []
    try:
        session = session_for(ctx, target.server)
        found = session.implementation(target.real, target.pos)
        here = outlines.named_at(target.path, target.pos.line, target.name_start)
        # At a definition the outline names it; from a use, the server says where it is defined.
        definitions = [] if here is not None else session.definition(target.real, target.pos)
        source = "lsp"
    except NotReady as exc:
        raise ToolFailure(f"{exc}; try again when it has finished indexing") from exc
    except UNAVAILABLE as exc:
        found, definitions, source = [], [], "syntactic"
        notes.append(server_unavailable(exc))
    # Where the symbol is defined (the server's word, else the position itself if it is a definition).
    defs = [(display_path(ctx, d.path), d.range.start.line, d.range.start.character)
            for d in definitions if inside_workspace(ctx, d.path)]
    if not defs:
        defs = [(target.path, target.pos.line, target.name_start)]
    own = set(defs)
    hits = [Hit(display_path(ctx, loc.path), loc.range.start.line, loc.range.start.character, "", {"source": "lsp"})
            for loc in found]
    hits = [h for h in hits if (h.path, h.line0, h.col0) not in own]
    rel, line0, col0 = defs[0]
    sym = outlines.named_at(rel, line0, col0)
    if sym is not None and (not hits or _protocol_related(outlines, rel, sym.name_path)):
        extra = _syntactic(ClassTree(ctx), rel, sym.name_path, sym.kind)
        known = {(h.path, h.line0) for h in hits}
        added = [h for h in extra if (h.path, h.line0) not in known]
        if added:
            notes.append(f"{len(added)} found from class headers in the syntax index (the server did not list them)")
        hits += added
    grouped = group_hits(outlines, hits)
    what = sym.name_path if sym is not None else target.name
    head = f"{len(hits)} implementation(s)/override(s)/subclass(es) of {what} ({target.location})"
    out = [head, *notes, *grouped.lines]
    if not hits:
        out.append("(none found: nothing in the workspace implements, overrides or subclasses it)")
    if grouped.statement():
        out.append(grouped.statement())
    return ToolResult.ok("\n".join(out), symbol=what, target=str(target.location), source=source,
                         count=len(hits), files=grouped.files, left_out=grouped.left_out,
                         left_out_files=grouped.left_out_files)


def _protocol_related(outlines: Outlines, rel: str, name_path: str) -> bool:
    """The symbol is a Protocol class or one of its members (read from this file's outline only:
    the whole-workspace class scan runs only when it is needed)."""
    owners = {name_path, name_path.rpartition(".")[0]}
    return any(s.name_path in owners and s.kind in CLASS_KINDS and PROTOCOL_BASES.intersection(bases_of(s.signature))
               for s in outlines.symbols(rel))


def _syntactic(tree: ClassTree, rel: str, name_path: str, kind: str) -> list[Hit]:
    cls = tree.at(rel, name_path)
    if cls is not None:  # a class or interface: its subclasses (and structural implementers)
        hits = [Hit(c.path, c.line0, c.col0, "subclass" if d == 1 else f"subclass (level {d})", {"source": "syntax"})
                for c, d in tree.subclasses(cls)]
        if cls.is_protocol:
            hits += [Hit(c.path, c.line0, c.col0, "structural: defines " + ", ".join(sorted(_api(cls))),
                         {"source": "structural"}) for c in tree.structural(cls)]
        return hits
    owner_path, _, member = name_path.rpartition(".")
    owner = tree.at(rel, owner_path) if owner_path else None
    if owner is None or kind not in ("method", "function", "property", "field", "constant", "variable"):
        return []
    implementers: list[tuple[ClassInfo, str]] = [(c, "override") for c, _ in tree.subclasses(owner)]
    if owner.is_protocol:
        implementers += [(c, "structural") for c in tree.structural(owner)]
    out = []
    for c, why in implementers:
        if member in c.members:
            line0, col0 = c.members[member]
            out.append(Hit(c.path, line0, col0, why, {"source": "syntax" if why == "override" else why}))
    return out


def _api(cls: ClassInfo) -> set[str]:
    return {m for m in cls.members if not (m.startswith("__") and m.endswith("__"))}
