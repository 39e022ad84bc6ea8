"""Bounds on the work one rename may do."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class RenameLimits:
    """Bounds on the work one rename may do."""

    review_items: int = 100
    seed_requests: int = 60
    definition_requests: int = 400
    receiver_checks: int = 300
    opened_files: int = 150
    max_files: int = 50_000
