"""The review groups of a rename beside its sites: textual occurrences (strings, comments,
docstrings; textual.py), edited only when the caller includes them, and the same-named identifiers
in code no rule confirmed, ranked by how likely each is still the symbol (likelihood.py)."""

from __future__ import annotations

from dataclasses import dataclass

from lsp_bridge.types import Position, Range

from ...languages import syntax_language
from ...semantic.filecache import file_cache
from ...semantic.target import Target
from ...toolcontext import ToolContext
from ..likelihood import ORDER, Rank, Symbol, rank, symbol_at
from ..plan import EditPlan, ReviewItem, location_of
from ..textual import textual_occurrences

MAX_OWNER_PROBES = 30  # sites read to find the declaration (and its class) when the target is a use


@dataclass(frozen=True, slots=True)
class Ranked:
    item: ReviewItem
    rank: Rank
    why: str


def add_textual(ctx: ToolContext, plan: EditPlan, files: list[str], *, include_strings: bool,
                include_comments: bool) -> None:
    """Scan `files` (and the plan's) for the old name in strings, comments and docstrings: add the
    included kinds as sites (reason = the kind), list the others in `plan.textual`."""
    cache = file_cache(ctx)
    planned = {(s.path, s.line - 1, s.column - 1) for s in plan.sites}
    planned |= {(r.location.path, r.location.line - 1, r.location.column - 1) for r in plan.review}
    sources = []
    for rel in sorted(set(files) | set(plan.files())):
        language = syntax_language(rel)
        text = cache.text(rel) if language else None
        if text is not None and language is not None:
            sources.append((rel, text, language))
    scan = textual_occurrences(sources, plan.old_name, skip=planned)
    width = len(plan.old_name)
    for hit in scan.hits:
        wanted = include_comments if hit.kind == "comment" else include_strings
        rng = Range(Position(hit.line, hit.column), Position(hit.line, hit.column + width))
        if wanted:
            plan.add(hit.path, rng, plan.new_name, hit.kind)
        else:
            plan.textual.append(ReviewItem(location_of(hit.path, rng), hit.kind, hit.line_text))
    if include_strings:  # the engine's review holds string literals spelling exactly the name
        for r in [r for r in plan.review if r.kind == "string"]:
            loc = r.location
            rng = Range(Position(loc.line - 1, loc.column - 1), Position(loc.line - 1, loc.column - 1 + width))
            plan.add(loc.path, rng, plan.new_name, "string")
        plan.review = [r for r in plan.review if r.kind != "string"]
    plan.textual_unscanned = scan.unscanned


def ranked_review(ctx: ToolContext, plan: EditPlan, target: Target) -> list[Ranked]:
    """The plan's code review items, most likely first (file order within a rank)."""
    cache = file_cache(ctx)
    symbol = _symbol(ctx, plan, target)
    out = []
    for item in plan.review:
        if item.kind != "code":
            continue
        loc = item.location
        language = syntax_language(loc.path)
        text = cache.text(loc.path) if language else None
        if text is None or language is None:
            out.append(Ranked(item, "possible", "not read"))
            continue
        how, why = rank(text, language, loc.line - 1, loc.column - 1, symbol)
        out.append(Ranked(item, how, why))
    out.sort(key=lambda r: (ORDER[r.rank], r.item.location.path, r.item.location.line, r.item.location.column))
    return out


def _symbol(ctx: ToolContext, plan: EditPlan, target: Target) -> Symbol:
    """The renamed symbol's kind: read at the target, else at the first site that declares it."""
    cache = file_cache(ctx)
    probes = [(target.path, target.pos.line, target.name_start)]
    probes += [(s.path, s.line - 1, s.column - 1) for s in plan.sites[:MAX_OWNER_PROBES]]
    for rel, line, column in probes:
        language = syntax_language(rel)
        text = cache.text(rel) if language else None
        if text is None or language is None:
            continue
        found = symbol_at(text, language, line, column)
        if found is not None:
            return found
    line_text = target.line_text()
    # a use such as `obj.name`: a member whose class is not known here
    return Symbol(member=line_text[:target.name_start].rstrip().endswith("."))
