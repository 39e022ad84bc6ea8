"""Shell words as bash would see them: quote removal, ANSI-C strings, brace expansion, tildes.

bashlex gives the structure of a command line (and the source span of every word) but its quote
removal is not bash's (`'it''s'` stays `it''s`) and it does no brace expansion, so a deny rule
keyed on its word text could be dodged with `'r''m'` or `{rm,-rf,/}`. This module decodes each
word from its source text instead. A word whose value depends on run-time state (a parameter,
a command substitution) is marked dynamic: rules must not trust its text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

MAX_BRACE_WORDS = 256
_NAME_START = re.compile(r"[A-Za-z_0-9@*#?$!-]")
_SEQ = re.compile(r"^(-?\d+)\.\.(-?\d+)(?:\.\.(-?\d+))?$|^([A-Za-z])\.\.([A-Za-z])(?:\.\.(-?\d+))?$")
_ANSI_SIMPLE = {"n": "\n", "t": "\t", "r": "\r", "a": "\a", "b": "\b", "f": "\f", "v": "\v",
                "e": "\x1b", "E": "\x1b", "\\": "\\", "'": "'", '"': '"', "?": "?"}


class WordError(ValueError):
    """A word that cannot be decoded (unbalanced quotes, too many brace expansions)."""


@dataclass(frozen=True, slots=True)
class Word:
    """One argument after quote removal. `dynamic`: its value is only known at run time."""

    value: str
    dynamic: bool = False
    glob: bool = False  # has unquoted *, ? or [ (bash would expand it against the file system)
    source: str = ""
    procsub: bool = False  # the whole word is a process substitution <(...) / >(...)

    @classmethod
    def literal(cls, value: str) -> Word:
        return cls(value, source=value)

    def __str__(self) -> str:
        return self.source or self.value


# A decoded character: (text, quoted). Dynamic spans are kept as one element with quoted=True
# so that brace expansion never looks inside them.
_Char = tuple[str, bool]


def _skip_balanced(src: str, i: int, open_: str, close: str) -> int:
    """Index just past the `close` matching the `open_` at src[i] (quotes respected)."""
    depth = 0
    while i < len(src):
        c = src[i]
        if c == "\\":
            i += 2
            continue
        if c == "'" and open_ == "(":
            j = src.find("'", i + 1)
            i = len(src) if j < 0 else j + 1
            continue
        if c == '"':
            i = _skip_double(src, i + 1)
            continue
        if c == open_:
            depth += 1
        elif c == close:
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    raise WordError(f"unbalanced {open_!r} in {src!r}")


def _skip_double(src: str, i: int) -> int:
    """Index just past the closing double quote of a string starting at src[i]."""
    while i < len(src):
        c = src[i]
        if c == "\\":
            i += 2
            continue
        if c == '"':
            return i + 1
        if c == "$" and i + 1 < len(src) and src[i + 1] == "(":
            i = _skip_balanced(src, i + 1, "(", ")")
            continue
        if c == "`":
            j = src.find("`", i + 1)
            i = len(src) if j < 0 else j + 1
            continue
        i += 1
    raise WordError(f"unterminated double quote in {src!r}")


def _dollar(src: str, i: int) -> int | None:
    """If src[i] == '$' starts an expansion, the index just past it; None for a literal '$'."""
    nxt = src[i + 1] if i + 1 < len(src) else ""
    if nxt == "(":
        return _skip_balanced(src, i + 1, "(", ")")
    if nxt == "{":
        return _skip_balanced(src, i + 1, "{", "}")
    if nxt and _NAME_START.match(nxt):
        j = i + 2
        if nxt.isalpha() or nxt == "_":
            while j < len(src) and (src[j].isalnum() or src[j] == "_"):
                j += 1
        return j
    return None


def _ansi_c(src: str, i: int, out: list[_Char]) -> int:
    """Decode $'...' starting at src[i] (the $); return the index past the closing quote."""
    i += 2
    while i < len(src):
        c = src[i]
        if c == "'":
            return i + 1
        if c == "\\" and i + 1 < len(src):
            e = src[i + 1]
            if e in _ANSI_SIMPLE:
                out.append((_ANSI_SIMPLE[e], True))
                i += 2
            elif e in "xuU":
                width = {"x": 2, "u": 4, "U": 8}[e]
                m = re.match(rf"[0-9A-Fa-f]{{1,{width}}}", src[i + 2:])
                if not m:
                    out.append(("\\" + e, True))
                    i += 2
                else:
                    out.append((chr(int(m.group(), 16)), True))
                    i += 2 + len(m.group())
            elif e in "01234567":
                m = re.match(r"[0-7]{1,3}", src[i + 1:])
                assert m
                out.append((chr(int(m.group(), 8) & 0xFF), True))
                i += 1 + len(m.group())
            elif e == "c" and i + 2 < len(src):
                out.append((chr(ord(src[i + 2]) & 0x1F), True))
                i += 3
            else:
                out.append(("\\" + e, True))
                i += 2
            continue
        out.append((c, True))
        i += 1
    raise WordError(f"unterminated $'...' in {src!r}")


def decode_chars(src: str) -> tuple[list[_Char], bool, bool]:
    """Quote-remove `src`: (characters with their quoted flag, dynamic?, unquoted glob?)."""
    out: list[_Char] = []
    dynamic = False
    i = 0
    while i < len(src):
        c = src[i]
        if c == "\\":
            if i + 1 < len(src) and src[i + 1] != "\n":  # backslash-newline: a line continuation
                out.append((src[i + 1], True))
            i += 2
        elif c == "'":
            j = src.find("'", i + 1)
            if j < 0:
                raise WordError(f"unterminated single quote in {src!r}")
            out.extend((ch, True) for ch in src[i + 1:j])
            i = j + 1
        elif c == "$" and src[i + 1:i + 2] == "'":
            i = _ansi_c(src, i, out)
        elif c == "$" and src[i + 1:i + 2] == '"':
            i += 1  # $"..." is a translatable string: same as "..."
        elif c == '"':
            end = _skip_double(src, i + 1)
            k = i + 1
            while k < end - 1:
                d = src[k]
                if d == "\\" and k + 1 < end - 1 and src[k + 1] in '$`"\\\n':
                    if src[k + 1] != "\n":
                        out.append((src[k + 1], True))
                    k += 2
                elif d == "$" and (stop := _dollar(src, k)) is not None:
                    out.append((src[k:stop], True))
                    dynamic = True
                    k = stop
                elif d == "`":
                    stop = src.find("`", k + 1)
                    stop = end - 1 if stop < 0 else stop + 1
                    out.append((src[k:stop], True))
                    dynamic = True
                    k = stop
                else:
                    out.append((d, True))
                    k += 1
            i = end
        elif c == "$" and (stop := _dollar(src, i)) is not None:
            out.append((src[i:stop], True))
            dynamic = True
            i = stop
        elif c == "`":
            j = src.find("`", i + 1)
            if j < 0:
                raise WordError(f"unterminated backquote in {src!r}")
            out.append((src[i:j + 1], True))
            dynamic = True
            i = j + 1
        elif c in "<>" and src[i + 1:i + 2] == "(":
            stop = _skip_balanced(src, i + 1, "(", ")")
            out.append((src[i:stop], True))
            dynamic = True
            i = stop
        else:
            out.append((c, False))
            i += 1
    return out, dynamic, _has_glob(out)


def _has_glob(chars: list[_Char]) -> bool:
    """Unquoted * or ?, or an unquoted [ closed by a later unquoted ] (a lone `[` is the test command)."""
    opened = False
    for ch, quoted in chars:
        if quoted:
            continue
        if ch in "*?" or (ch == "]" and opened):
            return True
        opened = opened or ch == "["
    return False


def _find_brace(chars: list[_Char], start: int) -> tuple[int, int, list[list[_Char]]] | None:
    """The first expandable {..} at or after `start`: (open index, close index, alternatives)."""
    for i in range(start, len(chars)):
        if chars[i] != ("{", False):
            continue
        depth, commas = 0, [i]
        for j in range(i, len(chars)):
            ch, quoted = chars[j]
            if quoted:
                continue
            if ch == "{":
                depth += 1
            elif ch == "}":
                depth -= 1
                if depth == 0:
                    if len(commas) > 1:
                        bounds = [*commas, j]
                        return i, j, [chars[a + 1:b] for a, b in zip(bounds, bounds[1:], strict=False)]
                    seq = _sequence("".join(c for c, _ in chars[i + 1:j]))
                    if seq is not None and all(not q for _, q in chars[i + 1:j]):
                        return i, j, [[(s, True)] for s in seq]
                    break
            elif ch == "," and depth == 1:
                commas.append(j)
    return None


def _sequence(text: str) -> list[str] | None:
    m = _SEQ.match(text)
    if not m:
        return None
    if m.group(1) is not None:
        a, b = int(m.group(1)), int(m.group(2))
        step = abs(int(m.group(3) or 1)) or 1
        rng = range(a, b + 1, step) if a <= b else range(a, b - 1, -step)
        if len(rng) > MAX_BRACE_WORDS:
            raise WordError(f"brace sequence {{{text}}} expands to more than {MAX_BRACE_WORDS} words")
        return [str(n) for n in rng]
    a, b = ord(m.group(4)), ord(m.group(5))
    step = abs(int(m.group(6) or 1)) or 1
    return [chr(n) for n in (range(a, b + 1, step) if a <= b else range(a, b - 1, -step))]


def brace_expand(chars: list[_Char]) -> list[list[_Char]]:
    """Bash brace expansion on unquoted braces, bounded to MAX_BRACE_WORDS results."""
    found = _find_brace(chars, 0)
    if found is None:
        return [chars]
    i, j, alternatives = found
    out: list[list[_Char]] = []
    for alt in alternatives:
        out.extend(brace_expand(chars[:i] + alt + chars[j + 1:]))
        if len(out) > MAX_BRACE_WORDS:
            raise WordError(f"brace expansion expands to more than {MAX_BRACE_WORDS} words")
    return out


def decode_word(src: str, *, home: str | None = None) -> list[Word]:
    """The words bash would produce from one source word (brace expansion may make several)."""
    if src.startswith(("<(", ">(")) and src.endswith(")"):
        return [Word(src, dynamic=True, source=src, procsub=True)]
    chars, dynamic, glob = decode_chars(src)
    words = []
    expansions = brace_expand(chars)
    for expanded in expansions:
        value = "".join(c for c, _ in expanded)
        if home is not None and expanded and expanded[0] == ("~", False):
            rest = value[1:]
            if rest == "" or rest.startswith("/"):
                value = home + rest
            else:  # ~user: another user's home, unknown here
                dynamic = True
        words.append(Word(value, dynamic=dynamic, glob=glob, source=src if len(expansions) == 1 else value))
    return words
