"""Move a top-level TypeScript function (with its overloads), class, interface, type, enum or
`const` to another module. The declaration leaves the source with the comments attached above
it; DEST gets the imports it needs (the source's import declarations re-pathed, and the source's
own exports it still uses); non-exported helpers only it uses move along; what stays imports it
back. Named imports and `export {..} from` of it are re-pathed in every file (type-only kept),
and a barrel's `export * from SOURCE` gets an `export * from DEST` beside it. The syntax is read
with tree-sitter. ES module cycles are legal (hoisted declarations), so none is refused here."""

from __future__ import annotations

import ast
import posixpath
import re
from dataclasses import dataclass

import tree_sitter as ts

from ...syntax.languages import language_for, parse
from ...walk import iter_files
from ...workspace import Workspace
from ..plan import EditPlan
from .edits import FileChanges, SourceFile
from .pyblock import MoveRefused

SUFFIXES = (".ts", ".tsx", ".mts", ".cts")
DECLS = {"function_declaration", "function_signature", "class_declaration", "abstract_class_declaration",
         "interface_declaration", "type_alias_declaration", "enum_declaration", "lexical_declaration",
         "variable_declaration"}
MAX_FILES = 20000


@dataclass
class TsFile:
    src: SourceFile  # text, offsets and the Site conversion (the Python tree is empty)
    tree: ts.Tree
    data: bytes

    def char(self, byte: int) -> int:
        return byte if self.src.text.isascii() else len(self.data[:byte].decode("utf-8", "replace"))

    def span(self, node: ts.Node) -> tuple[int, int]:
        return self.char(node.start_byte), self.char(node.end_byte)

    def text(self, node: ts.Node) -> str:
        return self.data[node.start_byte:node.end_byte].decode("utf-8", "replace")


def _read(ws: Workspace, rel: str) -> TsFile:
    doc = ws.read(rel)
    language = language_for(rel) or "typescript"
    return TsFile(SourceFile(rel, doc.text, ast.Module(body=[], type_ignores=[]), doc.hash),
                  parse(doc.text, language), doc.text.encode("utf-8"))


def declared(node: ts.Node) -> tuple[str | None, ts.Node]:
    """(the name a top-level statement declares, its declaration node)."""
    decl = node
    if node.type == "export_statement":
        inner = node.child_by_field_name("declaration")
        if inner is None:
            return None, node
        decl = inner
    if decl.type not in DECLS:
        return None, decl
    if decl.type in ("lexical_declaration", "variable_declaration"):
        declarators = [c for c in decl.named_children if c.type == "variable_declarator"]
        name = declarators[0].child_by_field_name("name") if len(declarators) == 1 else None
    else:
        name = decl.child_by_field_name("name")
    return (name.text.decode() if name is not None and name.text else None), decl


def _identifiers(node: ts.Node, out: set[str]) -> set[str]:
    if node.type in ("identifier", "type_identifier", "shorthand_property_identifier") and node.text:
        out.add(node.text.decode())
    for child in node.children:
        _identifiers(child, out)
    return out


def _spec(file: TsFile, node: ts.Node) -> ts.Node | None:
    return node.child_by_field_name("source") or next((c for c in node.children if c.type == "string"), None)


def _resolve(ws: Workspace, importer: str, spec: str) -> str | None:
    if not spec.startswith("."):
        return None
    base = posixpath.normpath(posixpath.join(posixpath.dirname(importer), spec))
    stem = re.sub(r"\.(m|c)?js$", "", base)
    for cand in (base, *(stem + s for s in SUFFIXES), stem + ".d.ts", *(stem + "/index" + s for s in SUFFIXES)):
        if cand.endswith((*SUFFIXES, ".d.ts")) and ws.exists(cand):
            return cand
    return None


def _spec_to(importer: str, target: str, like: str) -> str:
    rel = posixpath.relpath(re.sub(r"\.(tsx?|mts|cts)$", "", target), posixpath.dirname(importer) or ".")
    rel = rel if rel.startswith(".") else "./" + rel
    return rel + (".js" if like.endswith(".js") else "")


