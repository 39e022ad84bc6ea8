from collections import Counter
from dataclasses import dataclass, field


@dataclass
class Index:
    entries: dict[str, int] = field(default_factory=dict)
    skipped: int = 0


def build_index(words: list[str]) -> Index:
    counts = Counter(w for w in words if w.isalpha())
    return Index(dict(counts), sum(1 for w in words if not w.isalpha()))
