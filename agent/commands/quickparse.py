"""The command lines a warm daemon answers, read without argparse: the commands' own argument
tables (arguments.py, navigation_arguments.py, tool_command.py), in their canonical form only.

argparse, with the re, gettext and enum modules it imports and a formatter per argument, cost a
warm `codeagent refs` ~10 ms of its ~60. Here a command line is read only when every word is
plain: an exact option of the table (a flag, or an option and its value as the next word), or a
positional. Anything else — an abbreviated option, `--opt=value`, `-h`, an unknown option, `--`,
a value that starts with `-` (argparse may take it for an option), a value its type or choices
refuse, the wrong number of positionals, two options of an exclusive pair — returns None, and
the caller leaves the command line to argparse, which accepts it or prints its usual error. So the
grammar and every message stay argparse's (tests/test_quickparse.py checks both parsers agree).
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence
    from typing import Any

    _Arg = tuple[tuple[str, ...], dict[str, Any]]

_KNOWN = frozenset({"help", "action", "default", "type", "choices", "metavar"})  # what this reads of an argument


class Parsed:
    """The values of a parsed command line, as attributes (what argparse's Namespace holds)."""

    def __init__(self, values: dict[str, Any]) -> None:
        self.__dict__.update(values)

    if TYPE_CHECKING:
        def __getattr__(self, name: str) -> Any: ...


def parse(table: Iterable[_Arg], words: Sequence[str], exclusive: Sequence[str] = ()) -> Parsed | None:
    """`words` read by the grammar of `table` (argparse's add_argument calls), or None when they
    are not in the canonical form (argparse then decides). `exclusive`: options of which at most
    one may be given (a mutually exclusive group)."""
    options: dict[str, tuple[str, dict[str, Any]]] = {}
    positionals: list[str] = []
    values: dict[str, Any] = {}
    for flags, kw in table:
        if not kw.keys() <= _KNOWN or kw.get("action", "store") not in ("store", "store_true"):
            return None  # (an argument this reader does not know the rules of)
        if not flags[0].startswith("-"):
            positionals.append(flags[0])
            continue
        if not flags[0].startswith("--") or ("type" in kw and isinstance(kw.get("default"), str)):
            return None  # (argparse converts a string default: none of the tables has one)
        dest = flags[0][2:].replace("-", "_")
        for flag in flags:
            options[flag] = (dest, kw)
        values[dest] = False if kw.get("action") == "store_true" else kw.get("default")
    given: list[str] = []
    seen: set[str] = set()
    at = 0
    while at < len(words):
        word = words[at]
        at += 1
        if not _plain(word):
            found = options.get(word)
            if found is None:
                return None
            dest, kw = found
            seen.add(word)
            if kw.get("action") == "store_true":
                values[dest] = True
                continue
            if at == len(words) or not _plain(words[at]):
                return None
            value = _value(kw, words[at])
            if value is _REFUSED:
                return None
            values[dest] = value
            at += 1
        else:
            given.append(word)
    if len(given) != len(positionals) or len(seen & set(exclusive)) > 1:
        return None
    values.update(zip(positionals, given, strict=True))
    return Parsed(values)


def _plain(word: str) -> bool:
    """A word argparse reads as a value, whatever the table: no leading `-` (a lone `-` too)."""
    return not word.startswith("-") or word == "-"


_REFUSED = object()


def _value(kw: dict[str, Any], raw: str) -> Any:
    """`raw` as argparse stores it (type, then choices), or _REFUSED (argparse's error then)."""
    convert = kw.get("type")
    try:
        value = convert(raw) if convert is not None else raw
    except (TypeError, ValueError):
        return _REFUSED
    choices = kw.get("choices")
    if choices is not None and value not in choices:
        return _REFUSED
    return value
