"""Same-named method calls `x.NAME(...)` that the syntax alone shows are not calls of the method
whose signature changes, so the planner need not ask the server about their receiver (each
question is a go-to-definition round trip, ~0.1 s on a loaded machine). Only receivers whose
answer the server would give the same way are skipped:

- a literal (`"".join`, `[].append`): a builtin type's method;
- a name used in the file only as a module (bound by `import m` / `import m as x`, every other
  occurrence `x.attr`): a module's function;
- `self.NAME()` in a class outside the changed family that defines NAME itself: that class's
  method (an override of it in a subclass would belong to the family only through that class).
"""

from __future__ import annotations

import tree_sitter as ts

from ..rename.pysource import PySource, enclosing_method, first_param_name, text_of

LITERALS = frozenset({"string", "concatenated_string", "integer", "float", "list", "dictionary", "set", "tuple",
                      "list_comprehension", "dictionary_comprehension", "set_comprehension",
                      "generator_expression", "true", "false", "none"})


def unrelated_receiver(src: PySource, receiver: ts.Node, method: str, family_classes: set[str]) -> bool:
    """True when the call `receiver.method(...)` provably calls something else than the family's method."""
    if receiver.type in LITERALS:
        return True
    if receiver.type != "identifier":
        return False
    name = text_of(receiver)
    found = enclosing_method(receiver)
    if found is not None and first_param_name(found[0]) == name:
        cls = found[1]
        return text_of(cls.child_by_field_name("name")) not in family_classes and _defines(cls, method)
    return _module_only(src, name)


def _defines(cls: ts.Node, method: str) -> bool:
    body = cls.child_by_field_name("body")
    for child in body.named_children if body is not None else []:
        node = child.child_by_field_name("definition") if child.type == "decorated_definition" else child
        if node is not None and node.type == "function_definition" \
                and text_of(node.child_by_field_name("name")) == method:
            return True
    return False


def _module_only(src: PySource, name: str) -> bool:
    """`name` is bound by a plain `import` in this file and every other occurrence is `name.attr`."""
    imported = False
    for ident in src.identifiers(name):
        parent = ident.parent
        if parent is not None and parent.type == "attribute" and parent.child_by_field_name("object") == ident:
            continue
        statement = parent.parent if parent is not None and parent.type in ("dotted_name", "aliased_import") else None
        if statement is not None and statement.type == "aliased_import":
            statement = statement.parent
        if parent is not None and statement is not None and statement.type == "import_statement":
            imported = imported or _binds(parent, ident)  # `import m.sub as x` names m without binding it
            continue
        return False
    return imported


def _binds(parent: ts.Node, ident: ts.Node) -> bool:
    """`ident` is the name an `import` binds: `import m` / `import m.sub` (the first part), `import m as x` (x)."""
    if parent.type == "aliased_import":
        return parent.child_by_field_name("alias") == ident
    if parent.parent is not None and parent.parent.type == "aliased_import":
        return False  # `import m as x`: m is not bound
    return parent.named_children[0] == ident if parent.named_children else False
