"""Python parameter lists as the signature change sees them: each parameter's name, kind, whether
it has a default, and its own source text (annotation and default included), read from the syntax
tree of a `def` or of the NEW_PARAMS text. `render` writes a list back, with the `/` and `*`
separators the kinds need."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import tree_sitter as ts

from ...errors import ToolFailure
from ...syntax.languages import error_nodes, parse

Kind = Literal["posonly", "normal", "varargs", "kwonly", "varkw"]
POSITIONAL: tuple[Kind, ...] = ("posonly", "normal")
_WRAPPERS = ("typed_parameter", "default_parameter", "typed_default_parameter")


@dataclass(frozen=True, slots=True)
class Param:
    name: str
    kind: Kind
    has_default: bool
    text: str  # the parameter as written: "path: str = 'x'", "*args", "**kw: Any"
    bare: str = ""  # the same without its annotation ("path='x'"): for a file that may not import its names

    @property
    def positional(self) -> bool:
        return self.kind in POSITIONAL


def _text(node: ts.Node) -> str:
    return (node.text or b"").decode("utf-8", "surrogatepass")


def _bare(node: ts.Node, name: str, star: str) -> str:
    value = node.child_by_field_name("value")
    return f"{star}{name}" + (f"={_text(value)}" if value is not None else "")


def _name_and_star(node: ts.Node) -> tuple[str, str]:
    """(name, "" | "*" | "**") of one parameter node."""
    if node.type == "identifier":
        return _text(node), ""
    if node.type == "list_splat_pattern":
        return _text(node.named_children[0]) if node.named_children else "", "*"
    if node.type == "dictionary_splat_pattern":
        return _text(node.named_children[0]) if node.named_children else "", "**"
    if node.type in _WRAPPERS:
        named = node.child_by_field_name("name")
        if named is not None and named.type == "identifier":
            return _text(named), ""
        for child in node.named_children:
            if child.type in ("identifier", "list_splat_pattern", "dictionary_splat_pattern"):
                return _name_and_star(child)
    raise ToolFailure(f"unsupported parameter {_text(node)!r}")


def params_of(parameters: ts.Node) -> list[Param]:
    """The parameters of a `parameters` node, in order, with their kinds."""
    raw: list[tuple[str, str, bool, str, str]] = []  # name, star, has_default, text, bare; separators: "/", "*"
    for child in parameters.named_children:
        if child.type == "comment":
            continue
        if child.type == "positional_separator":
            raw.append(("", "/", False, "/", "/"))
            continue
        if child.type == "keyword_separator":
            raw.append(("", "*sep", False, "*", "*"))
            continue
        name, star = _name_and_star(child)
        raw.append((name, star, child.type in ("default_parameter", "typed_default_parameter"), _text(child),
                    _bare(child, name, star)))
    has_slash = any(star == "/" for _n, star, _d, _t, _b in raw)
    out: list[Param] = []
    kind: Kind = "posonly" if has_slash else "normal"
    for name, star, default, text, bare in raw:
        if star == "/":
            kind = "normal"
        elif star == "*sep":
            kind = "kwonly"
        elif star == "*":
            out.append(Param(name, "varargs", False, text, bare))
            kind = "kwonly"
        elif star == "**":
            out.append(Param(name, "varkw", False, text, bare))
        else:
            out.append(Param(name, kind, default, text, bare))
    return out


def parse_spec(spec: str) -> list[Param]:
    """NEW_PARAMS ("(self, path, *, encoding='utf-8')") as parameters; ToolFailure when it is not
    one parenthesized Python parameter list."""
    body = spec.strip()
    if not (body.startswith("(") and body.endswith(")")):
        raise ToolFailure(f"the new parameter list must be parenthesized, e.g. \"(self, path, *, x=1)\": {spec!r}")
    tree = parse(f"def _f{body}:\n    pass\n", "python")
    func = tree.root_node.named_children[0] if tree.root_node.named_children else None
    if error_nodes(tree) or func is None or func.type != "function_definition":
        raise ToolFailure(f"the new parameter list is not valid Python: {spec!r}")
    params = func.child_by_field_name("parameters")
    assert params is not None
    found = params_of(params)
    names = [p.name for p in found]
    if len(set(names)) != len(names):
        raise ToolFailure(f"the new parameter list names a parameter twice: {spec!r}")
    return found


def render(params: list[Param]) -> str:
    """A parameter list with the separators its kinds need: `/` after the positional-only ones,
    a bare `*` before the keyword-only ones when there is no `*args`."""
    parts: list[str] = []
    seen_star = False
    for i, p in enumerate(params):
        if p.kind == "kwonly" and not seen_star:
            parts.append("*")
            seen_star = True
        if p.kind == "varargs":
            seen_star = True
        parts.append(p.text)
        nxt = params[i + 1] if i + 1 < len(params) else None
        if p.kind == "posonly" and (nxt is None or nxt.kind != "posonly"):
            parts.append("/")
    return "(" + ", ".join(parts) + ")"


def merged(own: list[Param], old: list[Param], new: list[Param], *, annotate: bool = True) -> list[Param]:
    """An override's new list: the new order and kinds, each parameter keeping the override's own
    text (annotation, default) when it has one by that name; the override's extra parameters (not
    in the old base list) stay, after the last kept one of their kind. A new parameter comes
    without its annotation unless `annotate` (another module may not import the names it uses)."""
    mine = {p.name: p for p in own}
    old_names = {p.name for p in old}
    out: list[Param] = []
    for i, p in enumerate(new):
        if i == 0 and own and old and p.name == old[0].name and own[0].name != p.name:
            out.append(own[0])  # `self` / `cls` by position: an override may call it otherwise
            continue
        if p.name in mine:
            q = mine[p.name]
            out.append(Param(q.name, p.kind, q.has_default, q.text if q.kind == p.kind or (
                q.kind in POSITIONAL + ("kwonly",) and p.kind in POSITIONAL + ("kwonly",)) else p.text))
        else:
            out.append(p if annotate or not p.bare else Param(p.name, p.kind, p.has_default, p.bare, p.bare))
    order: dict[Kind, int] = {"posonly": 0, "normal": 1, "varargs": 2, "kwonly": 3, "varkw": 4}
    for extra in (p for p in own[1:] if p.name not in old_names and p.name not in {q.name for q in out}):
        at = max((j + 1 for j, q in enumerate(out) if order[q.kind] <= order[extra.kind]), default=0)
        out.insert(at, extra)
    return out
