"""Planning a Python signature change: the target `def`, its family (the overrides in subclasses
and the base declarations, found through the server: rename/hierarchy.py), a `.pyi` declaration
beside it, and every call site the server reports for each of them, rewritten by parameter name
(calls.py). Anything that cannot follow the change is a conflict naming the site: the body still
uses a removed parameter, a call with `*args` / `**kwargs`, a reference that is not a call."""

from __future__ import annotations

import concurrent.futures
from collections.abc import Callable
from pathlib import Path

import tree_sitter as ts

from lsp_bridge import LspSession
from lsp_bridge.errors import BridgeError, NotReady
from lsp_bridge.types import FileLocation, Position, Range

from ...errors import ToolFailure
from ...semantic.name_occurrences import CodeHit, NameSearch, unconfirmed_hits
from ...semantic.sessions import UNAVAILABLE, server_unavailable, session_for
from ...semantic.target import Target
from ...toolcontext import ToolContext
from ..plan import EditPlan, ReviewItem, location_of
from ..rename.hierarchy import Hierarchy
from ..rename.pysource import PySource, ancestors, owner_class, text_of
from ..rename.sources import Sources
from ..stub_twin import twin
from .calls import Unsafe, rewrite
from .constructors import class_uses, derived_members
from .params import Param, params_of, parse_spec, render
from .params import merged as merged_params
from .receivers import unrelated_receiver

MAX_REFERENCE_REQUESTS = 200
MAX_UNTYPED_CHECKS = 100  # same-named method calls the server is asked about


def _decorators(func: ts.Node) -> set[str]:
    parent = func.parent
    if parent is None or parent.type != "decorated_definition":
        return set()
    return {text_of(d.named_children[0]).rsplit(".", 1)[-1] for d in parent.named_children
            if d.type == "decorator" and d.named_children}


def _where(plan_src: PySource, sources: Sources, node: ts.Node) -> str:
    pos = plan_src.position(node.start_point)
    return f"{sources.rel(plan_src.path)}:{pos.line + 1}:{pos.character + 1}"


def _body_uses(func: ts.Node, name: str) -> ts.Node | None:
    """The first use of `name` as a variable in the function's body (not `.name`, not `name=`)."""
    body = func.child_by_field_name("body")
    if body is None:
        return None
    stack = [body]
    while stack:
        node = stack.pop()
        if node.type == "identifier" and text_of(node) == name:
            parent = node.parent
            if parent is not None and parent.type == "attribute" and parent.child_by_field_name("attribute") == node:
                continue
            if parent is not None and parent.type == "keyword_argument" and parent.child_by_field_name("name") == node:
                continue
            return node
        stack.extend(reversed(node.children))
    return None


