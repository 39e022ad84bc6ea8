"""A shell command line → every simple command it contains, in order, with its context.

bashlex parses the structure; `words.py` decodes each word from its source. What comes out is a
flat list of `SimpleCommand`s: those of pipelines, lists, subshells, brace groups, if/while/for
bodies, function bodies, command and process substitutions (also inside redirect targets,
assignments and unquoted here-documents). Each knows its redirects, where its stdin comes from and
the working folder it runs in (followed through `cd`; None when it cannot be known).

Constructs bashlex cannot parse but that run no command (`[[ ... ]]`, `$(( ... ))`, `(( ... ))`,
the `time` keyword) are blanked out first; anything else it cannot parse is refused.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from typing import Any

import bashlex
import bashlex.errors

from .words import Word, WordError, decode_word

MAX_COMMAND_CHARS = 200_000
MAX_NESTING = 8
_WRITE_OPS = {">", ">>", ">|", "&>", "&>>", "<>", ">&"}


class ParseRefused(ValueError):
    """The command cannot be parsed (or checked); the message says which part and why."""


@dataclass(frozen=True, slots=True)
class Redirect:
    op: str
    target: Word | None  # None: a file-descriptor duplication such as 2>&1

    @property
    def writes(self) -> bool:
        return self.op in _WRITE_OPS and self.target is not None


@dataclass(slots=True)
class SimpleCommand:
    """One simple command: its words, prefix assignments, redirects and context."""

    argv: list[Word]
    assignments: list[tuple[str, Word]] = field(default_factory=list)
    redirects: list[Redirect] = field(default_factory=list)
    stdin: str | None = None  # "pipe", "heredoc", "herestring", "file" or None (inherited)
    cwd: str | None = None  # absolute; None when a `cd` made it unknowable
    text: str = ""
    via: tuple[str, ...] = ()

    @property
    def program(self) -> str | None:
        """The basename of the program, or None when it is only known at run time."""
        if not self.argv or self.argv[0].dynamic or self.argv[0].glob:
            return None
        return os.path.basename(self.argv[0].value.rstrip("/")) or self.argv[0].value

    def with_argv(self, argv: list[Word], via: str, *, cwd: str | None | bool = True) -> SimpleCommand:
        """The command a wrapper runs: same redirects and stdin, new words, one more `via` step."""
        return replace(self, argv=argv, assignments=[], via=(*self.via, via),
                       cwd=self.cwd if cwd is True else (cwd or None))


class _Cwd:
    __slots__ = ("value",)

    def __init__(self, value: str | None):
        self.value = value

    def copy(self) -> _Cwd:
        return _Cwd(self.value)


# ---------------------------------------------------------------------------- preprocessing
_QUOTED_HEREDOC = re.compile(r"(?<!<)<<(-?)(\s*)(?:'([^'\n]+)'|\"([^\"\n]+)\"|\\(\w+))")
_TIME = re.compile(r"(^|[;&|(){}!\n]|\bthen|\bdo|\belse)(\s*)(time(?:\s+-p)?)(?=\s)")


def _match_parens(src: str, start: int, opening: int) -> int | None:
    """Index just past the `))` closing the `((` whose first paren is at `opening`."""
    depth = 0
    for i in range(opening, len(src)):
        if src[i] == "(":
            depth += 1
        elif src[i] == ")":
            depth -= 1
            if depth == 0:
                return i + 1
    return None


def _runs_commands(text: str) -> bool:
    return "`" in text or re.search(r"\$\((?!\()|[<>]\(", text) is not None


def preprocess(src: str) -> tuple[str, set[int]]:
    """Same-length rewrite bashlex can parse; also returns where quoted here-doc delimiters are."""
    quoted: set[int] = set()

    def unquote_delim(m: re.Match[str]) -> str:
        quoted.add(m.start())
        word = m.group(3) or m.group(4) or m.group(5)
        out = f"<<{m.group(1)}{m.group(2)}{word}"
        return out + " " * (len(m.group(0)) - len(out))

    src = _QUOTED_HEREDOC.sub(unquote_delim, src)
    out = src
    i = 0
    while (i := out.find("((", i)) >= 0:
        end = _match_parens(out, i, i)
        if end is None or out[end - 2:end] != "))" or _runs_commands(out[i:end]):
            i += 2
            continue
        if i > 0 and out[i - 1] == "$":
            out = out[:i - 1] + "0" * (end - i + 1) + out[end:]
        else:
            before = out[:i].rstrip()
            if before == "" or before[-1] in ";&|(){}!\n" or re.search(r"\b(then|do|else|for|while|until)$", before):
                out = out[:i] + ("true" + " " * (end - i))[:end - i] + out[end:]
        i = end
    i = 0
    while (i := out.find("[[", i)) >= 0:
        before = out[:i].rstrip()
        at_command = before == "" or before[-1] in ";&|(){}!\n" or re.search(r"\b(then|do|else|elif|if|while|until)$", before)
        m = re.compile(r"(^|\s)\]\](?=\s|$|[;&|)])").search(out, i + 2)
        if not at_command or m is None or _runs_commands(out[i:m.end()]):
            i += 2
            continue
        end = m.end()
        out = out[:i] + ("true" + " " * (end - i))[:end - i] + out[end:]
        i = end
    out = _TIME.sub(lambda m: m.group(1) + m.group(2) + " " * len(m.group(3)), out)
    return out, quoted


# ---------------------------------------------------------------------------- the walk
class CommandParser:
    """Parses command lines for the policy. `home` expands `~`."""

    def __init__(self, *, home: str):
        self.home = home

    def parse(self, command: str, *, cwd: str | None, via: tuple[str, ...] = ()) -> list[SimpleCommand]:
        if len(via) > MAX_NESTING:
            raise ParseRefused(f"commands nested more than {MAX_NESTING} levels deep ({' → '.join(via)})")
        if len(command) > MAX_COMMAND_CHARS:
            raise ParseRefused(f"the command is {len(command)} characters; at most {MAX_COMMAND_CHARS} can be "
                               "checked (write long scripts to a file and run the file)")
        if "\x00" in command:
            raise ParseRefused("the command contains a NUL character")
        if command.strip() == "":
            return []
        src, quoted = preprocess(command)
        try:
            nodes = bashlex.parse(src)
        except (bashlex.errors.ParsingError, NotImplementedError, AttributeError, IndexError, TypeError) as exc:
            raise ParseRefused(f"cannot parse {_short(command)!r}: {_parse_message(exc)}") from None
        walk = _Walk(self, src, quoted, via)
        for node in nodes:
            walk.node(node, _Cwd(cwd), None)
        return walk.out


def _parse_message(exc: Exception) -> str:
    text = str(exc).strip() or type(exc).__name__
    if isinstance(exc, NotImplementedError):
        m = re.search(r"type = \{([^}]*)\}", text)
        what = m.group(1) if m else text
        return f"the shell construct '{what}' is not supported by the checker; rewrite it (e.g. if/elif for case)"
    return text


def _short(text: str, limit: int = 120) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


class _Walk:
    def __init__(self, parser: CommandParser, src: str, quoted: set[int], via: tuple[str, ...]):
        self.parser = parser
        self.src = src
        self.quoted = quoted
        self.via = via
        self.out: list[SimpleCommand] = []

    def text(self, node: Any) -> str:
        start, end = node.pos
        return str(self.src[start:end])

    def words(self, node: Any) -> list[Word]:
        try:
            return decode_word(self.text(node), home=self.parser.home)
        except WordError as exc:
            raise ParseRefused(str(exc)) from None

    # nested commands (substitutions) anywhere inside a node
    def nested(self, node: Any, cwd: _Cwd) -> None:
        for part in _descendants(node):
            kind = part.kind
            if kind in ("commandsubstitution", "processsubstitution"):
                label = "$(...)" if kind == "commandsubstitution" else "<(...)"
                sub = _Walk(self.parser, self.src, self.quoted, (*self.via, label))
                sub.node(part.command, cwd.copy(), None)
                self.out.extend(sub.out)
            elif kind == "parameter" and _runs_commands(str(getattr(part, "value", ""))):
                raise ParseRefused(f"a command substitution inside ${{...}} cannot be checked: {self.text(part)!r}")

    def node(self, node: Any, cwd: _Cwd, stdin: str | None) -> None:
        kind = node.kind
        if kind == "list":
            for part in node.parts:
                if part.kind != "operator":
                    self.node(part, cwd, stdin)
        elif kind == "pipeline":
            index = 0
            for part in node.parts:
                if part.kind in ("pipe", "reservedword"):
                    continue
                self.node(part, cwd.copy(), "pipe" if index else stdin)
                index += 1
        elif kind == "compound":
            self.compound(node, cwd, stdin)
        elif kind in ("if", "while", "until", "for"):
            inner = cwd.copy()
            for part in node.parts:
                if part.kind in ("reservedword", "operator", "pipe"):
                    continue
                if part.kind == "word":
                    self.nested(part, inner)
                else:
                    self.node(part, inner, stdin)
            if inner.value != cwd.value:
                cwd.value = None
        elif kind == "function":
            for part in node.parts:
                if part.kind not in ("word", "reservedword"):
                    self.node(part, cwd.copy(), None)
        elif kind == "command":
            self.command(node, cwd, stdin)
        elif kind in ("reservedword", "operator", "pipe"):
            return
        else:
            raise ParseRefused(f"unsupported shell construct {kind!r} in {_short(self.text(node))!r}")

    def compound(self, node: Any, cwd: _Cwd, stdin: str | None) -> None:
        first = node.list[0] if node.list else None
        subshell = first is not None and first.kind == "reservedword" and first.word == "("
        inner = cwd.copy() if subshell else cwd
        redirects = self.redirects(getattr(node, "redirects", []) or [], cwd)
        if redirects:
            self.out.append(SimpleCommand([], redirects=redirects, cwd=cwd.value, text=self.text(node), via=self.via))
        in_from = next((r.op for r in redirects if r.op in ("<", "<<", "<<-", "<<<")), None)
        for part in node.list:
            if part.kind != "reservedword":
                self.node(part, inner, _stdin_kind(in_from) or stdin)

    def redirects(self, nodes: list[Any], cwd: _Cwd) -> list[Redirect]:
        out = []
        for r in nodes:
            self.nested(r, cwd)
            target = r.output if hasattr(r, "output") else None
            if r.type in ("<<", "<<-"):
                heredoc = getattr(r, "heredoc", None)
                if heredoc is not None and r.pos[0] not in self.quoted:
                    self.heredoc(str(heredoc.value), cwd)
                out.append(Redirect(r.type, None))
            elif target is None or isinstance(target, int):
                out.append(Redirect(r.type, None))
            else:
                words = self.words(target)
                if len(words) != 1:
                    raise ParseRefused(f"ambiguous redirect target {self.text(target)!r}")
                out.append(Redirect(r.type, words[0]))
        return out

    def heredoc(self, body: str, cwd: _Cwd) -> None:
        """An unquoted here-document expands $(...) and backquotes: check those commands."""
        if not _runs_commands(body):
            return
        escaped = body.replace('"', '\\"')  # a body that still does not parse is refused
        commands = self.parser.parse(f'echo "{escaped}"', cwd=cwd.value, via=(*self.via, "<<here-document"))
        self.out.extend(c for c in commands if c.via != (*self.via, "<<here-document"))

    def command(self, node: Any, cwd: _Cwd, stdin: str | None) -> None:
        argv: list[Word] = []
        assignments: list[tuple[str, Word]] = []
        redirect_nodes = []
        for part in node.parts:
            if part.kind == "redirect":
                redirect_nodes.append(part)
                continue
            self.nested(part, cwd)
            if part.kind == "assignment" and not argv:
                text = self.text(part)
                name, _, value = text.partition("=")
                try:
                    words = decode_word(value, home=self.parser.home) if value else [Word.literal("")]
                except WordError as exc:
                    raise ParseRefused(str(exc)) from None
                assignments.append((name.rstrip("+"), words[0]))
            elif part.kind in ("word", "assignment"):
                argv.extend(self.words(part))
            else:
                raise ParseRefused(f"unsupported part {part.kind!r} in {_short(self.text(node))!r}")
        redirects = self.redirects(redirect_nodes, cwd)
        in_from = next((r.op for r in redirects if r.op in ("<", "<<", "<<-", "<<<")), None)
        cmd = SimpleCommand(argv, assignments, redirects, _stdin_kind(in_from) or stdin, cwd.value,
                            self.text(node), self.via)
        self.out.append(cmd)
        if cmd.program in ("cd", "pushd", "popd"):
            cwd.value = change_dir(cmd, self.parser.home)


def _stdin_kind(op: str | None) -> str | None:
    return {"<": "file", "<<": "heredoc", "<<-": "heredoc", "<<<": "herestring"}.get(op or "")


def change_dir(cmd: SimpleCommand, home: str) -> str | None:
    """The working folder after `cd`/`pushd`/`popd` (None when unknowable)."""
    if cmd.program == "popd":
        return None
    args = [w for w in cmd.argv[1:] if not (w.value.startswith("-") and w.value != "-" and not w.dynamic)]
    if not args:
        return home
    target = args[0]
    if target.dynamic or target.glob or target.value == "-":
        return None
    if os.path.isabs(target.value):
        return os.path.normpath(target.value)
    if cmd.cwd is None:
        return None
    return os.path.normpath(os.path.join(cmd.cwd, target.value))


def _descendants(node: Any) -> Iterator[Any]:
    """Substitution and parameter nodes inside a word, assignment or redirect (not deeper)."""
    stack = list(getattr(node, "parts", []) or [])
    for attr in ("output",):
        child = getattr(node, attr, None)
        if child is not None and not isinstance(child, int):
            stack.append(child)
    while stack:
        part = stack.pop()
        kind = getattr(part, "kind", "")
        if kind in ("commandsubstitution", "processsubstitution", "parameter"):
            yield part
            if kind == "parameter":
                stack.extend(getattr(part, "parts", []) or [])
            continue
        stack.extend(getattr(part, "parts", []) or [])
