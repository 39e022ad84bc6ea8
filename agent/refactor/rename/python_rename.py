"""The Python flow of the rename engine: find the declaration, take the server's answer, then
complete it: stub/implementation counterparts, method families, parameters of counterparts,
`__all__`/`__slots__`/attribute-name strings, receivers typed as the owning class, code held in
strings, and import aliases renamed as the local names they are."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import tree_sitter as ts

from lsp_bridge.errors import BridgeError, RenameRefused
from lsp_bridge.pyright_scope import hidden_by_config
from lsp_bridge.sync import MAX_HIDDEN_OPEN
from lsp_bridge.types import FileEdits, FileLocation, Position, Range

from ...syntax import local_occurrences
from ..plan import EditPlan
from .builtin_members import builtin_member_names
from .collector import Collector
from .embedded import embedded_sites
from .hierarchy import ClassRef, Hierarchy, class_ref
from .limits import RenameLimits
from .passes import (
    all_entries,
    class_strings,
    copy_with_changes,
    label_keyword_arguments,
    label_name_lists,
    receiver_types,
)
from .pysource import (
    Declared,
    PySource,
    class_body_members,
    classes,
    classify,
    module_level_binding,
    text_of,
)
from .pystrings import annotation_names
from .server import SemanticServer, TypeDefinitionServer, references_as_edits, refuse_outside
from .sources import Sources
from .stubs import MEMBER_KINDS, MODULE_KINDS, StubPairs, param_of


class PythonRename:
    """The Python flow: declaration, completion passes, aliases (see the module docstring)."""

    def __init__(self, server: SemanticServer, sources: Sources, plan: EditPlan, coll: Collector,
                 limits: RenameLimits):
        self.server = server
        self.sources = sources
        self.plan = plan
        self.coll = coll
        self.limits = limits
        self.name = plan.old_name
        self.new = plan.new_name
        self.stubs = StubPairs(server, sources, max_requests=limits.definition_requests)
        self.hier = Hierarchy(server, sources, max_requests=limits.definition_requests)
        self.seeded: set[tuple[Path, Position]] = set()
        self.seed_requests = 0
        self.review_only: Path | None = None  # a local name: other files cannot refer to it
        self.references_only = plan.new_name == plan.old_name
        self.embedded_review: list[tuple[Path, Position]] = []
        self.family_refs: set[ClassRef] = set()  # classes declaring the renamed member
        self.decl_kind = ""

    # ------------------------------------------------------------------ flow
    def run(self, path: Path, pos: Position, initial: list[FileEdits] | None) -> None:
        src = self.sources.parsed(path)
        assert src is not None  # plan_rename read it
        ident = src.identifier_at(pos)
        if self.widen_scope(path):
            initial = None  # computed before the files outside the checker's scope were opened
        refused: RenameRefused | None = None
        primary: list[FileEdits] = []
        try:
            primary = initial if initial is not None else self.answer(path, pos)
        except RenameRefused as exc:
            refused = exc
        if ident is None:  # not a Python identifier token (e.g. inside a string): the server decides
            if refused is not None:
                raise refused
            self.coll.add_file_edits(primary, "lsp")
            return
        decl_src, decl = self.declaration(src, ident)
        self.seeded.add((decl_src.path, decl_src.position(decl.node.start_point)))
        if decl.kind in ("alias", "local"):
            self.review_only = decl_src.path
        if decl.kind == "alias":
            self.alias(decl_src, decl, primary)
            return
        if refused is not None:
            raise refused
        if not self.references_only:
            refuse_outside(self.sources, primary, self.name)
        self.coll.add_file_edits(primary, "lsp")
        self.complete(decl_src, decl)

    def answer(self, path: Path, pos: Position) -> list[FileEdits]:
        """The server's rename answer at `pos` (references mode: its references, as edits that
        keep the name)."""
        if not self.references_only:
            return self.server.rename(path, pos, self.new)
        return references_as_edits(self.server, path, pos, self.new)

    def widen_scope(self, path: Path) -> bool:
        """Open the files the project's pyright config leaves out that mention the name — unless the
        bridge's session already opened every such file when it started (it does up to a bound)."""
        opened_all = getattr(self.server, "hidden_files", None)
        if isinstance(opened_all, int):
            self.server.sync(path)  # starts the server, which opens the files the config hides
            hidden: int = self.server.hidden_files  # type: ignore[attr-defined]
            if hidden <= MAX_HIDDEN_OPEN:
                if hidden:
                    self.plan.notes.append(f"{hidden} file(s) outside the project's pyright include were "
                                           "searched too (opened in the server)")
                return False

        def mentioning() -> Iterator[Path]:  # read only when a pyright config narrows the scope
            yield from self.sources.files_containing(self.name)

        extra = hidden_by_config(self.sources.root, mentioning())
        for path in extra[: self.limits.opened_files]:
            try:
                self.server.sync(path)
            except BridgeError as exc:
                self.plan.notes.append(f"could not open {path} in the server: {exc}")
        if len(extra) > self.limits.opened_files:
            self.plan.notes.append(
                f"{len(extra)} files outside the project's pyright include mention {self.name!r}; only the "
                f"first {self.limits.opened_files} were brought into scope")
        elif extra:
            self.plan.notes.append(f"brought {len(extra)} file(s) outside the project's pyright include into scope")
        return bool(extra)

    def declaration(self, src: PySource, ident: ts.Node) -> tuple[PySource, Declared]:
        """Where the target is declared: the target itself, or the workspace declaration the
        server points to (source preferred over stub), or a local binding (aliases)."""
        pos = src.position(ident.start_point)
        try:
            locs = self.server.definition(src.path, pos)
        except BridgeError:
            locs = []
        if any(loc.path == src.path and loc.range.start == pos for loc in locs):
            return src, classify(ident)
        for loc in sorted(locs, key=lambda loc: loc.path.suffix == ".pyi"):
            if not self.sources.in_workspace(loc.path):
                continue
            other = self.sources.parsed(loc.path)
            node = other.identifier_at(loc.range.start) if other is not None else None
            if other is not None and node is not None and text_of(node) == self.name:
                return other, classify(node)
        occ = local_occurrences(src.text, "python", pos.line, pos.character)
        if occ is not None:
            for o in occ.occurrences:
                node = src.identifier_at(Position(o.line, o.column)) if o.is_definition else None
                if node is not None and classify(node).kind == "alias":
                    return src, classify(node)
        return src, classify(ident)

    def complete(self, src: PySource, decl: Declared) -> None:
        if src.path.suffix == ".pyi":
            src, decl = self.implementation(src, decl)
        kind = self.decl_kind = decl.kind
        owners: list[tuple[PySource, ts.Node]] = []
        if kind in MEMBER_KINDS and decl.class_node is not None:
            family = self.hier.family(src, decl.class_node, self.name)
            members = [(m.src, m.ident, m.cls) for m in family.members]
            if family.external_bases:
                self.plan.notes.append(
                    f"{self.name} overrides a member declared outside the workspace "
                    f"({', '.join(sorted(set(family.external_bases))[:3])}); that declaration keeps its name, "
                    "so the override relationship ends")
            for m_src, m_ident, m_cls in members:
                owners.append((m_src, m_cls))
                self.family_refs.add(class_ref(m_src, m_cls))
                if (m_src.path, m_src.position(m_ident.start_point)) != (src.path, src.position(decl.node.start_point)):
                    self.seed(m_src, m_ident, "hierarchy")
            for m_src, m_ident, m_cls in members:
                for s_src, s_ident in self.stubs.counterparts(m_src, classify(m_ident)):
                    self.seed(s_src, s_ident, "stub")
                cls_name = m_cls.child_by_field_name("name")
                if cls_name is not None:
                    for s_src, s_ident in self.stubs.counterparts(m_src, classify(cls_name)):
                        if s_ident.parent is not None:
                            owners.append((s_src, s_ident.parent))
                            self.family_refs.add(class_ref(s_src, s_ident.parent))
            class_strings(owners, self.coll, self.name)
            self.receivers(owners)
        elif kind in MODULE_KINDS:
            for s_src, s_ident in self.stubs.counterparts(src, decl):
                self.seed(s_src, s_ident, "stub")
        elif kind == "param" and decl.func_node is not None and decl.func_node.type == "function_definition":
            self.param(src, decl)
        label_keyword_arguments(self.sources, self.coll)
        if kind in MODULE_KINDS or kind in ("import", "module_var"):
            all_entries(self.sources, self.coll, self.name)
        label_name_lists(self.sources, self.coll)
        if kind not in ("local", "alias"):
            derives = self.family_base if self.family_refs else None
            self.embedded_review = embedded_sites(self.sources, self.coll, self.name, derives)

    def implementation(self, src: PySource, decl: Declared) -> tuple[PySource, Declared]:
        """A stub declaration's source counterpart (seeded), from which families are followed;
        the stub itself when the source is not in the workspace."""
        if decl.kind == "param" and decl.func_node is not None:
            for impl_src, impl_func in self.stubs.function_counterparts(src, decl.func_node):
                ident = param_of(impl_func, self.name)
                if ident is not None:
                    self.seed(impl_src, ident, "stub")
                    return impl_src, classify(ident)
            return src, decl
        for impl_src, impl_ident in self.stubs.counterparts(src, decl):
            self.seed(impl_src, impl_ident, "stub")
            return impl_src, classify(impl_ident)
        return src, decl

    def param(self, src: PySource, decl: Declared) -> None:
        func = decl.func_node
        assert func is not None
        funcs: list[tuple[PySource, ts.Node, str]] = [(src, func, "lsp")]
        fname = func.child_by_field_name("name")
        if decl.class_node is not None and fname is not None:
            family = self.hier.family(src, decl.class_node, text_of(fname))
            for m in family.members[1:]:
                if m.ident.parent is not None and m.ident.parent.type == "function_definition":
                    funcs.append((m.src, m.ident.parent, "hierarchy"))
        for f_src, f_node, _reason in list(funcs):
            for s_src, s_func in self.stubs.function_counterparts(f_src, f_node):
                funcs.append((s_src, s_func, "stub"))
        for f_src, f_node, reason in funcs[1:]:
            ident = param_of(f_node, self.name)
            if ident is not None:
                self.seed(f_src, ident, reason)

    def seed(self, src: PySource, ident: ts.Node, reason: str) -> None:
        """Rename from another declaration of the same thing; its answer joins the plan."""
        pos = src.position(ident.start_point)
        key = (src.path, pos)
        if key in self.seeded:
            return
        self.seeded.add(key)
        self.coll.add(src.path, src.range(ident), reason)
        if self.seed_requests >= self.limits.seed_requests:
            note = f"stopped asking the server from counterparts after {self.seed_requests} requests"
            if note not in self.plan.notes:
                self.plan.notes.append(note)
            return
        self.seed_requests += 1
        try:
            self.coll.add_file_edits(self.answer(src.path, pos), reason)
            return
        except RenameRefused:
            pass
        except BridgeError as exc:
            self.plan.notes.append(f"{src.path}:{pos.line + 1}: the server failed ({exc}); used references")
        try:
            for loc in self.server.references(src.path, pos, True):
                if self._token_is_name(loc):
                    self.coll.add_location(loc, reason)
        except BridgeError as exc:
            self.plan.notes.append(f"{src.path}:{pos.line + 1}: no references from the server ({exc})")

    def _token_is_name(self, loc: FileLocation) -> bool:
        text = self.sources.text(loc.path)
        if text is None:
            return False
        lines = text.split("\n")
        rng = loc.range
        return rng.start.line < len(lines) and lines[rng.start.line][rng.start.character:rng.end.character] == self.name

    def receivers(self, owners: list[tuple[PySource, ts.Node]]) -> None:
        if not isinstance(self.server, TypeDefinitionServer):
            return
        classes: set[tuple[Path, Position]] = set()
        refs: set[ClassRef] = set()
        for o_src, cls in owners:
            name = cls.child_by_field_name("name")
            if name is not None:
                classes.add((o_src.path, o_src.position(name.start_point)))
                refs.add(class_ref(o_src, cls))

        def is_owner(loc: FileLocation) -> bool:
            if (loc.path, loc.range.start) in classes:
                return True
            hit = self.hier.class_at(loc)  # a subclass of an owner reads the same attribute
            return hit is not None and self.hier.derives(hit[0], hit[1], refs)

        if self.decl_kind in ("class_attr", "attribute"):
            copy_with_changes(self.server, self.sources, self.coll, self.name, is_owner,
                              limit=self.limits.receiver_checks)
        untyped_ok = self.name not in builtin_member_names() and not self._declared_elsewhere(classes)
        if not untyped_ok and not any(o_src.path.suffix == ".pyi" for o_src, _cls in owners):
            return  # the server links every access typed as a source class itself
        _added, checked = receiver_types(self.server, self.sources, self.coll, self.name, is_owner,
                                         untyped_ok=untyped_ok, limit=self.limits.receiver_checks)
        if checked >= self.limits.receiver_checks:
            self.plan.notes.append(f"checked the receivers of only the first {checked} unconfirmed `.{self.name}` accesses")

    def family_base(self, src: PySource, base: str) -> bool:
        """Does `base`, a name bound at module level in `src`, name a class of the member's family
        (or a subclass of one)?"""
        for ident in src.identifiers(base):
            if not module_level_binding(ident):
                continue
            try:
                locs = self.server.definition(src.path, src.position(ident.start_point))
            except BridgeError:
                continue
            for loc in locs:
                hit = self.hier.class_at(loc)
                if hit is not None and (class_ref(*hit) in self.family_refs
                                        or self.hier.derives(hit[0], hit[1], self.family_refs)):
                    return True
        return False

    def _declared_elsewhere(self, owners: set[tuple[Path, Position]]) -> bool:
        """Does a class outside the family (and its stubs) declare a member with this name?"""
        for path in self.sources.files_declaring(self.name):
            src = self.sources.parsed(path)
            if src is None:
                continue
            for cls in classes(src.tree.root_node):
                name = cls.child_by_field_name("name")
                if name is None or (path, src.position(name.start_point)) in owners:
                    continue
                if class_body_members(cls, self.name):
                    return True
        return False

    # ------------------------------------------------------------------ aliases
    def alias(self, src: PySource, decl: Declared, primary: list[FileEdits]) -> None:
        """An import alias is a local name: its occurrences in its file; elsewhere only accesses
        through this module (`mod.alias`, `from mod import alias`) from the server's answer."""
        pos = src.position(decl.node.start_point)
        occ = local_occurrences(src.text, "python", pos.line, pos.character)
        self.coll.add_node(src, decl.node, "alias")
        for o in occ.occurrences if occ is not None else []:
            self.coll.add(src.path, Range(Position(o.line, o.column), Position(o.line, o.end_column)), "alias")
        if occ is not None and occ.scope == "module":
            for rng in annotation_names(src, self.name):  # "co.Counter[str]": annotations are code
                self.coll.add(src.path, rng, "alias")
        for fe in primary:
            if fe.kind != "edit":
                continue
            other = self.sources.parsed(fe.path)
            if other is None:
                continue
            for change in fe.changes:
                node = other.identifier_at(change.range.start)
                if node is None or text_of(node) != self.name:
                    continue  # the server renaming what the alias stands for, not the alias
                if fe.path == src.path:
                    self.coll.add(fe.path, change.range, "alias", change.new_text)
                elif _qualified_use(node):
                    self.coll.add(fe.path, change.range, "lsp", change.new_text)


def _qualified_use(ident: ts.Node) -> bool:
    """`x.name` (attribute access) or the imported name of `from m import name [as y]`."""
    parent = ident.parent
    if parent is None:
        return False
    if parent.type == "attribute":
        return parent.child_by_field_name("attribute") == ident
    if parent.type == "dotted_name" and len(parent.named_children) == 1:
        holder = parent.parent
        if holder is not None and holder.type == "aliased_import":
            holder = holder.parent if holder.child_by_field_name("name") == parent else None
        return holder is not None and holder.type == "import_from_statement" and \
            holder.child_by_field_name("module_name") != parent
    return False
