"""Planning a TypeScript signature change: the target function or method, the overriding methods
of subclasses (`extends`, resolved through the server's go-to-definition), and every call site the
server reports, rewritten by parameter name. TypeScript passes arguments by position only: a
removed parameter's argument goes, reordered ones follow, a new one takes --value (or `undefined`
when an optional one is skipped before a later argument). Spread arguments and references that are
not calls refuse the change, naming the site."""

from __future__ import annotations

from pathlib import Path

import tree_sitter as ts

from lsp_bridge import LspSession
from lsp_bridge.errors import BridgeError, NotReady
from lsp_bridge.types import FileLocation, Position

from ...errors import ToolFailure
from ...semantic.sessions import UNAVAILABLE, server_unavailable, session_for
from ...semantic.target import Target
from ...syntax.languages import error_nodes, parse
from ...toolcontext import ToolContext
from ..plan import EditPlan
from ..rename.pysource import PySource, ancestors, text_of
from ..rename.sources import Sources
from .calls import Unsafe
from .params import Param
from .ts_constructors import CLASSES, class_uses

SUFFIXES = (".ts", ".tsx", ".mts", ".cts")
_FUNCS = ("function_declaration", "method_definition", "function_signature", "method_signature")
_NAMES = ("identifier", "property_identifier")
MAX_CLASSES = 300


class TsSource(PySource):
    """A TypeScript file's text and tree, with PySource's position conversions."""

    def __init__(self, path: Path, text: str):  # noqa: D107 - PySource parses Python; this parses TS
        self.path = path
        self.text = text
        self.lines = text.split("\n")
        self.tree = parse(text, "tsx" if path.suffix == ".tsx" else "typescript")
        self._encoded: dict[int, bytes] = {}

    def name_at(self, pos: Position) -> ts.Node | None:
        col = self.byte_col(pos.line, pos.character)
        node = self.tree.root_node.named_descendant_for_point_range((pos.line, col), (pos.line, col))
        return node if node is not None and node.type in _NAMES else None


def ts_params(formal: ts.Node) -> list[Param]:
    out: list[Param] = []
    for child in formal.named_children:
        if child.type not in ("required_parameter", "optional_parameter"):
            continue
        pattern = child.child_by_field_name("pattern") or child.named_children[0]
        if pattern.type == "rest_pattern":
            out.append(Param(text_of(pattern.named_children[0]), "varargs", False, text_of(child)))
            continue
        if pattern.type != "identifier":
            raise ToolFailure(f"a destructured parameter ({text_of(child)!r}) cannot be matched by name")
        optional = child.type == "optional_parameter" or child.child_by_field_name("value") is not None
        out.append(Param(text_of(pattern), "normal", optional, text_of(child)))
    return out


def parse_ts_spec(spec: str, language: str) -> list[Param]:
    body = spec.strip()
    if not (body.startswith("(") and body.endswith(")")):
        raise ToolFailure(f"the new parameter list must be parenthesized, e.g. \"(a: string, opts?: Options)\": {spec!r}")
    tree = parse(f"function _f{body} {{}}\n", language)
    func = tree.root_node.named_children[0] if tree.root_node.named_children else None
    formal = func.child_by_field_name("parameters") if func is not None else None
    if error_nodes(tree) or formal is None:
        raise ToolFailure(f"the new parameter list is not valid TypeScript: {spec!r}")
    return ts_params(formal)


def rewrite_ts(args: ts.Node, old: list[Param], new: list[Param], values: dict[str, str]) -> str | None:
    given: list[str] = []
    for child in args.named_children:
        if child.type == "comment":
            raise Unsafe("a comment inside the arguments would be lost")
        if child.type == "spread_element":
            raise Unsafe(f"`{text_of(child)}` passes arguments that cannot be matched to parameters")
        given.append(text_of(child))
    fixed = [p for p in old if p.kind != "varargs"]
    by_name = {p.name: given[i] for i, p in enumerate(fixed) if i < len(given)}
    rest = given[len(fixed):]
    if rest and not any(p.kind == "varargs" for p in new):
        raise Unsafe("arguments passed to the removed rest parameter")
    old_names = {p.name for p in old}
    out: list[str | None] = []
    for p in new:
        if p.kind == "varargs":
            continue
        if p.name in by_name:
            out.append(by_name[p.name])
        elif p.name not in old_names and p.name in values:
            out.append(values[p.name])
        else:
            out.append(None)
    while out and out[-1] is None:
        out.pop()
    if rest and len(out) < len([p for p in new if p.kind != "varargs"]):
        out.extend([None] * (len([p for p in new if p.kind != "varargs"]) - len(out)))
    parts = [text if text is not None else "undefined" for text in out] + rest
    if parts == given:
        return None
    return "(" + ", ".join(parts) + ")"


