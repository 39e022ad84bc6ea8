"""Names spelled inside strings, as the rename engine finds them in Python source: `__all__` /
`__slots__` entries, attribute names in getattr-style calls and `__dict__` filters on the owning
class, and names inside string annotations ("co.Counter[str]")."""

from __future__ import annotations

from collections.abc import Iterator

import tree_sitter as ts

from lsp_bridge.types import Position, Range

from ...syntax import parse
from .pysource import (
    NAME_LIST_DUNDERS,
    PySource,
    ancestors,
    enclosing_method,
    first_param_name,
    plain_string_content,
    text_of,
)

ATTR_STRING_CALLS = ("getattr", "setattr", "hasattr", "delattr", "getattribute")


def name_list_entries(scope_body: ts.Node | None, dunders: frozenset[str], value: str) -> Iterator[ts.Node]:
    """`string_content` nodes equal to `value` in `__all__`-style name lists assigned (=, +=,
    .append/.extend) directly in a module or class body."""
    if scope_body is None:
        return
    for stmt in scope_body.named_children:
        if stmt.type != "expression_statement":
            continue
        for expr in stmt.named_children:
            container: ts.Node | None = None
            if expr.type in ("assignment", "augmented_assignment"):
                left = expr.child_by_field_name("left")
                if left is not None and text_of(left) in dunders:
                    container = expr.child_by_field_name("right")
            elif expr.type == "call":
                func = expr.child_by_field_name("function")
                if func is not None and func.type == "attribute":
                    obj = func.child_by_field_name("object")
                    meth = text_of(func.child_by_field_name("attribute"))
                    if text_of(obj) in dunders and meth in ("append", "extend", "insert", "remove"):
                        container = expr.child_by_field_name("arguments")
            if container is not None:
                yield from _strings_in(container, value)


def _strings_in(node: ts.Node, value: str) -> Iterator[ts.Node]:
    wanted = value.encode("utf-8", "surrogatepass")
    stack = [node]
    while stack:
        cur = stack.pop()
        if cur.type == "string":
            content = plain_string_content(cur)
            if content is not None and content.text == wanted:
                yield content
            continue
        if cur.type in ("list", "tuple", "set", "dictionary", "pair", "argument_list", "parenthesized_expression",
                        "binary_operator", "list_comprehension", "expression_list", "call"):
            stack.extend(reversed(cur.named_children))


def name_list_of(content: ts.Node) -> str | None:
    """The dunder (`__all__`, `__slots__`, ...) whose name list holds this string, or None."""
    node = content.parent
    while node is not None and node.type in ("string", "list", "tuple", "set", "parenthesized_expression",
                                             "binary_operator", "argument_list", "expression_list"):
        node = node.parent
    if node is None:
        return None
    if node.type in ("assignment", "augmented_assignment"):
        name = text_of(node.child_by_field_name("left"))
    elif node.type == "call":
        func = node.child_by_field_name("function")
        name = text_of(func.child_by_field_name("object")) if func is not None and func.type == "attribute" else ""
    else:
        return None
    return name if name in NAME_LIST_DUNDERS or name == "__all__" else None


def attribute_name_strings(cls: ts.Node, value: str) -> Iterator[ts.Node]:
    """String literals naming attribute `value` of `cls` inside its body: the name argument of
    getattr/setattr/hasattr/delattr-style calls on self/cls/the class, and strings in a statement
    that reads `self.__dict__` or `vars(self)`."""
    cls_name = text_of(cls.child_by_field_name("name"))
    body = cls.child_by_field_name("body")
    if body is None:
        return
    stack = [body]
    while stack:
        node = stack.pop()
        if node.type == "class_definition":
            continue
        if node.type == "call":
            hit = _attr_call_string(node, cls, cls_name, value)
            if hit is not None:
                yield hit
        if node.type in ("expression_statement", "return_statement", "if_statement", "for_statement",
                         "while_statement") and _reads_instance_dict(node, cls):
            header = node if node.type in ("expression_statement", "return_statement") else (
                node.child_by_field_name("condition") or node.child_by_field_name("right"))
            if header is not None:
                yield from _all_strings(header, value)
        stack.extend(reversed(node.named_children))


