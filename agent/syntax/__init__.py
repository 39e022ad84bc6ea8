"""The syntax layer: tree-sitter parsing, outlines, scope-aware occurrences, the repo symbol
index and the edit guard. Other packages use only what this module exports.

It may import: the settings models, errors, result types, the workspace and walk, textcodec.
It knows no tool, no ToolContext and no terminal: what it needs from above (a progress bar)
comes in as a parameter (tests/test_layering.py checks it).

Positions: `Symbol` and `SymbolMatch` are 1-based (lines and character columns, end exclusive);
`code_occurrences` and `local_occurrences` are 0-based (line, character column), like the
language-server bridge. Only `positions.py` deals in tree-sitter's UTF-8 byte columns.
"""

from __future__ import annotations

from .index import RefreshStats, SymbolIndex, SymbolMatch
from .languages import (
    UnsupportedLanguageError,
    count_errors,
    language_for,
    parse,
    supported_languages,
)
from .scopes import Occurrence, Occurrences, code_occurrences, local_occurrences
from .symbols import Symbol, flatten, outline

__all__ = [
    "Occurrence",
    "Occurrences",
    "RefreshStats",
    "Symbol",
    "SymbolIndex",
    "SymbolMatch",
    "UnsupportedLanguageError",
    "code_occurrences",
    "count_errors",
    "flatten",
    "language_for",
    "local_occurrences",
    "outline",
    "parse",
    "supported_languages",
]
