"""Kept only for agent/semantic/rename.py until the `plan` branch lands: the commit path lives in
agent/commit.py. The lead deletes this module after changing that import."""

from __future__ import annotations

from .commit import MAX_DIFF_CHARS, bounded, changed_lines, commit, unified_diff

__all__ = ["MAX_DIFF_CHARS", "bounded", "changed_lines", "commit", "unified_diff"]