@dataclass
class Binding:
    name: str
    stmt: ts.Node
    spec: str = ""  # import: the module specifier as written
    clause: str = ""  # import: how the name is bound ("{a as b}", "* as m", "d")
    type_only: bool = False


def _bindings(file: TsFile) -> dict[str, Binding]:
    out: dict[str, Binding] = {}
    for stmt in file.tree.root_node.named_children:
        if stmt.type == "import_statement":
            spec_node = _spec(file, stmt)
            spec = file.text(spec_node)[1:-1] if spec_node else ""
            type_only = any(c.type == "type" for c in stmt.children)
            clause = next((c for c in stmt.named_children if c.type == "import_clause"), None)
            for part in clause.named_children if clause else []:
                if part.type == "identifier":
                    out[file.text(part)] = Binding(file.text(part), stmt, spec, file.text(part), type_only)
                elif part.type == "namespace_import":
                    name = file.text(part.named_children[-1])
                    out[name] = Binding(name, stmt, spec, file.text(part), type_only)
                elif part.type == "named_imports":
                    for sp in part.named_children:
                        if sp.type != "import_specifier":
                            continue
                        alias = sp.child_by_field_name("alias") or sp.child_by_field_name("name")
                        name = file.text(alias) if alias else ""
                        out[name] = Binding(name, stmt, spec, "{" + file.text(sp) + "}", type_only)
            continue
        declared_name, _ = declared(stmt)
        if declared_name:
            out.setdefault(declared_name, Binding(declared_name, stmt))
    return out


def _block_span(file: TsFile, stmts: list[ts.Node]) -> tuple[int, int]:
    first = stmts[0]
    prev = first.prev_sibling
    while prev is not None and prev.type == "comment" and prev.end_point[0] >= first.start_point[0] - 1:
        first, prev = prev, prev.prev_sibling
    start = file.src.line_start(first.start_point[0] + 1)
    end = file.src.line_start(stmts[-1].end_point[0] + 2)
    text = file.src.text
    while end < len(text) and text[end] == "\n":
        end += 1
    return start, end


