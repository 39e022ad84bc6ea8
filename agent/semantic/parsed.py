"""Parse trees of the files that queries point at, kept in the context while a file's text stays
the same. Every position tool asks the syntax layer what the position holds (position_kind.py); a
warm daemon re-parsing django/db/models/query.py for that took ~35 ms of a ~40 ms type_info. A
tree is reused only for the very text it was parsed from (compared in full), so it is never stale."""

from __future__ import annotations

import threading
from collections import OrderedDict

from tree_sitter import Tree

from ..syntax import parse
from ..toolcontext import ToolContext

_SERVICE = "semantic.trees"
MAX_TREES = 16
MAX_CHARS = 8 * 1024 * 1024  # of source text behind the kept trees


class Trees:
    def __init__(self) -> None:
        self._trees: OrderedDict[tuple[str, str], tuple[str, Tree]] = OrderedDict()
        self._chars = 0
        self._lock = threading.Lock()

    def get(self, rel: str, text: str, language: str) -> Tree:
        key = (rel, language)
        with self._lock:
            held = self._trees.get(key)
            if held is not None and (held[0] is text or held[0] == text):
                self._trees.move_to_end(key)
                return held[1]
        tree = parse(text, language)
        with self._lock:
            old = self._trees.pop(key, None)
            if old is not None:
                self._chars -= len(old[0])
            self._trees[key] = (text, tree)
            self._chars += len(text)
            while len(self._trees) > 1 and (len(self._trees) > MAX_TREES or self._chars > MAX_CHARS):
                _, (dropped, _) = self._trees.popitem(last=False)
                self._chars -= len(dropped)
        return tree


def tree_for(ctx: ToolContext, rel: str, text: str, language: str) -> Tree:
    """The parse tree of `text` (the current text of workspace file `rel`)."""
    return ctx.service(_SERVICE, Trees).get(rel, text, language)
