"""Layer 1 of shell safety: rules checked on the parsed command before anything runs.

Every simple command in the line is checked (see parse.py), and so is every command a wrapper
would start (see unwrap.py): `timeout 5 sudo x`, `bash -c 'rm -rf /'`, `find / -exec rm {} +`,
`git -c core.pager='...' log`. Rules are configuration (`shell.policy` in the settings, the
built-in ones in rules.py); the first rule that matches decides. A command whose program name is
only known at run time, or that cannot be parsed, is refused. This layer is advice made strict,
not the security boundary: the OS sandbox is.
"""

from __future__ import annotations

import fnmatch
import os
import re
import shlex
from collections.abc import Iterator
from dataclasses import dataclass

from ..config import PolicyRule, ShellPolicySettings
from .errors import PolicyConfigError
from .options import Scan, scan
from .parse import MAX_NESTING, CommandParser, ParseRefused, SimpleCommand
from .rules import DEFAULT_RULES
from .unwrap import COMMAND_VARS, SCRIPT_VARS, WRAPPERS, find_roots
from .words import Word


@dataclass(frozen=True, slots=True)
class Refusal:
    """Why one part of a command was refused."""

    rule: str
    reason: str
    command: str
    via: tuple[str, ...] = ()
    detail: str = ""

    def __str__(self) -> str:
        where = f" (run through {' → '.join(self.via)})" if self.via else ""
        detail = f" [{self.detail}]" if self.detail else ""
        return f"rule '{self.rule}' refused `{_short(self.command)}`{where}: {self.reason}{detail}"


def _short(text: str, limit: int = 160) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


