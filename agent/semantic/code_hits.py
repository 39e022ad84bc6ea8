"""Identifier tokens equal to a name in code (not in strings or comments), file by file or for a
batch of files at once (one hand-over to the session's parse worker: name_parses.py)."""

from __future__ import annotations

import functools
from dataclasses import dataclass

from ..languages import syntax_language
from ..toolcontext import ToolContext
from .filecache import file_cache
from .outlines import keep_outline
from .words import word_positions


@dataclass(frozen=True, slots=True)
class CodeHit:
    path: str  # workspace-relative
    line: int  # 0-based
    column: int  # 0-based characters


def code_hits(ctx: ToolContext, rel: str, name: str, *, only: set[tuple[int, int]] | None = None,
              outline: bool = False) -> list[CodeHit]:
    """Identifier tokens equal to `name` in code (not strings/comments) in one file. With `only`,
    the file is parsed only if some word match is not in `only` (the already-confirmed sites),
    and just the unconfirmed hits are returned. `outline`: keep the file's outline from that parse
    (a file whose hits the answer groups by enclosing definition)."""
    return code_hits_many(ctx, [rel], name, only={rel: only} if only is not None else None,
                          outline={rel} if outline else set())[rel]


def code_hits_many(ctx: ToolContext, rels: list[str], name: str, *,
                   only: dict[str, set[tuple[int, int]]] | None = None,
                   outline: set[str] | frozenset[str] = frozenset()) -> dict[str, list[CodeHit]]:
    """`code_hits` of several files, by rel: `only` maps each file to its confirmed sites (None:
    every hit counts), `outline` names the files whose outline is kept."""
    cache = file_cache(ctx)
    out: dict[str, list[CodeHit]] = {}
    jobs: list[tuple[str, str]] = []
    for rel in rels:
        out[rel] = []
        language = syntax_language(rel)
        text = cache.text(rel) if language is not None else None
        if language is None or text is None:
            continue
        sites = only.get(rel, set()) if only is not None else None
        if sites is not None and all(p in sites for p in word_positions(text, name)):
            continue  # every word match is confirmed: nothing to parse for
        jobs.append((rel, language))
    if not jobs:
        return out
    found = cache.occurrences_many(jobs, name, parsed=functools.partial(keep_outline, ctx) if outline else None,
                                   outline=outline)
    for rel, _language in jobs:
        sites = only.get(rel, set()) if only is not None else None
        out[rel] = [CodeHit(rel, ln, col) for ln, col in found[rel] if sites is None or (ln, col) not in sites]
    return out
