"""How likely a same-named identifier the server did not confirm is still the renamed symbol, read
from the syntax around it: a bare `print(` is no `Console.print`, an ASGI `send` parameter is no
`Client.send`, `other: Other` then `other.send` is Other's; `self.send` inside the owning class, or
`client.send` with `client: Client`, may well be (dynamic access the server could not type).

    rank(text, language, line, column, owner=...) -> (Rank, why)

Positions are 0-based (line, character column). `owner` is the class that declares the renamed
member (None for a module-level symbol or when unknown).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from tree_sitter import Node

from ..syntax import parse

Rank = Literal["likely", "possible", "unlikely"]
ORDER: dict[str, int] = {"likely": 0, "possible": 1, "unlikely": 2}
ATTRIBUTE_PARENTS = {"attribute": "attribute", "member_expression": "property"}  # parent type -> field of the name
PARAMETERS = ("parameters", "typed_parameter", "default_parameter", "typed_default_parameter", "lambda_parameters",
              "required_parameter", "optional_parameter", "formal_parameters", "list_splat_pattern",
              "dictionary_splat_pattern")
IMPORTS = ("import_statement", "import_from_statement", "import_specifier", "import_clause", "namespace_import")
DEFINITIONS = ("function_definition", "class_definition", "method_definition", "function_declaration",
               "class_declaration", "public_field_definition")
CLASSES = ("class_definition", "class_declaration", "class")
FUNCTIONS = ("function_definition", "method_definition", "function_declaration", "arrow_function",
             "function_expression")


@dataclass(frozen=True, slots=True)
class Symbol:
    """What is renamed: a class member (with its class when known) or a module-level name."""

    member: bool
    owner: str | None = None


def symbol_at(text: str, language: str, line: int, column: int) -> Symbol | None:
    """The Symbol declared at (line, column) when the name there is a definition, else None."""
    node = _node_at(parse(text, language).root_node, text, line, column)
    if node is None or node.parent is None or node.parent.type not in DEFINITIONS:
        return None
    if node.parent.child_by_field_name("name") != node:
        return None
    owner = _enclosing(node.parent, CLASSES)
    if owner is None:
        return Symbol(member=False)
    name = owner.child_by_field_name("name")
    return Symbol(member=True, owner=_text(name) if name is not None else None)


def rank(text: str, language: str, line: int, column: int, symbol: Symbol) -> tuple[Rank, str]:
    """(likelihood, why) for the identifier at (line, column)."""
    node = _node_at(parse(text, language).root_node, text, line, column)
    if node is None or node.parent is None:
        return "possible", "not read"
    parent = node.parent
    field = ATTRIBUTE_PARENTS.get(parent.type)
    if field is not None and parent.child_by_field_name(field) == node:
        return _attribute(parent, symbol)
    if _within(node, IMPORTS):
        return "unlikely", "an import of another module's name"
    if parent.type in PARAMETERS or (parent.type == "identifier" and parent.parent is not None
                                     and parent.parent.type in PARAMETERS):
        return "unlikely", "a parameter of the same name"
    if parent.type in DEFINITIONS and parent.child_by_field_name("name") == node:
        if symbol.member and _enclosing(parent, CLASSES) is not None:
            cls = _enclosing(parent, CLASSES)
            name = cls.child_by_field_name("name") if cls is not None else None
            return "possible", f"a member of the same name in class {_text(name) if name is not None else '?'}"
        return "unlikely", "another definition of the same name"
    if parent.type == "keyword_argument" and parent.child_by_field_name("name") == node:
        return "possible", "a keyword argument"
    if symbol.member:
        return "unlikely", "a bare name, not an attribute access"
    return "unlikely", "a name the server resolves to something else"


def _attribute(access: Node, symbol: Symbol) -> tuple[Rank, str]:
    receiver = access.child_by_field_name("object")
    recv = _text(receiver) if receiver is not None else ""
    if not symbol.member:
        return "possible", f"{recv}.<name>: an attribute (a module or an object?)"
    if recv in ("self", "cls", "this"):
        cls = _enclosing(access, CLASSES)
        name_node = cls.child_by_field_name("name") if cls is not None else None
        name = _text(name_node) if name_node is not None else None
        if symbol.owner is not None and name == symbol.owner:
            return "likely", f"{recv}.<name> inside class {name}"
        return "possible", f"{recv}.<name> inside class {name or '?'}"
    hint = _annotation_of(access, recv) if receiver is not None and receiver.type == "identifier" else None
    if hint is not None:
        if symbol.owner is not None and symbol.owner in hint:
            return "likely", f"{recv}: {hint}"
        return "unlikely", f"{recv}: {hint}"
    return "possible", f"{recv}.<name>: an attribute of an untyped receiver"


def _annotation_of(at: Node, name: str) -> str | None:
    """The type hint of parameter `name` of the function around `at` (Python or TypeScript)."""
    func = _enclosing(at, FUNCTIONS)
    while func is not None:
        params = func.child_by_field_name("parameters")
        for param in params.named_children if params is not None else []:
            if param.type in ("typed_parameter", "typed_default_parameter", "required_parameter",
                              "optional_parameter"):
                ident = param.child_by_field_name("name") or param.child_by_field_name("pattern") or (
                    param.named_children[0] if param.named_children else None)
                hint = param.child_by_field_name("type")
                if ident is not None and _text(ident) == name and hint is not None:
                    return _text(hint).lstrip(": ").strip()
        func = _enclosing(func, FUNCTIONS)
    return None


def _node_at(root: Node, text: str, line: int, column: int) -> Node | None:
    lines = text.split("\n")
    if not 0 <= line < len(lines):
        return None
    byte = len(lines[line][:column].encode("utf-8", "surrogatepass"))
    return root.descendant_for_point_range((line, byte), (line, byte + 1))


def _enclosing(node: Node, types: tuple[str, ...]) -> Node | None:
    current = node.parent
    while current is not None and current.type not in types:
        current = current.parent
    return current


def _within(node: Node, types: tuple[str, ...]) -> bool:
    return _enclosing(node, types) is not None


def _text(node: Node | None) -> str:
    return node.text.decode("utf-8", "replace") if node is not None and node.text else ""