class TsPlanner:
    def __init__(self, ctx: ToolContext, session: LspSession, target: Target, spec: str, values: dict[str, str]):
        self.ctx, self.session, self.target, self.values = ctx, session, target, values
        self.spec = spec.strip()
        self.new = parse_ts_spec(spec, "tsx" if target.path.endswith(".tsx") else "typescript")
        self.sources = Sources(ctx.workspace, suffixes=SUFFIXES)
        self._parsed: dict[Path, TsSource | None] = {}
        self.plan = EditPlan("change_signature", target.name, self.spec, language="typescript")
        self.plan.target = target.location
        self.decls: dict[tuple[Path, int, int], tuple[TsSource, ts.Node]] = {}

    def parsed(self, path: Path) -> TsSource | None:
        if path not in self._parsed:
            text = self.sources.text(path)
            self._parsed[path] = TsSource(path, text) if text is not None else None
        return self._parsed[path]

    def run(self) -> EditPlan:
        src = self.parsed(self.target.real)
        name = src.name_at(self.target.pos) if src is not None else None
        func = name.parent if name is not None else None
        if src is None or func is None or func.type not in _FUNCS or func.child_by_field_name("name") != name:
            raise ToolFailure(f"{self.target.location}: not the name of a function or method at its declaration")
        formal = func.child_by_field_name("parameters")
        assert formal is not None
        self.old = ts_params(formal)
        old_names = {p.name for p in self.old}
        for n in self.values:
            if n in old_names or n not in {p.name for p in self.new}:
                raise ToolFailure(f"--value {n}=...: {n!r} is not a new parameter of {self.spec}")
        for p in self.new:
            if p.name not in old_names and not p.has_default and p.kind != "varargs" and p.name not in self.values:
                raise ToolFailure(f"the new parameter {p.name!r} is required: give --value {p.name}=EXPR, or make it "
                                  "optional")
        self._declaration(src, func, verbatim=True)
        if func.type == "method_definition":
            for sub_src, sub in self._overrides(src, func):
                self._declaration(sub_src, sub, verbatim=False)
        if func.type == "method_definition" and self.target.name == "constructor":
            self._constructor_calls()  # `new C(...)` and `super(...)`: ts_constructors.py
            return self.plan
        for s, f in list(self.decls.values()):
            fname = f.child_by_field_name("name")
            assert fname is not None
            for loc in self._ask("references", s.path, s.position(fname.start_point)):
                self._reference(loc)
        return self.plan

    def _constructor_calls(self) -> None:
        classes = [(s, c) for s, f in self.decls.values()
                   if (c := next((a for a in ancestors(f) if a.type in CLASSES), None)) is not None]
        uses, notes = class_uses(classes, self.parsed, self.sources.in_workspace,
                                 lambda path, pos: self._ask("references", path, pos))
        self.plan.conflicts.extend(notes)
        planned: set[tuple[Path, int]] = set()
        for use in uses:
            src = self.parsed(use.src.path)  # the same parsed file, typed as this module's TsSource
            assert src is not None
            pos = src.position(use.node.start_point)
            where = f"{self.sources.rel(src.path)}:{pos.line + 1}:{pos.character + 1}"
            if use.args is None:
                line = src.line_text(pos.line).strip()
                self.plan.conflicts.append(f"{where}: {line[:100]!r} uses the class {use.cls} without `new` (a class "
                                           "passed around): the instances it creates cannot follow the new signature")
                continue
            if (src.path, use.args.start_byte) in planned or use.args.type != "arguments":
                continue
            planned.add((src.path, use.args.start_byte))
            try:
                text = rewrite_ts(use.args, self.old, self.new, self.values)
            except Unsafe as exc:
                self.plan.conflicts.append(f"{where}: this call cannot be rewritten safely: {exc}")
                continue
            if text is not None:
                self._add(src, use.args, text, "call")

    def _ask(self, what: str, path: Path, pos: Position) -> list[FileLocation]:
        try:
            if what == "references":
                return self.session.references(path, pos, False)
            return self.session.definition(path, pos)
        except NotReady as exc:
            raise ToolFailure(f"{exc}; nothing was changed, try again when it has finished indexing") from exc
        except BridgeError as exc:
            raise ToolFailure(f"change_signature: the server failed ({exc})") from exc

    def _key(self, src: TsSource, func: ts.Node) -> tuple[Path, int, int]:
        return (src.path, func.start_point[0], func.start_point[1])

    def _declaration(self, src: TsSource, func: ts.Node, *, verbatim: bool) -> None:
        self.decls[self._key(src, func)] = (src, func)
        formal = func.child_by_field_name("parameters")
        assert formal is not None
        own = ts_params(formal)
        new_names = {p.name for p in self.new}
        body = func.child_by_field_name("body")
        for p in own:
            if p.name not in new_names and body is not None:
                use = _first_use(body, p.name)
                if use is not None:
                    pos = src.position(use.start_point)
                    self.plan.conflicts.append(f"{self.sources.rel(src.path)}:{pos.line + 1}:{pos.character + 1}: the "
                                               f"body still uses the removed parameter {p.name!r}")
        if verbatim:
            text = self.spec
        else:
            mine = {p.name: p for p in own}
            text = "(" + ", ".join(mine[p.name].text if p.name in mine else p.text for p in self.new) + ")"
        if text != text_of(formal):
            self._add(src, formal, text, "signature" if verbatim else "override")

    def _add(self, src: TsSource, node: ts.Node, text: str, reason: str) -> None:
        rel = self.sources.rel(src.path)
        entry = self.sources.read(src.path)
        if entry is not None:
            self.plan.hashes.setdefault(rel, entry[1])
        self.plan.add(rel, src.range(node), text, reason, old_text=text_of(node))

    def _overrides(self, src: TsSource, func: ts.Node) -> list[tuple[TsSource, ts.Node]]:
        cls = next((a for a in ancestors(func) if a.type in ("class_declaration", "abstract_class_declaration")), None)
        if cls is None:
            return []
        family = [(src, cls)]
        out: list[tuple[TsSource, ts.Node]] = []
        seen = {self._key(src, cls)}
        asked = 0
        i = 0
        while i < len(family) and asked < MAX_CLASSES:
            base_src, base = family[i]
            i += 1
            base_name = base.child_by_field_name("name")
            if base_name is None:
                continue
            for path in self.sources.files_containing(text_of(base_name)):
                cand_src = self.parsed(path)
                if cand_src is None:
                    continue
                for heritage in _captured_extends(cand_src.tree.root_node, text_of(base_name)):
                    asked += 1
                    sub = next(a for a in ancestors(heritage) if a.type in ("class_declaration",
                                                                            "abstract_class_declaration"))
                    if self._key(cand_src, sub) in seen:
                        continue
                    locs = self._ask("definition", cand_src.path, cand_src.position(heritage.start_point))
                    if not any(Path(loc.path) == base_src.path and loc.range.start.line == base_name.start_point[0]
                               for loc in locs):
                        continue
                    seen.add(self._key(cand_src, sub))
                    family.append((cand_src, sub))
                    out.extend((cand_src, m) for m in _methods(sub, self.target.name))
        return out

    def _reference(self, loc: FileLocation) -> None:
        if not self.sources.in_workspace(loc.path):
            return
        src = self.parsed(loc.path)
        node = src.name_at(loc.range.start) if src is not None else None
        if src is None or node is None:
            return
        where = f"{self.sources.rel(src.path)}:{loc.range.start.line + 1}:{loc.range.start.character + 1}"
        parent = node.parent
        if parent is not None and parent.type in _FUNCS and parent.child_by_field_name("name") == node:
            if self._key(src, parent) not in self.decls:  # an overload or another declaration
                self._declaration(src, parent, verbatim=False)
            return
        if any(a.type in ("import_statement", "export_clause", "import_clause") for a in ancestors(node)):
            return
        callee = parent if parent is not None and parent.type == "member_expression" else node
        call = callee.parent
        if call is None or call.type != "call_expression" or call.child_by_field_name("function") != callee:
            line = src.line_text(loc.range.start.line).strip()
            self.plan.conflicts.append(f"{where}: {line[:100]!r} refers to {self.target.name} without calling it; "
                                       "its calls cannot be followed")
            return
        args = call.child_by_field_name("arguments")
        if args is None or args.type != "arguments":
            return
        try:
            text = rewrite_ts(args, self.old, self.new, self.values)
        except Unsafe as exc:
            self.plan.conflicts.append(f"{where}: this call cannot be rewritten safely: {exc}")
            return
        if text is not None:
            self._add(src, args, text, "call")


