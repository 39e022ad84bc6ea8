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

from typing import TYPE_CHECKING, Any

from .languages import (
    UnsupportedLanguageError,
    count_errors,
    language_for,
    parse,
    supported_languages,
)
from .scopes import Occurrence, Occurrences, code_occurrences, local_occurrences
from .symbols import Symbol, flatten, outline

if TYPE_CHECKING:
    from .index import RefreshStats, SymbolIndex, SymbolMatch

_INDEX_NAMES = frozenset({"RefreshStats", "SymbolIndex", "SymbolMatch"})


def __getattr__(name: str) -> Any:
    """The index's names, imported on first use: a file's outline or syntax tree (a one-shot
    get_ast or list_symbols of one file) needs none of its walk, store or worker pool (~20-30 ms
    of imports: pathspec, sqlite3, multiprocessing, concurrent.futures)."""
    if name in _INDEX_NAMES:
        from . import index

        return getattr(index, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

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