class SignaturePlanner:
    def __init__(self, ctx: ToolContext, session: LspSession, target: Target, spec: str, values: dict[str, str]):
        self.ctx = ctx
        self.session = session
        self.target = target
        self.spec = spec.strip()
        self.new = parse_spec(spec)
        self.values = values
        self.sources = Sources(ctx.workspace, suffixes=(".py", ".pyi"))
        self.plan = EditPlan("change_signature", target.name, self.spec, language="python")
        self.plan.target = target.location
        self.decls: dict[tuple[Path, int, int], tuple[PySource, ts.Node]] = {}
        self.seen: dict[str, set[tuple[int, int]]] = {}  # the server's references (for the review scan)
        self.calls: set[tuple[Path, int]] = set()  # argument lists planned (a call reached two ways counts once)

    # ------------------------------------------------------------------ the target and its family
    def target_def(self) -> tuple[PySource, ts.Node]:
        src = self.sources.parsed(self.target.real)
        ident = src.identifier_at(self.target.pos) if src is not None else None
        func = ident.parent if ident is not None else None
        if src is None or func is None or func.type != "function_definition" or func.child_by_field_name("name") != ident:
            raise ToolFailure(f"{self.target.location}: not the name of a function or method at its `def`")
        return src, func

    def family(self, src: PySource, func: ts.Node) -> list[tuple[PySource, ts.Node]]:
        cls = owner_class(func)
        if cls is None:
            return [(src, func)]
        hierarchy = Hierarchy(self.session, self.sources)
        found = hierarchy.family(src, cls, self.target.name)
        members = found.members
        if self.target.name == "__init__":  # constructors follow downwards only (constructors.py)
            members, found.external_bases = derived_members(hierarchy, src, cls, members), []
        out = [(src, func)]
        for member in members:
            node = member.ident.parent
            if node is not None and node.type == "function_definition" and node != func:
                out.append((member.src, node))
        for where in found.external_bases:
            self.plan.conflicts.append(f"{where} declares the method outside the workspace; its signature "
                                       "cannot change with it")
        return out

    def _key(self, src: PySource, func: ts.Node) -> tuple[Path, int, int]:
        name = func.child_by_field_name("name")
        assert name is not None
        return (src.path, name.start_point[0], name.start_point[1])

    # ------------------------------------------------------------------ planning
    def run(self) -> EditPlan:
        src, func = self.target_def()
        params = func.child_by_field_name("parameters")
        assert params is not None
        self.old = params_of(params)
        self.method = owner_class(func) is not None and "staticmethod" not in _decorators(func)
        self.classmethod = "classmethod" in _decorators(func)
        self._check_values()
        family = self.family(src, func)
        self.class_names = {text_of(c.child_by_field_name("name")) for s, f in family
                            if (c := owner_class(f)) is not None}
        for s, f in list(family):
            name = f.child_by_field_name("name")
            other = twin(self.sources, s, name) if name is not None else None
            if other is not None and other[1].parent is not None and other[1].parent.type == "function_definition":
                family.append((other[0], other[1].parent))  # the `.pyi` declaration beside it
        for s, f in family:
            self.decls[self._key(s, f)] = (s, f)
        for s, f in family:
            self._declaration(s, f, verbatim=(f == func))
        # The review's name search (ripgrep, then parsing the files) runs while the server answers
        # the first references request: a cold server's first answer is most of a change's time.
        self.search = NameSearch(self.ctx, self.target.name, "python")
        for requests, (s, f) in enumerate(list(self.decls.values())):
            if requests >= MAX_REFERENCE_REQUESTS:
                self.plan.conflicts.append("too many declarations to ask the server about; nothing was changed")
                break
            name = f.child_by_field_name("name")
            assert name is not None
            for loc in self._references(s.path, s.position(name.start_point), on_sent=self.search.start):
                self._reference(loc)
        if self.method and self.target.name == "__init__":
            self._constructor_calls(family)
        self._review()
        return self.plan

    def _constructor_calls(self, family: list[tuple[PySource, ts.Node]]) -> None:
        """`C(...)` for every class whose instances this `__init__` (or an override) creates."""
        classes = [(s, c) for s, f in family if s.path.suffix == ".py" and (c := owner_class(f)) is not None]
        uses, notes = class_uses(self.sources, classes, self._references)
        self.plan.conflicts.extend(notes)
        for use in uses:
            where = _where(use.src, self.sources, use.ident)
            if use.args is None:
                line = use.src.line_text(use.ident.start_point[0]).strip()
                self.plan.conflicts.append(
                    f"{where}: {line[:100]!r} uses the class {use.cls} without calling it (a class passed around, "
                    f"e.g. factory={use.cls}): the instances it creates cannot follow the new signature")
            elif (use.src.path, use.args.start_byte) not in self.calls:
                self._call(use.src, use.args, self.old[1:], self.new[1:], where)

    def _call(self, src: PySource, args: ts.Node, old: list[Param], new: list[Param], where: str) -> None:
        self.calls.add((src.path, args.start_byte))
        try:
            text = rewrite(args, old, new, self.values)
        except Unsafe as exc:
            self.plan.conflicts.append(f"{where}: this call cannot be rewritten safely: {exc}")
            return
        if text is not None:
            self._add(src, args, text, "call")

    def _check_values(self) -> None:
        old_names = {p.name for p in self.old}
        for name in self.values:
            if name not in {p.name for p in self.new} or name in old_names:
                raise ToolFailure(f"--value {name}=...: {name!r} is not a new parameter of {self.spec}")
        for p in self.new:
            if p.name not in old_names and not p.has_default and p.kind not in ("varargs", "varkw") \
                    and p.name not in self.values:
                raise ToolFailure(f"the new parameter {p.name!r} has no default: give --value {p.name}=EXPR, the "
                                  "argument every call site passes")

    def _declaration(self, src: PySource, func: ts.Node, *, verbatim: bool) -> None:
        params = func.child_by_field_name("parameters")
        assert params is not None
        own = params_of(params)
        new_names = {p.name for p in self.new}
        for p in own[1:] if self.method else own:
            if p.name in {q.name for q in self.old} and p.name not in new_names:
                use = _body_uses(func, p.name)
                if use is not None:
                    self.plan.conflicts.append(f"{_where(src, self.sources, use)}: the body still uses the removed "
                                               f"parameter {p.name!r}")
        same_module = src.path == self.target.real
        text = self.spec if verbatim else render(merged_params(own, self.old, self.new, annotate=same_module))
        old_text = text_of(params)
        if text != old_text:
            self._add(src, params, text, "signature" if verbatim else "override")

    def _add(self, src: PySource, node: ts.Node, text: str, reason: str) -> None:
        rel = self.sources.rel(src.path)
        entry = self.sources.read(src.path)
        if entry is not None:
            self.plan.hashes.setdefault(rel, entry[1])
        self.plan.add(rel, src.range(node), text, reason, old_text=text_of(node))

    def _references(self, path: Path, pos: Position, on_sent: Callable[[], object] | None = None) -> list[FileLocation]:
        try:
            return self.session.references(path, pos, False, on_sent=on_sent)
        except NotReady as exc:
            raise ToolFailure(f"{exc}; nothing was changed, try again when it has finished indexing") from exc
        except BridgeError as exc:
            raise ToolFailure(f"change_signature: the server failed to list references ({exc})") from exc

    def _reference(self, loc: FileLocation) -> None:
        if not self.sources.in_workspace(loc.path):
            return
        src = self.sources.parsed(loc.path)
        ident = src.identifier_at(loc.range.start) if src is not None else None
        if src is None or ident is None:
            return
        where = _where(src, self.sources, ident)
        self.seen.setdefault(self.sources.rel(src.path), set()).add((loc.range.start.line, loc.range.start.character))
        parent = ident.parent
        if parent is not None and parent.type == "function_definition" and parent.child_by_field_name("name") == ident:
            key = self._key(src, parent)
            if key not in self.decls:  # another declaration: a `.pyi` stub, an overload
                self.decls[key] = (src, parent)
                self._declaration(src, parent, verbatim=False)
            return
        if any(a.type in ("import_from_statement", "import_statement", "future_import_statement")
               for a in ancestors(ident)):
            return
        callee: ts.Node = ident
        receiver: ts.Node | None = None
        if parent is not None and parent.type == "attribute" and parent.child_by_field_name("attribute") == ident:
            callee, receiver = parent, parent.child_by_field_name("object")
        call = callee.parent
        if call is None or call.type != "call" or call.child_by_field_name("function") != callee:
            line = src.line_text(ident.start_point[0]).strip()
            self.plan.conflicts.append(f"{where}: {line[:100]!r} refers to {self.target.name} without calling it "
                                       "(a callback, partial(), a stored reference); its calls cannot be followed")
            return
        args = call.child_by_field_name("arguments")
        if args is None:
            return
        old, new = self.old, self.new
        if self.method and (self.classmethod or receiver is None or text_of(receiver) not in self.class_names):
            old, new = old[1:], new[1:]  # bound: self / cls is not among the arguments
        if (src.path, args.start_byte) not in self.calls:
            self._call(src, args, old, new, where)

    def _review(self) -> None:
        search = self.search.start()
        planned = {rel: set(starts) for rel, starts in self.seen.items()}
        for s, f in self.decls.values():
            name = f.child_by_field_name("name")
            assert name is not None
            pos = s.position(name.start_point)
            planned.setdefault(self.sources.rel(s.path), set()).add((pos.line, pos.character))
        scan = unconfirmed_hits(self.ctx, search, planned)
        asking = [hit for hit in scan.hits if self.method and self._untyped_candidate(hit.path, hit.line, hit.column)]
        asking = asking[:MAX_UNTYPED_CHECKS]
        # the questions go out together: the server answers one after the other, but our side of
        # each round trip (document sync, the disk scan) overlaps with its work
        with concurrent.futures.ThreadPoolExecutor(max_workers=4, thread_name_prefix="codeagent-untyped") as pool:
            typed = dict(zip([id(h) for h in asking], pool.map(self._has_definition, asking), strict=True))
        for hit in scan.hits:
            if typed.get(id(hit)) is False:
                src = self.sources.parsed(self.sources.root / hit.path)
                text = src.line_text(hit.line).strip()[:100] if src is not None else ""
                self.plan.conflicts.append(
                    f"{hit.path}:{hit.line + 1}:{hit.column + 1}: {text!r} calls .{self.target.name}() on a value the server cannot type: it might be this method, "
                    "and its arguments would not follow")
                continue
            at = location_of(hit.path, _point(hit.line, hit.column))
            self.plan.review.append(ReviewItem(at, "code", self.sources.line(self.sources.root / hit.path, hit.line)))
        self.plan.review_total = len(self.plan.review)

    def _untyped_candidate(self, rel: str, line: int, column: int) -> bool:
        """Whether this unconfirmed hit is `x.name(...)` on a receiver the syntax cannot rule out:
        the server is then asked whether it can type it (receivers.py lists what is ruled out)."""
        src = self.sources.parsed(self.sources.root / rel)
        ident = src.identifier_at(Position(line, column)) if src is not None else None
        attr = ident.parent if ident is not None else None
        if src is None or ident is None or attr is None or attr.type != "attribute" \
                or attr.child_by_field_name("attribute") != ident or attr.parent is None \
                or attr.parent.type != "call" or attr.parent.child_by_field_name("function") != attr:
            return False
        receiver = attr.child_by_field_name("object")
        return receiver is None or not unrelated_receiver(src, receiver, self.target.name, self.class_names)

    def _has_definition(self, hit: CodeHit) -> bool:
        """False (a conflict) when the server cannot say what `x.name` at this hit is: an untyped
        receiver might hold this method, and its arguments would not follow."""
        try:
            return bool(self.session.definition(self.sources.root / hit.path, Position(hit.line, hit.column)))
        except BridgeError:
            return True


def _point(line: int, column: int) -> Range:
    return Range(Position(line, column), Position(line, column))


def plan_python_signature(ctx: ToolContext, target: Target, spec: str, values: dict[str, str]) -> EditPlan:
    try:
        session = session_for(ctx, "python")
        return SignaturePlanner(ctx, session, target, spec, values).run()
    except UNAVAILABLE as exc:
        raise ToolFailure(f"change_signature needs the Python language server: {server_unavailable(exc)}") from exc


__all__ = ["Param", "plan_python_signature"]