def _first_use(body: ts.Node, name: str) -> ts.Node | None:
    stack = [body]
    while stack:
        node = stack.pop()
        if node.type in ("identifier", "shorthand_property_identifier") and text_of(node) == name:
            return node
        stack.extend(reversed(node.children))
    return None


def _captured_extends(root: ts.Node, base: str) -> list[ts.Node]:
    out: list[ts.Node] = []
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type == "extends_clause":
            value = node.child_by_field_name("value") or (node.named_children[0] if node.named_children else None)
            if value is not None:
                ident = value if value.type == "identifier" else value.child_by_field_name("property")
                if ident is not None and text_of(ident) == base:
                    out.append(ident)
        stack.extend(node.children)
    return out


def _methods(cls: ts.Node, name: str) -> list[ts.Node]:
    body = cls.child_by_field_name("body")
    if body is None:
        return []
    return [m for m in body.named_children if m.type in ("method_definition", "method_signature")
            and text_of(m.child_by_field_name("name")) == name]


def plan_ts_signature(ctx: ToolContext, target: Target, spec: str, values: dict[str, str]) -> EditPlan:
    try:
        session = session_for(ctx, "typescript")
        return TsPlanner(ctx, session, target, spec, values).run()
    except UNAVAILABLE as exc:
        raise ToolFailure(f"change_signature needs the TypeScript language server: {server_unavailable(exc)}") from exc
