"""Which language server serves a file, and which syntax language it is (by suffix). Imports
nothing heavy: the CLI's daemon client uses it before any tool code is loaded."""

from __future__ import annotations

from pathlib import Path

# The bridge's session languages; the TypeScript server also answers for JavaScript.
SERVER_LANGUAGE = {
    ".py": "python", ".pyi": "python",
    ".ts": "typescript", ".tsx": "typescript", ".mts": "typescript", ".cts": "typescript",
    ".js": "typescript", ".jsx": "typescript", ".mjs": "typescript", ".cjs": "typescript",
}
# The syntax layer's language names, for identifier rules and tree-sitter queries.
SYNTAX_LANGUAGE = {
    ".py": "python", ".pyi": "python",
    ".ts": "typescript", ".mts": "typescript", ".cts": "typescript", ".tsx": "tsx",
    ".js": "javascript", ".jsx": "javascript", ".mjs": "javascript", ".cjs": "javascript",
}
SOURCE_SUFFIXES = tuple(SERVER_LANGUAGE)


def server_language(path: str | Path) -> str | None:
    """"python" or "typescript" (the bridge's session languages), or None when no server applies."""
    return SERVER_LANGUAGE.get(Path(path).suffix.lower())


def syntax_language(path: str | Path) -> str | None:
    return SYNTAX_LANGUAGE.get(Path(path).suffix.lower())
