"""What a position holds when it does not name a symbol: a comment, a string, a keyword,
whitespace, punctuation or a number. A semantic query there would get an empty or meaningless
answer ("0 references to Fast", "no definition found for from") and look like a success; the
target resolver refuses it with what is there instead.

Positions are 0-based (line, character column), like the bridge; only the syntax layer's parse
is used (no server).
"""

from __future__ import annotations

import keyword

from tree_sitter import Node, Tree

COMMENTS = ("comment", "line_comment", "block_comment", "html_comment")
STRINGS = ("string", "template_string", "string_fragment", "string_content")
# code inside a string: an f-string's replacement field, a template literal's `${...}`
CODE_IN_STRING = ("interpolation", "template_substitution")
# imports name modules by string (`from "./mod"`): the server resolves those
IMPORT_SOURCES = ("import_statement", "export_statement")
# named nodes that are words of the language, not names
KEYWORD_NODES = ("none", "true", "false", "this", "super", "null", "undefined", "ellipsis")


def describe_char(line_text: str, character: int) -> str:
    """What sits at `character` of a line when it is no identifier's."""
    if character >= len(line_text):
        return "the end of the line"
    ch = line_text[character]
    if ch.isspace():
        return "whitespace"
    if ch.isdigit():
        return "a number"
    return f"punctuation {ch!r}"


def non_symbol_at(tree: Tree, line_text: str, language: str, line: int, start: int, name: str) -> str | None:
    """None when the identifier `name` starting at (line, start) of the parsed file is code
    (`line_text` is that line); otherwise what holds it: "a comment", "a string", "a docstring"
    or "the keyword 'from'"."""
    if language == "python" and keyword.iskeyword(name):
        return f"the keyword {name!r}"
    before = line_text[:start].encode("utf-8", "surrogatepass")
    width = len(name.encode("utf-8", "surrogatepass"))
    node = tree.root_node.descendant_for_point_range((line, len(before)), (line, len(before) + width))
    if node is None:
        return None
    if not node.is_named and node.type == name:
        return f"the keyword {name!r}"
    if node.type in KEYWORD_NODES:
        return f"the keyword {name!r}"
    current: Node | None = node
    while current is not None:
        if current.type in CODE_IN_STRING:
            return None
        if current.type in COMMENTS:
            return "a comment"
        if current.type in ("string", "template_string"):
            parent = current.parent
            if parent is not None and parent.type in IMPORT_SOURCES:
                return None
            return "a docstring" if _is_docstring(current) else "a string"
        current = current.parent
    return None


def _is_docstring(string_node: Node) -> bool:
    parent = string_node.parent
    if parent is None or parent.type != "expression_statement" or parent.named_child_count != 1:
        return False
    block = parent.parent
    return block is not None and block.type in ("module", "block") and block.named_children[0] == parent
