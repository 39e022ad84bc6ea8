"""Is a new name a valid, non-keyword identifier in the target's language?"""

from __future__ import annotations

import keyword

from ..errors import ToolFailure

# ECMAScript reserved words, strict-mode reserved words and the names strict code may not bind;
# a TypeScript/JavaScript rename to any of these would break the program.
JS_RESERVED = frozenset({
    "break", "case", "catch", "class", "const", "continue", "debugger", "default", "delete", "do", "else",
    "enum", "export", "extends", "false", "finally", "for", "function", "if", "import", "in", "instanceof",
    "new", "null", "return", "super", "switch", "this", "throw", "true", "try", "typeof", "var", "void",
    "while", "with",
    # strict mode (every module and class body)
    "implements", "interface", "let", "package", "private", "protected", "public", "static", "yield", "await",
    "arguments", "eval",
})

_JS_LANGUAGES = frozenset({"javascript", "typescript", "tsx", "jsx"})


def _js_identifier(name: str) -> bool:
    # Python's identifier rules are Unicode ID_Start/ID_Continue (NFKC aside), which is what
    # ECMAScript uses too; it adds "$" anywhere and ZWNJ/ZWJ after the first character.
    if not name:
        return False
    first, rest = name[0], name[1:]
    if not (first == "$" or first.isidentifier()):
        return False
    return all(c in "$\u200c\u200d" or ("a" + c).isidentifier() for c in rest)


def identifier_problem(name: str, language: str) -> str | None:
    """Why `name` cannot be used as an identifier in `language`, or None when it can."""
    if name != name.strip() or not name:
        return f"{name!r} is not an identifier (empty or surrounded by whitespace)"
    if language == "python":
        if not name.isidentifier():
            return f"{name!r} is not a valid Python identifier"
        if keyword.iskeyword(name):
            return f"{name!r} is a Python keyword"
        return None
    if language in _JS_LANGUAGES:
        if not _js_identifier(name):
            return f"{name!r} is not a valid TypeScript/JavaScript identifier"
        if name in JS_RESERVED:
            return f"{name!r} is a reserved word in TypeScript/JavaScript"
        return None
    if not name.isidentifier():
        return f"{name!r} is not a valid identifier"
    return None


def check_identifier(name: str, language: str) -> None:
    """Raise ToolFailure when `name` is not a usable identifier in `language`."""
    problem = identifier_problem(name, language)
    if problem:
        raise ToolFailure(f"new_name: {problem}; choose another name")
