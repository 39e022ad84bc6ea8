"""git's ways of running other commands: configuration keys whose value is a command line
(core.pager, core.sshCommand, aliases starting with `!`, ...), set with `git -c`, `git config`
or GIT_CONFIG_* variables, and subcommands that run commands (submodule foreach, bisect run,
rebase --exec, filter-branch)."""

from __future__ import annotations

import re
import shlex

from .options import Parse, joined, scan
from .parse import ParseRefused, SimpleCommand
from .words import Word

_GIT_COMMAND_KEY = re.compile(
    r"^(core\.(pager|editor|sshcommand|gitproxy|askpass)|sequence\.editor|diff\.external|diff\..+\.(textconv|command)"
    r"|merge\..+\.driver|filter\..+\.(clean|smudge|process)|gpg(\..+)?\.program|pager\..+"
    r"|interactive\.difffilter|uploadpack\.packobjectshook|remote\..+\.(uploadpack|receivepack)"
    r"|(merge|diff)tool\..+\.cmd|web\.browser|browser\..+\.cmd|man\..+\.cmd|credential(\..+)?\.helper)$", re.I)
_GIT_UNCHECKABLE_KEY = re.compile(r"^(core\.(hookspath|fsmonitor|worktree)|include\.path|includeif\..+\.path"
                                  r"|sendemail\..+|instaweb\..+)$", re.I)


def git(cmd: SimpleCommand, parse: Parse) -> list[SimpleCommand]:
    """What `git` may run: -c/--config-env values, `git config` of command keys, aliases with
    `!`, submodule foreach, bisect run, rebase --exec, filter-branch filters."""
    args = cmd.argv[1:]
    out: list[SimpleCommand] = []
    opts = {"-c", "-C", "--git-dir", "--work-tree", "--namespace", "--super-prefix", "--config-env", "--list-cmds"}
    s = scan(args, opts)
    for name, value in s.options:
        if name == "-c" and value is not None:
            out.extend(_git_config(value, None, cmd, parse, "git -c"))
        elif name == "--config-env" and value is not None:
            key = value.value.partition("=")[0]
            if _GIT_COMMAND_KEY.match(key) or _GIT_UNCHECKABLE_KEY.match(key) or key.lower().startswith("alias."):
                raise ParseRefused(f"git --config-env {value.value}: the value of {key} comes from the environment "
                                   "and cannot be checked")
        elif name == "--exec-path" and value is not None:
            raise ParseRefused("git --exec-path=... makes git run programs from another folder; not allowed")
    sub = s.operands
    if not sub:
        return out
    verb, rest = sub[0].value, sub[1:]
    if verb == "config":
        r = scan(rest, {"-f", "--file", "--blob", "--type", "--default", "--comment"})
        keys = [w for w in r.operands]
        if len(keys) >= 2 and not r.has("--get", "--get-all", "--get-regexp", "--unset", "--unset-all", "-l", "--list"):
            out.extend(_git_config(keys[0], keys[1], cmd, parse, "git config"))
    elif verb == "submodule" and rest and rest[0].value == "foreach":
        body = [w for w in rest[1:] if w.value not in ("--recursive", "-q", "--quiet")]
        if body:
            out.extend(joined(body, cmd, parse, "git submodule foreach"))
    elif verb == "bisect" and rest and rest[0].value == "run" and len(rest) > 1:
        out.append(cmd.with_argv(rest[1:], "git bisect run"))
    elif verb == "rebase":
        r = scan(rest, {"-x", "--exec", "--onto", "-s", "--strategy", "-X", "--strategy-option"})
        for name, value in r.options:
            if name in ("-x", "--exec") and value is not None:
                out.extend(parse(value, cmd, "git rebase --exec"))
    elif verb == "filter-branch":
        r = scan(rest, {"--env-filter", "--tree-filter", "--index-filter", "--parent-filter", "--msg-filter",
                        "--commit-filter", "--tag-name-filter", "--subdirectory-filter", "-d", "--original"})
        for name, value in r.options:
            if name.endswith("-filter") and name != "--subdirectory-filter" and value is not None:
                out.extend(parse(value, cmd, f"git filter-branch {name}"))
    return out


def _git_config(key_word: Word, value: Word | None, cmd: SimpleCommand, parse: Parse, label: str) -> list[SimpleCommand]:
    if value is None:
        key, eq, val = key_word.value.partition("=")
        if key_word.dynamic:
            raise ParseRefused(f"{label} {key_word}: only known at run time; cannot be checked")
        if not eq:
            return []
        value = Word.literal(val)
    else:
        key = key_word.value
    if key_word.dynamic:
        raise ParseRefused(f"{label} {key_word}: only known at run time; cannot be checked")
    low = key.lower()
    if _GIT_UNCHECKABLE_KEY.match(low):
        raise ParseRefused(f"{label} {key}=...: makes git run code that cannot be checked")
    if low.startswith("alias."):
        if value.dynamic:
            raise ParseRefused(f"{label} {key}: the alias is only known at run time")
        if value.value.startswith("!"):
            return parse(Word.literal(value.value[1:]), cmd, f"{label} {key}")
        return [cmd.with_argv([Word.literal("git"), *map(Word.literal, shlex.split(value.value))], f"{label} {key}")]
    if _GIT_COMMAND_KEY.match(low):
        text = value.value
        if low.endswith(".helper") and not text.startswith("!"):
            return []
        return parse(Word.literal(text.lstrip("!")) if not value.dynamic else value, cmd, f"{label} {key}")
    return []
