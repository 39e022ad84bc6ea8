"""Running a query only where its matches can start, instead of over every node of a tree.

A query cursor visits every node, which costs about half as much as parsing the file. A query
file may say, in lines `; walk: <node type> ...`, through which node types its matches are
reached: in a tree without syntax errors, every node where one of its patterns can match (a
"root") then lies under a chain of those types, or of root types, from the tree's root. The
outline of a Python file, for instance, has definitions only in blocks and compound statements,
never inside expressions, which hold most of the nodes. The walk visits those chains in Python
and runs the query at each root with a start depth of 0: the same matches, a fraction of the
nodes. A tree with syntax errors is queried whole, since an ERROR node can hold anything.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

import tree_sitter as ts

from .languages import UnsupportedLanguageError, get_language, get_query, query_source

_DIRECTIVE = "; walk:"
_ROOT = re.compile(rb"\(\s*([A-Za-z][A-Za-z0-9_]*)")  # a pattern starting with a named node type

Match = tuple[int, dict[str, list[ts.Node]]]


@dataclass(frozen=True, slots=True)
class QueryWalk:
    """Kind ids: `roots` where a pattern can match, `through` what the walk descends into."""

    roots: frozenset[int]
    through: frozenset[int]


def _kind_ids(language: ts.Language) -> dict[str, set[int]]:
    ids: dict[str, set[int]] = {}
    for kind_id in range(language.node_kind_count):
        name = language.node_kind_for_id(kind_id)
        if name is not None and language.node_kind_is_named(kind_id) and language.node_kind_is_visible(kind_id):
            ids.setdefault(name, set()).add(kind_id)  # one name can have several ids (aliases)
    return ids


@functools.cache
def query_walk(language: str, kind: str) -> QueryWalk | None:
    """The walk `queries/<language>-<kind>.scm` allows, or None: query every node."""
    query = get_query(language, kind)
    if query is None:
        return None
    try:
        return plan_walk(get_language(language), query, query_source(language, kind))
    except ValueError as exc:  # a bug in this package's query file: say which
        raise UnsupportedLanguageError(f"queries/{language}-{kind}.scm: {exc}") from exc


def plan_walk(language: ts.Language, query: ts.Query, source: str) -> QueryWalk | None:
    """The walk a query's `; walk:` lines allow; None if it has none, or if a pattern's root is
    not a single named node type (an alternation, a wildcard, a sibling sequence). Raises
    ValueError for a node type the grammar does not have: a typo would hide matches."""
    listed = [name for line in source.splitlines() if line.startswith(_DIRECTIVE)
              for name in line[len(_DIRECTIVE):].split()]
    if not listed:
        return None
    data = source.encode("utf-8")
    root_names = set()
    for pattern in range(query.pattern_count):
        found = _ROOT.match(data, query.start_byte_for_pattern(pattern))
        if found is None or query.is_pattern_non_local(pattern) or not query.is_pattern_rooted(pattern):
            return None
        root_names.add(found.group(1).decode("ascii"))
    ids = _kind_ids(language)
    unknown = sorted(set(listed).difference(ids))
    if unknown:
        raise ValueError(f"`; walk:` names node types the grammar does not have: {', '.join(unknown)}")
    roots = frozenset(i for name in root_names for i in ids.get(name, ()))
    return QueryWalk(roots, roots.union(*(ids[name] for name in listed)))


def walk_matches(tree: ts.Tree, query: ts.Query, walk: QueryWalk | None) -> list[Match]:
    """The matches of `query` in `tree`: all of them, found at the roots `walk` leads to."""
    root = tree.root_node
    if walk is None or root.has_error:
        return ts.QueryCursor(query).matches(root)
    cursor = ts.QueryCursor(query)
    cursor.set_max_start_depth(0)  # only patterns rooted at the node given
    matches = cursor.matches  # (bound once: the loop below runs for every statement of the file)
    roots, through = walk.roots, walk.through
    found = matches(root) if root.kind_id in roots else []
    extend = found.extend
    nodes = root.walk()
    first_child, next_sibling, parent = nodes.goto_first_child, nodes.goto_next_sibling, nodes.goto_parent
    if not first_child():
        return found
    while True:
        node = nodes.node
        assert node is not None
        kind = node.kind_id
        if kind in roots:
            extend(matches(node))
        if kind in through and first_child():
            continue
        while not next_sibling():
            if not parent():
                return found
