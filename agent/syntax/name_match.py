"""Matching a symbol query ("name", "Class.method", "module.function", with small mistakes)
against index entries, and scoring the matches.

A query is split into segments on `.`, `::`, `#`, `/` and `:`. The last segment must match the
symbol's name: exactly (score 1), ignoring case (0.9), ignoring case and `_`/`-` (0.85), or
within a small edit distance, transpositions counting one (0.75 and less), the typo tier being tried only when the others
find nothing. The other segments are qualifiers: each must match, in order, one of the symbol's
enclosing names (its module path, then its outer classes/functions), ignoring case
(a typo costs 0.1); qualifiers
the query leaves out cost a little, so a top-level `foo` ranks above `A.foo`. When no symbol
carries the qualifiers, symbols matching the name alone come back at half score.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Any

from .symbols import Entry


@functools.cache
def _osa() -> Any:
    """rapidfuzz's edit distance, imported when a name is first weighed for typos (find_symbol):
    its ~15-25 ms of imports are not for an outline, get_ast or an index refresh, which import
    this module for `normalize` and never weigh one."""
    from rapidfuzz.distance import OSA

    return OSA

_SPLIT = re.compile(r"::|[.#/:\\]")
_MODULE_STEMS = frozenset({"__init__", "index", "mod"})
_MINOR_KINDS = frozenset({"variable", "field", "enum_member", "constant"})


def normalize(name: str) -> str:
    return name.casefold().replace("_", "").replace("-", "")


def query_segments(query: str) -> list[str]:
    text = query.strip()
    text = text.removesuffix("()").strip()
    return [s for s in _SPLIT.split(text) if s]


def module_segments(path: str) -> list[str]:
    """`pkg/sub/mod.py` → ["pkg", "sub", "mod"]; a package's `__init__`/`index`/`mod` file is the package."""
    parts = list(PurePosixPath(path).with_suffix("").parts)
    if parts and parts[-1] in _MODULE_STEMS:
        parts.pop()
    return parts


def max_typos(name: str) -> int:
    return 0 if len(name) <= 3 else 1 if len(name) <= 8 else 2


@dataclass(frozen=True, slots=True)
class Scored:
    path: str
    entry: Entry
    score: float
    why: str


def name_score(query: str, name: str) -> float:
    if query == name:
        return 1.0
    if query.casefold() == name.casefold():
        return 0.9
    if normalize(query) == normalize(name):
        return 0.85
    distance = _osa().distance(normalize(query), normalize(name))
    return max(0.0, 0.75 - 0.1 * (distance - 1))


def qualifier_penalty(qualifiers: list[str], chain: list[str]) -> float | None:
    """How far `qualifiers` (outermost first) are from matching `chain` in order, right to left;
    None if one does not match at all."""
    penalty = 0.0
    pos = len(chain) - 1
    for qual in reversed(qualifiers):
        wanted = qual.casefold()
        norm = normalize(qual)
        skipped = 0
        typos = max_typos(norm)
        while pos >= 0 and chain[pos].casefold() != wanted and normalize(chain[pos]) != norm and (
                typos == 0 or _osa().distance(normalize(chain[pos]), norm, score_cutoff=typos) > typos):
            pos -= 1
            skipped += 1
        if pos < 0:
            return None
        if chain[pos].casefold() != wanted and normalize(chain[pos]) != norm:
            penalty += 0.1
        elif chain[pos] != qual:
            penalty += 0.02
        penalty += 0.01 * skipped
        pos -= 1
    return penalty


def score_entry(path: str, entry: Entry, qualifiers: list[str], base: float) -> Scored | None:
    parents = entry.name_path.split(".")[:-1]
    chain = module_segments(path) + parents
    why = "name"
    score = base
    if qualifiers:
        penalty = qualifier_penalty(qualifiers, chain)
        if penalty is None:
            return None
        score -= penalty
        why = "qualified name"
        covered = min(len(qualifiers), len(parents))
        score -= 0.02 * (len(parents) - covered)
    else:
        score -= 0.02 * len(parents)
    if entry.kind in _MINOR_KINDS:
        score -= 0.01
    return Scored(path, entry, round(max(score, 0.01), 3), why)


def typo_candidates(name: str, keys: list[str]) -> list[str]:
    """Normalized names within a small edit distance of `name` (normalized too)."""
    limit = max_typos(name)
    if limit == 0:
        return []
    from rapidfuzz.process import extract

    norm = normalize(name)
    hits = extract(norm, keys, scorer=_osa().distance, score_cutoff=limit, limit=200)
    return [key for key, _dist, _i in hits if key != norm]
