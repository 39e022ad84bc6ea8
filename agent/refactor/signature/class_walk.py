"""The worklist both constructor changes share: ask the server for the references of each class
name, classify each once, and follow the subclasses that inherit the constructor (they come back
from the classifier to be walked in turn). Bounded at MAX_CLASSES classes: past that the change is
refused with a note, never done halfway."""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Protocol, TypeVar

import tree_sitter as ts

from lsp_bridge.types import FileLocation, Position

from ..rename.pysource import text_of

MAX_CLASSES = 200  # classes whose references are asked for (the family and inheriting subclasses)


class Source(Protocol):
    path: Path

    def position(self, point: ts.Point | tuple[int, int]) -> Position: ...


S = TypeVar("S", bound=Source)
Visit = Callable[[S, ts.Node, str], Iterable[tuple[S, ts.Node]]]


def walk_class_references(classes: Sequence[tuple[S, ts.Node]],
                          references: Callable[[Path, Position], list[FileLocation]],
                          name_at: Callable[[FileLocation], tuple[S, ts.Node] | None],
                          visit: Visit[S]) -> list[str]:
    """Calls `visit(source, name node, class name)` once per distinct reference of each class
    (`name_at` resolves a location, None to skip it); `visit` returns the inheriting subclasses
    (source, class node) to walk next. Returns the notes of what could not be searched."""
    queue = deque(classes)
    done: set[tuple[Path, int]] = set()
    seen: set[tuple[Path, int]] = set()
    while queue:
        src, cls = queue.popleft()
        if (src.path, cls.start_byte) in done:
            continue
        done.add((src.path, cls.start_byte))
        if len(done) > MAX_CLASSES:
            return [f"more than {MAX_CLASSES} classes inherit this constructor; nothing was changed"]
        name = cls.child_by_field_name("name")
        if name is None:
            continue
        for loc in references(src.path, src.position(name.start_point)):
            found = name_at(loc)
            if found is None or (found[0].path, found[1].start_byte) in seen:
                continue
            seen.add((found[0].path, found[1].start_byte))
            queue.extend(visit(found[0], found[1], text_of(name)))
    return []
