"""The review groups of a rename as the few lines a person or model reads: counts per group, the
most likely entries first, and how to see the rest (everything is in the result's data)."""

from __future__ import annotations

from collections import Counter

from ..plan import EditPlan
from .review_groups import Ranked

SHOWN = 10  # entries listed per group; the counts say how many more there are


def unconfirmed_lines(ranked: list[Ranked]) -> list[str]:
    if not ranked:
        return []
    by_rank = Counter(r.rank for r in ranked)
    counts = ", ".join(f"{by_rank[k]} {k}" for k in ("likely", "possible", "unlikely") if by_rank[k])
    out = [f"same name in code, not renamed ({counts}; review: dynamic access, or another symbol?):"]
    worth = [r for r in ranked if r.rank != "unlikely"]
    for r in worth[:SHOWN]:
        loc = r.item.location
        out.append(f"  {loc.path}:{loc.line}:{loc.column} [{r.rank}: {r.why}]")
    unlikely = Counter(r.why for r in ranked if r.rank == "unlikely")
    if unlikely:
        reasons = "; ".join(f"{n} {why}" for why, n in unlikely.most_common(4))
        out.append(f"  {by_rank['unlikely']} unlikely, not listed ({reasons})")
    if len(worth) > SHOWN:
        out.append(f"  ... {len(worth) - SHOWN} more likely/possible not listed")
    if len(worth) > SHOWN or unlikely:
        out.append("  (all of them, ranked, in data `unconfirmed_ranked`; the CLI's `--json` prints it)")
    return out


def textual_lines(plan: EditPlan) -> list[str]:
    if not plan.textual and not plan.textual_unscanned:
        return []
    counts = textual_counts(plan)
    listed = ", ".join(f"{n} {kind}(s)" for kind, n in sorted(counts.items()))
    exact = sum(1 for r in plan.review if r.kind == "string")
    if exact:  # the engine's review lists string literals that are exactly the name
        listed += f", and {exact} string literal(s) spelling exactly the name, listed above"
    out = [f"{plan.old_name!r} in strings, comments and docstrings, not changed ({listed}; rename them too with "
           "--strings / --comments, or include_strings / include_comments):"]
    for item in plan.textual[:SHOWN]:
        out.append(f"  {item.location} [{item.kind}] {item.line_text[:100]}")
    if len(plan.textual) > SHOWN:
        out.append(f"  ... {len(plan.textual) - SHOWN} more: data `textual` (the CLI's `--json`)")
    if plan.textual_unscanned:
        out.append(f"  ({plan.textual_unscanned} more file(s) holding the name were not scanned)")
    return out


def textual_counts(plan: EditPlan) -> dict[str, int]:
    return dict(Counter(item.kind for item in plan.textual))
