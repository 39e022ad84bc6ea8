"""The one table of file suffixes: which syntax language (tree-sitter grammar), which language
server session, which LSP languageId and which project language a file is.

Standard library only and nothing imported at load (not even typing or pathlib, ~10 ms of a warm
call): the CLI's warm fast path uses it. Everything else derives from `SUFFIXES` (the syntax
layer's grammars, the semantic layer's globs, the project summary's language counts, the
languageIds passed to lsp_bridge).
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path


class FileLanguage:
    __slots__ = ("project", "syntax", "server", "language_id")

    def __init__(self, project: str, syntax: str | None = None, server: str | None = None,
                 language_id: str | None = None) -> None:
        self.project = project  # the language a project summary counts the file as
        self.syntax = syntax  # the tree-sitter grammar (agent/syntax/languages.py), if any
        self.server = server  # the bridge's session language: "python" or "typescript" (it serves JS too)
        self.language_id = language_id  # the LSP languageId sent to that server


_PY = FileLanguage("python", "python", "python", "python")
SUFFIXES: dict[str, FileLanguage] = {
    ".py": _PY, ".pyi": _PY,
    ".ts": FileLanguage("typescript", "typescript", "typescript", "typescript"),
    ".mts": FileLanguage("typescript", "typescript", "typescript", "typescript"),
    ".cts": FileLanguage("typescript", "typescript", "typescript", "typescript"),
    ".tsx": FileLanguage("typescript", "tsx", "typescript", "typescriptreact"),
    ".js": FileLanguage("javascript", "javascript", "typescript", "javascript"),
    ".mjs": FileLanguage("javascript", "javascript", "typescript", "javascript"),
    ".cjs": FileLanguage("javascript", "javascript", "typescript", "javascript"),
    ".jsx": FileLanguage("javascript", "javascript", "typescript", "javascriptreact"),
    ".go": FileLanguage("go", "go"), ".rs": FileLanguage("rust", "rust"), ".java": FileLanguage("java", "java"),
    # counted in a project summary only
    ".kt": FileLanguage("kotlin"), ".c": FileLanguage("c"), ".h": FileLanguage("c"), ".cc": FileLanguage("c++"),
    ".cpp": FileLanguage("c++"), ".hpp": FileLanguage("c++"), ".cs": FileLanguage("c#"), ".rb": FileLanguage("ruby"),
    ".php": FileLanguage("php"), ".swift": FileLanguage("swift"), ".scala": FileLanguage("scala"),
    ".sh": FileLanguage("shell"),
}
SERVER_LANGUAGE = {s: f.server for s, f in SUFFIXES.items() if f.server}
SYNTAX_LANGUAGE = {s: f.syntax for s, f in SUFFIXES.items() if f.syntax}
SOURCE_SUFFIXES = tuple(SERVER_LANGUAGE)  # files a language server answers for


def suffix(path: str | Path) -> str:
    """`Path(path).suffix.lower()`: the file name's last dotted part ("" for `.bashrc` or `a.`), on
    strings (~0.8 µs a call: an answer asks for the same few hundred files' languages each time;
    pathlib, or functools for a cache, would load in the CLI's warm path)."""
    text = os.fspath(path)
    name = text.rpartition("/")[2]
    if name in ("", "."):  # (pathlib drops empty and `.` parts: `a.py/`, `a.py/.`)
        name = next((part for part in reversed(text.split("/")) if part not in ("", ".")), "")
    dot = name.rfind(".")
    return name[dot:].lower() if 0 < dot < len(name) - 1 else ""


def server_language(path: str | Path) -> str | None:
    """"python" or "typescript" (the bridge's session languages), or None when no server applies."""
    return SERVER_LANGUAGE.get(suffix(path))


def syntax_language(path: str | Path) -> str | None:
    return SYNTAX_LANGUAGE.get(suffix(path))


def project_language(path: str | Path) -> str | None:
    found = SUFFIXES.get(suffix(path))
    return found.project if found else None


def suffixes_of(*, syntax: str | None = None, server: str | None = None) -> tuple[str, ...]:
    """The suffixes of one syntax language or of one server language, in table order."""
    return tuple(s for s, f in SUFFIXES.items()
                 if (syntax is None or f.syntax == syntax) and (server is None or f.server == server))


def language_ids(server: str) -> dict[str, str]:
    """suffix → LSP languageId for the files of one server language (what lsp_bridge is given)."""
    return {s: f.language_id for s, f in SUFFIXES.items() if f.server == server and f.language_id}