def _receiver_is_own(node: ts.Node, cls: ts.Node, cls_name: str) -> bool:
    text = text_of(node)
    if text == cls_name:
        return True
    if node.type == "call" and text_of(node.child_by_field_name("function")) == "type":
        args = node.child_by_field_name("arguments")
        node = args.named_children[0] if args is not None and args.named_children else node
        text = text_of(node)
    found = enclosing_method(node)
    return found is not None and found[1] == cls and node.type == "identifier" and first_param_name(found[0]) == text


def _attr_call_string(call: ts.Node, cls: ts.Node, cls_name: str, value: str) -> ts.Node | None:
    func = call.child_by_field_name("function")
    fname = text_of(func.child_by_field_name("attribute") if func is not None and func.type == "attribute" else func)
    low = fname.lower().strip("_")
    if not any(low.endswith(kind) for kind in ATTR_STRING_CALLS):
        return None
    args = call.child_by_field_name("arguments")
    if args is None or len(args.named_children) < 2:
        return None
    receiver, name_arg = args.named_children[0], args.named_children[1]
    if not _receiver_is_own(receiver, cls, cls_name):
        return None
    content = plain_string_content(name_arg)
    if content is not None and text_of(content) == value:
        return content
    return None


def _reads_instance_dict(stmt: ts.Node, cls: ts.Node) -> bool:
    stack = [stmt]
    while stack:
        node = stack.pop()
        if node.type == "attribute" and text_of(node.child_by_field_name("attribute")) == "__dict__":
            obj = node.child_by_field_name("object")
            if obj is not None and _receiver_is_own(obj, cls, text_of(cls.child_by_field_name("name"))):
                return True
        if node.type == "call" and text_of(node.child_by_field_name("function")) == "vars":
            return True
        if node.type in ("block", "function_definition", "class_definition"):
            continue
        stack.extend(node.named_children)
    return False


def _all_strings(node: ts.Node, value: str) -> Iterator[ts.Node]:
    wanted = value.encode("utf-8", "surrogatepass")
    stack = [node]
    while stack:
        cur = stack.pop()
        if cur.type == "string":
            content = plain_string_content(cur)
            if content is not None and content.text == wanted:
                yield content
            continue
        if cur.type in ("block", "function_definition", "class_definition"):
            continue
        stack.extend(reversed(cur.named_children))


def in_docstring(node: ts.Node) -> bool:
    """Is this string (content) node a module/class/function docstring or a bare string statement?"""
    string = node if node.type == "string" else node.parent
    stmt = string.parent if string is not None else None
    return stmt is not None and stmt.type == "expression_statement" and len(stmt.named_children) == 1


def annotation_names(src: PySource, name: str) -> Iterator[Range]:
    """`name` used as a (non-attribute) name inside string annotations ("co.Counter[str]")."""
    wanted = name.encode("utf-8", "surrogatepass")
    for node in src.strings():
        content = plain_string_content(node)
        if content is None or wanted not in (content.text or b"") or not _in_annotation(node) \
                or content.start_point[0] != content.end_point[0]:
            continue
        start = src.position(content.start_point)
        inner = parse(text_of(content), "python")
        for ident in _names(inner.root_node, name):
            col = len(text_of(content).encode("utf-8")[: ident.start_point[1]].decode("utf-8"))
            yield Range(Position(start.line, start.character + col),
                        Position(start.line, start.character + col + len(name)))


def _in_annotation(node: ts.Node) -> bool:
    for anc in ancestors(node):
        if anc.type == "type":
            return True
        if anc.type in ("block", "module", "call"):
            return False
    return False


def _names(root: ts.Node, name: str) -> Iterator[ts.Node]:
    """Identifiers spelled `name` that are names, not attribute or keyword labels."""
    wanted = name.encode("utf-8", "surrogatepass")
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type == "identifier" and node.text == wanted:
            parent = node.parent
            if not (parent is not None and parent.type == "attribute" and parent.child_by_field_name("attribute") == node):
                yield node
        stack.extend(node.children)
