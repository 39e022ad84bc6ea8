"""TypeScript/JavaScript completion: shorthand properties.

`{ parent_ }` is both a property name and a variable. When the server's answer renames such a site
to the bare new name (a server configured without prefix/suffix rename text does), the other half
would silently change too and break the program: renaming the variable must give
`{ parent_: parentScope }`, renaming the property `{ parentScope: parent_ }`.

Destructuring (`const { enforce } = opts`, a `{ enforce }` parameter) binds a local named after a
property; without prefix/suffix text the server renames both as one symbol, through every other
destructuring of that property. TypeScript's own rename with prefix/suffix text keeps the half that
is not renamed, and so does this (`keep_destructured_halves`): renaming the local renames it and
its uses in its scope only (`{ enforce: strict }`, the property and other destructurings untouched);
renaming the property keeps each destructured local and its uses (`{ strict: enforce }`). Import
sites keep the server's declaration rename (no `import { a as b }`).
"""

from __future__ import annotations

from pathlib import Path

from lsp_bridge.types import Position

from ...syntax import language_for, parse
from ...syntax.scopes import local_occurrences
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
        coll.rewrite(path, rng, f"{new}: {old}" if renaming_property else f"{old}: {new}", "shorthand")
        fixed += 1
    return fixed


def keep_destructured_halves(sources: Sources, coll: Collector, target: Path, pos: Position, old: str) -> int:
    """Drop the server's sites that rename the other half of a destructuring (see the module);
    `fix_shorthands` then spells the destructuring sites out. Returns how many were dropped."""
    text = sources.text(target)
    language = language_for(target)
    if text is None or language is None:
        return 0
    if _node_type_at(text, language, pos) in PROPERTY_NODES:
        return _keep_locals(sources, coll)
    occ = local_occurrences(text, language, pos.line, pos.character)
    if occ is None or occ.scope != "local" or occ.name != old:
        return 0
    definitions = [o for o in occ.occurrences if o.is_definition]
    if not any(_node_type_at(text, language, Position(o.line, o.column)) == "shorthand_property_identifier_pattern"
               for o in definitions):
        return 0
    # a destructured local: it and its uses in its scope, nothing else (the property keeps its name)
    keep = {(target, Position(o.line, o.column)) for o in occ.occurrences}
    dropped = [(path, rng) for path, rng in coll.edits if (path, rng.start) not in keep]
    for path, rng in dropped:
        coll.remove(path, rng)
    return len(dropped)


def _keep_locals(sources: Sources, coll: Collector) -> int:
    """A property rename: each destructured local keeps its name, and so do its uses."""
    dropped = 0
    for (path, rng) in list(coll.edits):
        text = sources.text(path)
        lang = language_for(path)
        if text is None or lang is None or (path, rng) not in coll.edits:
            continue
        if _node_type_at(text, lang, rng.start) != "shorthand_property_identifier_pattern":
            continue
        occ = local_occurrences(text, lang, rng.start.line, rng.start.character)
        for o in occ.occurrences if occ is not None else ():
            at = Position(o.line, o.column)
            if at == rng.start or _node_type_at(text, lang, at) in SHORTHANDS:
                continue  # the pattern itself, and `{ local }` literals: spelled out by fix_shorthands
            for other in [r for (p, r) in coll.edits if p == path and r.start == at]:
                coll.remove(path, other)
                dropped += 1
    return dropped
