"""Kept only for agent/semantic/compare.py until the `plan` branch lands: the table lives in
agent/languages.py. The lead deletes this module after changing compare.py's import."""

from __future__ import annotations

from ..languages import server_language, syntax_language

__all__ = ["server_language", "syntax_language"]