class Policy:
    """Checks command lines (`check_shell`) and argument vectors (`check_argv`)."""

    def __init__(self, settings: ShellPolicySettings, *, root: str | os.PathLike[str], home: str):
        defaults = [r for r in DEFAULT_RULES if r.id not in settings.disabled_rules] if settings.default_rules else []
        self.rules: list[PolicyRule] = [*settings.rules, *defaults]
        self._regex: dict[int, list[re.Pattern[str]]] = {}
        for rule in self.rules:
            try:
                self._regex[id(rule)] = [re.compile(p) for p in rule.args]
            except re.error as exc:
                raise PolicyConfigError(f"shell policy rule {rule.id!r}: bad regular expression: {exc}") from exc
        self.root = os.path.realpath(os.fspath(root))
        self.home = home
        self.writable = [os.path.normpath(os.path.expanduser(p)) for p in settings.writable_paths]
        self.parser = CommandParser(home=home)

    # ------------------------------------------------------------------ entry points
    def check_shell(self, command: str, cwd: str | os.PathLike[str]) -> list[Refusal]:
        try:
            commands = self.parser.parse(command, cwd=os.fspath(cwd))
        except ParseRefused as exc:
            return [Refusal("unparsable", str(exc), command)]
        return self._check_all(commands)

    def check_argv(self, argv: list[str], cwd: str | os.PathLike[str]) -> list[Refusal]:
        cmd = SimpleCommand([Word.literal(a) for a in argv], cwd=os.fspath(cwd), text=shlex.join(argv))
        return self._check_all([cmd])

    # ------------------------------------------------------------------ expansion
    def _check_all(self, commands: list[SimpleCommand]) -> list[Refusal]:
        out: list[Refusal] = []
        for cmd in commands:
            try:
                for view in self._expand(cmd, 0):
                    refusal = self._evaluate(view)
                    if refusal is not None and refusal not in out:
                        out.append(refusal)
            except ParseRefused as exc:
                out.append(Refusal("unparsable", str(exc), cmd.text or " ".join(map(str, cmd.argv)), cmd.via))
        return out

    def _parse_nested(self, word: Word, cmd: SimpleCommand, label: str) -> list[SimpleCommand]:
        if word.dynamic:
            raise ParseRefused(f"{label} runs `{word}`, which is only known at run time and cannot be checked")
        return self.parser.parse(word.value, cwd=cmd.cwd, via=(*cmd.via, label))

    def _expand(self, cmd: SimpleCommand, depth: int) -> Iterator[SimpleCommand]:
        if depth > MAX_NESTING * 2:
            raise ParseRefused("wrappers nested too deep to check")
        yield cmd
        for name, value in cmd.assignments:
            if name in COMMAND_VARS:
                for inner in self._parse_nested(value, cmd, f"{name}="):
                    yield from self._expand(inner, depth + 1)
            elif name in SCRIPT_VARS and (value.dynamic or value.procsub):
                raise ParseRefused(f"{name}={value} names code only known at run time")
        for inner in _git_env_config(cmd, self._parse_nested):
            yield from self._expand(inner, depth + 1)
        program = cmd.program
        handler = WRAPPERS.get(program or "")
        if handler is None:
            return
        for inner in handler(cmd, self._parse_nested):
            yield from self._expand(inner, depth + 1)

    # ------------------------------------------------------------------ rules
    def _evaluate(self, cmd: SimpleCommand) -> Refusal | None:
        text = cmd.text if not cmd.via else " ".join(str(w) for w in cmd.argv) or cmd.text
        if cmd.argv and cmd.program is None:
            what = "a glob" if cmd.argv[0].glob and not cmd.argv[0].dynamic else "an expansion"
            return Refusal("dynamic-command", f"the program name `{cmd.argv[0]}` is {what} whose value is only "
                           "known at run time, so the command cannot be checked", text, cmd.via)
        for rule in self.rules:
            detail = self._match(rule, cmd)
            if detail is None:
                continue
            if rule.action == "allow":
                return None
            return Refusal(rule.id, rule.reason, text, cmd.via, detail)
        return None

    def _match(self, rule: PolicyRule, cmd: SimpleCommand) -> str | None:
        program = cmd.program or ""
        if not cmd.argv and rule.redirects is None:
            return None
        if not any(fnmatch.fnmatchcase(program, p) for p in rule.programs):
            return None
        s = scan(cmd.argv[1:], set(rule.value_options), set(rule.stop_at))
        details: list[str] = []
        if rule.flags:
            hit = _flag_hit(s, rule.flags)
            if hit is None:
                return None
            details.append(hit)
        if rule.args:
            regexes = self._regex[id(rule)]
            arg = next((w for w in cmd.argv[1:] for r in regexes if r.search(w.value)), None)
            if arg is None:
                return None
            details.append(f"argument {_short(str(arg), 60)!r}")
        if rule.paths is not None:
            hit = self._path_hit(rule, cmd, s)
            if hit is None:
                return None
            details.append(hit)
        if rule.redirects is not None:
            hit = self._redirect_hit(cmd)
            if hit is None:
                return None
            details.append(hit)
        if rule.stdin_code:
            hit = _stdin_code(cmd, s)
            if hit is None:
                return None
            details.append(hit)
        return "; ".join(details)

    def _path_words(self, rule: PolicyRule, cmd: SimpleCommand, s: Scan) -> list[Word]:
        words: list[Word] = []
        for spec in rule.path_args:
            if spec == "operands":
                words.extend(s.operands)
                words.extend(s.unknown)
            elif spec == "last":
                words.extend(s.operands[-1:] or s.unknown[-1:])
            elif spec.startswith("opt:"):
                words.extend(v for name, v in s.options if name == spec[4:] and v is not None)
            elif spec.startswith("kv:"):
                key = spec[3:] + "="
                words.extend(Word(w.value[len(key):], dynamic=w.dynamic, glob=w.glob, source=w.source)
                             for w in cmd.argv[1:] if w.value.startswith(key))
            elif spec == "find-roots":
                words.extend(find_roots(cmd.argv[1:]) or [Word.literal(".")])
        return words

    def _path_hit(self, rule: PolicyRule, cmd: SimpleCommand, s: Scan) -> str | None:
        for word in self._path_words(rule, cmd, s):
            where = self.locate(word, cmd.cwd)
            if rule.paths == "outside" and where.startswith("outside"):
                return f"path {str(word)!r} is {where}"
            if rule.paths == "root" and where == "root":
                return f"path {str(word)!r} is the workspace root"
        return None

    def _redirect_hit(self, cmd: SimpleCommand) -> str | None:
        for r in cmd.redirects:
            if r.writes and r.target is not None:
                where = self.locate(r.target, cmd.cwd)
                if where.startswith("outside"):
                    return f"redirect {r.op} {str(r.target)!r} is {where}"
        return None

    def locate(self, word: Word, cwd: str | None) -> str:
        """Where a path argument points: 'inside', 'root', 'allowed' or 'outside ...' (with why)."""
        if word.procsub:
            return "inside"
        if word.dynamic:
            return "outside the workspace or unknown (only known at run time)"
        value = word.value
        whole_root = False
        if word.glob:
            star = min((value.find(c) for c in "*?[" if c in value), default=len(value))
            prefix = value[:star]
            whole_root = os.path.basename(value.rstrip("/")) in ("*", ".*") or value.rstrip("/") in ("*", ".*")
            value = prefix if prefix.endswith("/") or prefix == "" else os.path.dirname(prefix)
            value = value or "."
        if not os.path.isabs(value):
            if cwd is None:
                return "outside the workspace or unknown (the working folder after `cd` is not known)"
            value = os.path.join(cwd, value)
        lexical = os.path.normpath(value)
        real = os.path.realpath(lexical)
        for candidate in (real, lexical):
            if candidate == self.root:
                return "root" if (not word.glob or whole_root) else "inside"
        if real.startswith(self.root + os.sep):
            return "inside"
        if self.root.startswith(real.rstrip("/") + "/"):
            return f"outside the workspace ({real}, a folder that contains the workspace)"
        # device paths are links to per-process things (/dev/stdout); judge those by their name
        candidate = lexical if lexical.startswith(("/dev/", "/proc/self/")) else real
        for allowed in self.writable:
            if candidate == allowed or candidate.startswith(allowed.rstrip("/") + "/"):
                return "allowed"
        return f"outside the workspace ({real})"


