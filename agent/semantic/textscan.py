"""Kept only for agent/semantic/rename.py and agent/rename/adapter.py until the `plan` branch
lands: the module is agent/semantic/name_occurrences.py. The lead deletes this one after
changing those imports."""

from __future__ import annotations

from .name_occurrences import CodeHit, NameSearch, code_hits, unconfirmed_hits

__all__ = ["CodeHit", "NameSearch", "code_hits", "unconfirmed_hits"]
