"""Which languages the syntax layer knows, and how to get a parser and queries for each.

The grammars come from the per-language wheels (`tree-sitter-python`, ...). What a language's
definitions, scopes and identifiers are lives in `queries/<language>-<kind>.scm`, never in code
branches. A query file may start with `; inherits: <name>[,<name>]`: the named files' patterns are
appended after its own, so its own patterns come first (and win where the consumers give
precedence to earlier patterns).
"""

from __future__ import annotations

import functools
import hashlib
import importlib
import os
import threading
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path, PurePath

import tree_sitter as ts

from ..errors import CodeagentError
from ..languages import suffixes_of

QUERY_DIR = Path(__file__).with_name("queries")


class UnsupportedLanguageError(CodeagentError):
    """The syntax layer has no grammar for this language or file type."""


@dataclass(frozen=True, slots=True)
class LanguageSpec:
    """One language: its name, file extensions and the grammar wheel that provides it."""

    name: str
    extensions: tuple[str, ...]
    module: str  # the grammar wheel's import name
    function: str  # the function in that module returning the language pointer
    distribution: str  # the wheel's distribution name (for the cache fingerprint)


LANGUAGES: dict[str, LanguageSpec] = {
    spec.name: spec
    for spec in (
        LanguageSpec("python", suffixes_of(syntax="python"), "tree_sitter_python", "language", "tree-sitter-python"),
        LanguageSpec("javascript", suffixes_of(syntax="javascript"), "tree_sitter_javascript", "language",
                     "tree-sitter-javascript"),
        LanguageSpec("typescript", suffixes_of(syntax="typescript"), "tree_sitter_typescript", "language_typescript",
                     "tree-sitter-typescript"),
        LanguageSpec("tsx", suffixes_of(syntax="tsx"), "tree_sitter_typescript", "language_tsx",
                     "tree-sitter-typescript"),
        LanguageSpec("go", suffixes_of(syntax="go"), "tree_sitter_go", "language", "tree-sitter-go"),
        LanguageSpec("rust", suffixes_of(syntax="rust"), "tree_sitter_rust", "language", "tree-sitter-rust"),
        LanguageSpec("java", suffixes_of(syntax="java"), "tree_sitter_java", "language", "tree-sitter-java"),
    )
}

_BY_EXTENSION: dict[str, str] = {ext: spec.name for spec in LANGUAGES.values() for ext in spec.extensions}


_SEPARATORS = tuple({"/", os.sep, os.altsep or "/"})


def language_for(path: str | PurePath) -> str | None:
    """The language of a file, from its extension ("python", "tsx", ...), or None."""
    text = os.fspath(path)
    if not text or text.endswith((*_SEPARATORS, ".")):  # let pathlib sort out the odd cases
        return _BY_EXTENSION.get(PurePath(text).suffix.lower())
    cut = text.rfind("/")
    if len(_SEPARATORS) > 1:  # Windows
        cut = max(cut, text.rfind("\\"))
    name = text[cut + 1:]  # what PurePath(text).name is, fast
    dot = name.rfind(".")
    return _BY_EXTENSION.get(name[dot:].lower()) if 0 < dot < len(name) - 1 else None


def supported_languages() -> list[str]:
    return sorted(LANGUAGES)


def _spec(language: str) -> LanguageSpec:
    try:
        return LANGUAGES[language]
    except KeyError:
        known = ", ".join(sorted(LANGUAGES))
        raise UnsupportedLanguageError(f"no grammar for language {language!r}; supported: {known}") from None


@functools.cache
def get_language(language: str) -> ts.Language:
    """The tree-sitter Language object (loaded once per process)."""
    spec = _spec(language)
    try:
        module = importlib.import_module(spec.module)
    except ImportError as exc:
        raise UnsupportedLanguageError(
            f"the {language} grammar is not installed; run `pip install {spec.distribution}`"
        ) from exc
    return ts.Language(getattr(module, spec.function)())


_parsers = threading.local()


def get_parser(language: str) -> ts.Parser:
    """A parser for `language`, one per thread (tree-sitter parsers are not thread-safe)."""
    cache: dict[str, ts.Parser] | None = getattr(_parsers, "cache", None)
    if cache is None:
        cache = _parsers.cache = {}
    parser = cache.get(language)
    if parser is None:
        parser = cache[language] = ts.Parser(get_language(language))
    return parser


def encode(text: str) -> bytes:
    """The UTF-8 bytes tree-sitter parses; lone surrogates survive the round trip."""
    return text.encode("utf-8", "surrogatepass")


def parse_bytes(source: bytes, language: str) -> ts.Tree:
    return get_parser(language).parse(source)


def parse(text: str, language: str) -> ts.Tree:
    """Parse `text` (a str; columns in the tree are UTF-8 byte offsets)."""
    return parse_bytes(encode(text), language)


def error_nodes(tree: ts.Tree) -> list[ts.Node]:
    """The ERROR and MISSING nodes of a tree, in document order (an ERROR's insides skipped)."""
    found: list[ts.Node] = []
    if not tree.root_node.has_error:
        return found
    cursor = tree.walk()
    while True:
        node = cursor.node
        assert node is not None
        descend = node.has_error
        if node.is_error or node.is_missing:
            found.append(node)
            descend = False
        if descend and cursor.goto_first_child():
            continue
        while not cursor.goto_next_sibling():
            if not cursor.goto_parent():
                return found


def count_errors(text: str, language: str) -> int:
    """How many syntax errors (ERROR and MISSING nodes) tree-sitter finds in `text`."""
    return len(error_nodes(parse(text, language)))


def _query_source(name: str, seen: tuple[str, ...] = ()) -> str:
    if name in seen:
        raise UnsupportedLanguageError(f"query inheritance loop: {' -> '.join((*seen, name))}")
    path = QUERY_DIR / f"{name}.scm"
    if not path.is_file():
        return ""
    text = path.read_text(encoding="utf-8")
    first = text.split("\n", 1)[0]
    parts = [text]
    if first.startswith("; inherits:"):
        for parent in first.removeprefix("; inherits:").split(","):
            parts.append(_query_source(parent.strip(), (*seen, name)))
    return "\n".join(parts)


@functools.cache
def query_source(language: str, kind: str) -> str:
    """The text of `queries/<language>-<kind>.scm` followed by what it inherits ("" if none)."""
    return _query_source(f"{language}-{kind}")


@functools.cache
def get_query(language: str, kind: str) -> ts.Query | None:
    """The compiled `queries/<language>-<kind>.scm` (with what it inherits), or None if the
    language has no such query."""
    source = query_source(language, kind)
    if not source.strip():
        return None
    try:
        return ts.Query(get_language(language), source)
    except ts.QueryError as exc:  # a broken query file is a bug in this package: say which
        raise UnsupportedLanguageError(f"queries/{language}-{kind}.scm does not compile: {exc}") from exc


@functools.cache
def fingerprint() -> str:
    """Changes whenever a query file or a grammar version changes (invalidates caches)."""
    digest = hashlib.sha256()
    for path in sorted(QUERY_DIR.glob("*.scm")):
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    for dist in sorted({spec.distribution for spec in LANGUAGES.values()} | {"tree-sitter"}):
        try:
            version = metadata.version(dist)
        except metadata.PackageNotFoundError:
            version = "missing"
        digest.update(f"{dist}={version}".encode())
    return digest.hexdigest()[:16]