def plan_typescript_move(ws: Workspace, source: str, line: int, name: str, dest: str,
                         *, keep_alias: bool = False) -> EditPlan:
    if not dest.endswith(SUFFIXES) or dest.endswith(".d.ts"):
        raise MoveRefused(f"DEST {dest!r} must be a .ts/.tsx file")
    if not ws.exists(posixpath.dirname(dest) or "."):
        raise MoveRefused(f"the folder of DEST {dest!r} does not exist")
    src = _read(ws, source)
    top = src.tree.root_node.named_children
    stmts = [s for s in top if declared(s)[0] == name]
    if not stmts or not any(s.start_point[0] + 1 <= line <= s.end_point[0] + 1 for s in stmts):
        raise MoveRefused(f"{source}:{line}: {name!r} is not a top-level declaration there")
    dest_file = _read(ws, dest) if ws.exists(dest) else None
    if dest_file is not None and name in {declared(s)[0] for s in dest_file.tree.root_node.named_children}:
        raise MoveRefused(f"{dest} already declares {name!r}; move refused")
    bindings = _bindings(src)
    moving: dict[str, list[ts.Node]] = {name: stmts}
    pending = [name]
    while pending:  # non-exported helpers used only by what moves come along
        used = set().union(*(_identifiers(s, set()) for s in moving[pending.pop()]))
        for dep in sorted(used - set(moving)):
            b = bindings.get(dep)
            if b is None or b.spec or b.stmt.type == "export_statement":
                continue
            rest = [s for s in top if declared(s)[0] not in moving and declared(s)[0] != dep]
            if dep not in set().union(*(_identifiers(s, set()) for s in rest)):
                moving[dep] = [s for s in top if declared(s)[0] == dep]
                pending.append(dep)
    moved = sorted((s for group in moving.values() for s in group), key=lambda s: s.start_byte)
    used = set().union(*(_identifiers(s, set()) for s in moved)) - set(moving)
    changes: dict[str, FileChanges] = {}
    edits = changes.setdefault(source, FileChanges(src.src))
    spans = []
    for group in moving.values():
        spans.append(_block_span(src, group))
    for start, end in spans:
        edits.replace(start, end, "", f"moved to {dest}")
    body = "\n".join(src.src.text[s:e].rstrip("\n") + "\n" for s, e in sorted(spans))
    imports: dict[tuple[str, bool], list[str]] = {}
    from_source: list[str] = []
    for dep in sorted(used):
        b = bindings.get(dep)
        if b is None:
            continue
        if b.spec:
            target = _resolve(ws, source, b.spec)
            if target == dest:
                continue
            spec = _spec_to(dest, target, b.spec) if target else b.spec
            imports.setdefault((spec if not b.clause.startswith("{") else spec, b.type_only), []).append(b.clause)
        else:
            from_source.append(dep)
            if b.stmt.type != "export_statement":  # it stays and DEST needs it: export it
                edits.insert(src.char(b.stmt.start_byte), "export ", "DEST imports it")
    if from_source:
        imports.setdefault((_spec_to(dest, source, ""), False), []).extend("{" + n + "}" for n in from_source)
    dest_bound = set(_bindings(dest_file)) if dest_file else set()
    lines: list[str] = []
    for (spec, type_only), clauses in imports.items():
        named = [c[1:-1] for c in clauses if c.startswith("{") and c[1:-1].split(" as ")[-1] not in dest_bound]
        others = [c for c in clauses if not c.startswith("{") and c.split()[-1] not in dest_bound]
        kw = "import type" if type_only else "import"
        lines.extend(f'{kw} {c} from "{spec}"{_semi(src)}' for c in others)
        if named:
            lines.append(f'{kw} {{ {", ".join(named)} }} from "{spec}"{_semi(src)}')
    rest = [s for s in top if declared(s)[0] not in moving and s.type != "import_statement"]
    still_used = name in set().union(set(), *(_identifiers(s, set()) for s in rest))
    back = _spec_to(source, dest, "")
    if still_used:
        edits.insert(_after_imports(src), f'import {{ {name} }} from "{back}"{_semi(src)}\n', "the source still uses it")
    if keep_alias:
        alias = f"export {{ {name} }}" + ("" if still_used else f' from "{back}"')
        edits.insert(_after_imports(src), f"{alias}{_semi(src)}\n", "re-export at the old place (--keep-alias)")
    elif not still_used and not any(s.type in ("import_statement", "export_statement") for s in rest):
        edits.insert(len(src.src.text), f"export {{}}{_semi(src)}\n", "the source stays a module")
    created: dict[str, str] = {}
    if dest_file is None:
        created[dest] = ("\n".join(lines) + "\n\n" if lines else "") + body
    else:
        de = changes.setdefault(dest, FileChanges(dest_file.src))
        if lines:
            de.insert(_after_imports(dest_file), "\n".join(lines) + "\n", "what the moved code needs")
        text = dest_file.src.text
        de.insert(len(text), ("\n" if text.endswith("\n") else "\n\n") + body, f"moved from {source}")
    _rewrite_importers(ws, source, dest, name, changes)
    plan = EditPlan("move", f"{source}:{name}", f"{dest}:{name}", language="typescript", method="syntactic")
    for fc in changes.values():
        if fc.overlapping():
            raise MoveRefused(f"{fc.file.rel}: the planned edits overlap; move refused")
        fc.add_to(plan)
    from lsp_bridge.types import FileEdits, Position, Range, TextChange

    for rel, text in created.items():
        plan.file_ops.append(FileEdits(ws.root / rel, [TextChange(Range(Position(0, 0), Position(0, 0)), text)],
                                       kind="create"))
    if len(moving) > 1:
        plan.notes.append("non-exported helpers used only by it move along: " + ", ".join(sorted(set(moving) - {name})))
    return plan


