"""Parsing files for the code occurrences of one name: in the session's worker process when it is
free (syntax/parse_worker.py: the parse then holds none of this process's GIL, and runs on the
other core), else here one by one. What the file cache (filecache.py) keeps of each parse."""

from __future__ import annotations

from collections.abc import Callable, Container
from typing import TYPE_CHECKING

from ..errors import CodeagentError

if TYPE_CHECKING:
    from ..syntax import Symbol
    from ..syntax.identifier_spans import IdentifierSpans
    from ..syntax.parse_worker import ParseWorker

Keep = Callable[[str, str, "list[Symbol]"], object]  # (rel, text, its flattened outline): keep the outline


def parse_for_name(files: list[tuple[str, str, str]], name: str, worker: ParseWorker | None, keep: Keep | None,
                   outline: Container[str] | None) -> list[tuple[IdentifierSpans, list[tuple[int, int]]]]:
    """For each (rel, language, text): its identifier tokens and `name`'s 0-based (line, column)
    occurrences. `keep(rel, text, outline)` is given the flattened outline of each file in
    `outline` (None: every file) where the name occurs."""
    from ..syntax import symbols  # (tree-sitter: not on the CLI's import path)
    from ..syntax.identifier_spans import IdentifierSpans, identifier_spans
    from ..syntax.languages import encode

    sources = [encode(text) for _rel, _language, text in files]
    wants = [keep is not None and (outline is None or rel in outline) for rel, _language, _text in files]
    remote = None
    if worker is not None:
        remote = worker.parse_many([(source, language, name, want) for source, (_rel, language, _text), want
                                    in zip(sources, files, wants, strict=True)])
    out: list[tuple[IdentifierSpans, list[tuple[int, int]]]] = []
    for i, (rel, language, text) in enumerate(files):
        source, got = sources[i], remote[i] if remote is not None else None
        flat: list[Symbol] | None = None
        if got is not None:
            starts, ends, found, entries = got
            spans = IdentifierSpans.of_arrays(starts, ends)
            if entries is not None:
                flat = list(symbols.flatten(symbols.symbols_from_entries(symbols.Entry(*e) for e in entries)))
        else:
            spans, tree = identifier_spans(source, language)
            found = spans.occurrences(source, name)
            if wants[i] and found and tree is not None:
                try:
                    flat = list(symbols.flatten(symbols.outline_tree(tree, source, language)))
                except (CodeagentError, ValueError):  # no outline to keep for this file
                    flat = None
        if keep is not None and flat is not None and found:
            keep(rel, text, flat)
        out.append((spans, found))
    return out
