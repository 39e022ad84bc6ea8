"""getopt-style splitting of argument words, shared by the wrapper handlers and the rules."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from .parse import ParseRefused, SimpleCommand
from .words import Word

Parse = Callable[[Word, SimpleCommand, str], list[SimpleCommand]]
Handler = Callable[[SimpleCommand, Parse], list[SimpleCommand]]


@dataclass
class Scan:
    """An argument list split getopt-style into options (with values) and operands."""

    options: list[tuple[str, Word | None]] = field(default_factory=list)
    operands: list[Word] = field(default_factory=list)
    stopped_at: str | None = None  # the stop_at option that ended option scanning
    unknown: list[Word] = field(default_factory=list)  # unquoted dynamic words in the option area

    def has(self, *names: str) -> bool:
        return any(name in names for name, _ in self.options)

    def value(self, *names: str) -> Word | None:
        for name, value in self.options:
            if name in names and value is not None:
                return value
        return None


def scan(args: list[Word], value_options: set[str] | frozenset[str] = frozenset(),
         stop_at: set[str] | frozenset[str] = frozenset(), *, plus: bool = False) -> Scan:
    """Split `args` into options and operands. `--` ends options; so does the first operand."""
    out = Scan()
    i = 0
    while i < len(args):
        word = args[i]
        v = word.value
        if word.dynamic:
            if not word.source.startswith('"'):
                out.unknown.append(word)
            break
        if v == "--":
            i += 1
            break
        if v.startswith("--") and len(v) > 2:
            name, eq, val = v.partition("=")
            if name in stop_at:
                out.stopped_at = name
                out.options.append((name, Word.literal(val) if eq else None))
                return out
            if name in value_options and not eq:
                out.options.append((name, args[i + 1] if i + 1 < len(args) else None))
                i += 2
                continue
            out.options.append((name, Word.literal(val) if eq else None))
            i += 1
            continue
        if (v.startswith("-") or (plus and v.startswith("+"))) and len(v) > 1:
            sign = v[0]
            for k, ch in enumerate(v[1:], start=1):
                name = sign + ch
                rest = v[k + 1:]
                if name in stop_at:
                    out.stopped_at = name
                    out.options.append((name, Word.literal(rest) if rest else None))
                    return out
                if name in value_options:
                    if rest:
                        out.options.append((name, Word.literal(rest)))
                        i += 1
                    else:
                        out.options.append((name, args[i + 1] if i + 1 < len(args) else None))
                        i += 2
                    break
                out.options.append((name, None))
            else:
                i += 1
            continue
        break
    out.operands = args[i:]
    return out


def joined(words: list[Word], cmd: SimpleCommand, parse: Parse, label: str) -> list[SimpleCommand]:
    if any(w.dynamic for w in words):
        raise ParseRefused(f"{label} runs a command only known at run time; it cannot be checked")
    return parse(Word.literal(" ".join(w.value for w in words)), cmd, label)