def _semi(file: TsFile | None) -> str:
    """The file's statement style: ";" when its imports/exports end with one (or it has none)."""
    stmts = [s for s in file.tree.root_node.named_children if s.type in ("import_statement", "export_statement")
             and s.child_by_field_name("declaration") is None] if file else []
    return ";" if not stmts or file is None or file.text(stmts[0]).rstrip().endswith(";") else ""


def _after_imports(file: TsFile) -> int:
    last = None
    for stmt in file.tree.root_node.named_children:
        if stmt.type == "import_statement":
            last = stmt
    return 0 if last is None else file.src.line_start(last.end_point[0] + 2)


def _rewrite_importers(ws: Workspace, source: str, dest: str, name: str, changes: dict[str, FileChanges]) -> None:
    word = re.compile(rf"\b{re.escape(name)}\b")
    for path in iter_files(ws.root, max_files=MAX_FILES):
        rel = ws.rel(path)
        if not rel.endswith(SUFFIXES) or rel == source:
            continue
        try:
            text = ws.read(rel).text
        except Exception:  # unreadable / binary: nothing of ours there
            continue
        if "*" not in text and not word.search(text):
            continue
        file = _read(ws, rel)
        for stmt in file.tree.root_node.named_children:
            if stmt.type not in ("import_statement", "export_statement"):
                continue
            spec_node = _spec(file, stmt)
            if spec_node is None:
                continue
            # DEST declares the name now: whatever it imported it from (a barrel too), that import goes
            from_dest = rel == dest and stmt.type == "import_statement"
            if _resolve(ws, rel, file.text(spec_node)[1:-1]) != source and not from_dest:
                continue
            old_spec = file.text(spec_node)[1:-1]
            new_spec = _spec_to(rel, dest, old_spec)
            fc = changes.setdefault(rel, FileChanges(file.src))
            if stmt.type == "export_statement" and any(c.type == "*" for c in stmt.children):
                if rel != dest and not re.search(rf"export\s*\*\s*from\s*['\"]{re.escape(new_spec)}['\"]", text):
                    at = file.src.line_start(stmt.end_point[0] + 2)
                    fc.insert(at, f'export * from "{new_spec}"{_semi(file)}\n', "barrel re-exports the new module")
                continue
            specs = [n for n in _walk(stmt) if n.type in ("import_specifier", "export_specifier")]
            mine = [n for n in specs if (n.child_by_field_name("name") and file.text(n.child_by_field_name("name")) == name)]  # type: ignore[arg-type]
            if not mine:
                continue
            sp = mine[0]
            if len(specs) == 1:
                if rel == dest and stmt.type == "import_statement":
                    fc.replace(*_line_span(file, stmt), "", "DEST declares it now")
                else:
                    q = file.text(spec_node)[0]
                    s, e = file.span(spec_node)
                    fc.replace(s, e, f"{q}{new_spec}{q}", "import follows the move")
                continue
            index = specs.index(sp)
            s, e = file.span(sp)
            s, e = (s, file.span(specs[index + 1])[0]) if index + 1 < len(specs) else (file.span(specs[index - 1])[1], e)
            fc.replace(s, e, "", "import follows the move")
            if rel == dest and stmt.type == "import_statement":
                continue
            kw = "export" if stmt.type == "export_statement" else "import"
            type_only = any(c.type == "type" for c in stmt.children)
            fc.insert(file.src.line_start(stmt.end_point[0] + 2),
                      f'{kw}{" type" if type_only else ""} {{ {file.text(sp)} }} from "{new_spec}"{_semi(file)}\n',
                      "import follows the move")


def _walk(node: ts.Node) -> list[ts.Node]:
    out = [node]
    for child in node.children:
        out.extend(_walk(child))
    return out


def _line_span(file: TsFile, stmt: ts.Node) -> tuple[int, int]:
    return file.src.line_start(stmt.start_point[0] + 1), file.src.line_start(stmt.end_point[0] + 2)