def _flag_hit(s: Scan, flags: list[str]) -> str | None:
    wanted_short = {f for f in flags if not f.startswith("--")}
    wanted_long = [f for f in flags if f.startswith("--")]
    for name, _value in s.options:
        if name in wanted_short:
            return f"option {name}"
        if name.startswith("--"):
            for long in wanted_long:
                if name == long or (len(name) >= 4 and long.startswith(name)):
                    return f"option {name}"
    for word in s.unknown:
        return f"argument {str(word)!r} may be one of {', '.join(flags)} (only known at run time)"
    return None


def _stdin_code(cmd: SimpleCommand, s: Scan) -> str | None:
    if s.stopped_at is not None:
        return None
    if s.operands:
        first = s.operands[0]
        if first.procsub:
            return f"runs the generated file {first}"
        if not first.dynamic and (first.value in ("-", "/dev/stdin")
                                  or first.value.startswith(("/dev/fd/", "/proc/self/fd/"))):
            return f"runs code from {first.value}"
        return None
    if cmd.stdin in ("pipe", "heredoc", "herestring"):
        return f"reads its code from a {cmd.stdin.replace('herestring', 'here-string')}"
    return None


def _git_env_config(cmd: SimpleCommand, parse: object) -> list[SimpleCommand]:
    """GIT_CONFIG_KEY_n / GIT_CONFIG_VALUE_n pairs set for a command act like `git -c`."""
    env = dict(cmd.assignments)
    out: list[SimpleCommand] = []
    for name, key in env.items():
        if name.startswith("GIT_CONFIG_KEY_"):
            value = env.get("GIT_CONFIG_VALUE_" + name[len("GIT_CONFIG_KEY_"):], Word.literal(""))
            joined = Word(f"{key.value}={value.value}", dynamic=key.dynamic or value.dynamic)
            fake = SimpleCommand([Word.literal("git"), Word.literal("-c"), joined], cwd=cmd.cwd, text=cmd.text,
                                 via=(*cmd.via, name))
            out.append(fake)
    return out
