"""TypeScript/JavaScript completion: shorthand properties.

`{ parent_ }` is both a property name and a variable. When the server's answer renames such a site
to the bare new name (a server configured without prefix/suffix rename text does), the other half
would silently change too and break the program: renaming the variable must give
`{ parent_: parentScope }`, renaming the property `{ parentScope: parent_ }`. A destructuring
`const { parent_ } = x` under a property rename is left alone: the server then renames the local
binding and all its uses too, which is consistent.
"""

from __future__ import annotations

from pathlib import Path

from lsp_bridge.types import Position

from ...syntax import language_for, parse
from .collector import Collector
from .sources import Sources

SHORTHANDS = frozenset({"shorthand_property_identifier", "shorthand_property_identifier_pattern"})
PROPERTY_NODES = frozenset({"property_identifier", "private_property_identifier"})


def _node_type_at(text: str, language: str, pos: Position) -> str | None:
    lines = text.split("\n")
    if not 0 <= pos.line < len(lines):
        return None
    col = len(lines[pos.line][: pos.character].encode("utf-8", "surrogatepass"))
    tree = parse(text, language)
    node = tree.root_node.named_descendant_for_point_range((pos.line, col), (pos.line, col))
    return node.type if node is not None else None


def fix_shorthands(sources: Sources, coll: Collector, target: Path, pos: Position, old: str, new: str) -> int:
    """Rewrite bare renames of shorthand property sites so that only the renamed half changes."""
    target_text = sources.text(target)
    language = language_for(target)
    if target_text is None or language is None:
        return 0
    renaming_property = _node_type_at(target_text, language, pos) in PROPERTY_NODES
    fixed = 0
    for (path, rng), edit in list(coll.edits.items()):
        if edit.new_text != new or rng.start.line != rng.end.line:
            continue
        text = sources.text(path)
        lang = language_for(path)
        kind = _node_type_at(text, lang, rng.start) if text is not None and lang is not None else None
        if kind not in SHORTHANDS:
            continue
        if renaming_property and kind == "shorthand_property_identifier_pattern":
            continue  # `const {old} = x`: the server renames the local binding with it, consistently
        coll.rewrite(path, rng, f"{new}: {old}" if renaming_property else f"{old}: {new}", "shorthand")
        fixed += 1
    return fixed
