"""Programs that run other programs: wrappers (env, timeout, nice, nohup, setsid, xargs, find -exec,
...) and command strings (`bash -c`, `eval`, `trap`, `watch`, `su -c`); git's ways are in gitcmds.py.
Each handler returns the commands the program would start, so the policy checks those too.
"""

from __future__ import annotations

import os
import shlex
from dataclasses import replace

from .gitcmds import git
from .options import Handler, Parse, joined, scan
from .parse import ParseRefused, SimpleCommand
from .words import Word

# Environment variables whose value is a command line run by some program.
COMMAND_VARS = {
    "GIT_SSH_COMMAND", "GIT_PAGER", "GIT_EDITOR", "GIT_SEQUENCE_EDITOR", "GIT_EXTERNAL_DIFF", "GIT_PROXY_COMMAND",
    "GIT_ASKPASS", "SSH_ASKPASS", "PAGER", "EDITOR", "VISUAL", "MANPAGER", "SYSTEMD_PAGER", "LESSOPEN",
    "LESSCLOSE", "PROMPT_COMMAND", "BROWSER", "RSYNC_RSH", "CVS_RSH",
}
# Variables naming a script that is sourced: refused when generated.
SCRIPT_VARS = {"BASH_ENV", "ENV", "PYTHONSTARTUP", "NODE_OPTIONS"}


def _simple(value_options: set[str], positional: int = 0, *, no_command: set[str] | None = None) -> Handler:
    """A wrapper `prog [options] [positional...] command [args]`."""

    def handle(cmd: SimpleCommand, parse: Parse) -> list[SimpleCommand]:
        args = cmd.argv[1:]
        s = scan(args, value_options)
        if no_command and s.has(*no_command):
            return []
        rest = s.operands[positional:]
        return [cmd.with_argv(rest, cmd.program or "")] if rest else []

    return handle


def _env(cmd: SimpleCommand, parse: Parse) -> list[SimpleCommand]:
    args = cmd.argv[1:]
    cwd: str | None = cmd.cwd
    prefix: list[Word] = []
    assignments: list[tuple[str, Word]] = []
    i = 0
    while i < len(args):
        w = args[i]
        v = w.value
        if w.dynamic:
            break
        if v == "--":
            i += 1
            break
        value: Word | None = None
        name = v
        if v.startswith("--") and "=" in v:
            name, _, attached = v.partition("=")
            value = Word.literal(attached)
        elif v in ("-u", "--unset", "-C", "--chdir", "-S", "--split-string"):
            value = args[i + 1] if i + 1 < len(args) else None
            i += 1
        elif v[:2] in ("-u", "-C", "-S") and len(v) > 2:
            name, value = v[:2], Word.literal(v[2:])
        if name in ("-S", "--split-string") and value is not None:
            if value.dynamic:
                raise ParseRefused(f"env -S {value} is only known at run time and cannot be checked")
            prefix = [Word.literal(p) for p in shlex.split(value.value)]
        elif name in ("-C", "--chdir") and value is not None:
            cwd = join_cwd(cwd, value)
        elif v.startswith("-") and v != "-":
            pass
        elif "=" in v and not v.startswith("="):
            key, _, val = v.partition("=")
            assignments.append((key, Word.literal(val)))
        else:
            break
        i += 1
    rest = prefix + args[i:]
    if not rest:
        return [replace(cmd, argv=[], assignments=assignments, via=(*cmd.via, "env"))] if assignments else []
    inner = cmd.with_argv(rest, "env", cwd=cwd if cwd is not None else False)
    inner.assignments = assignments
    return [inner]


def join_cwd(cwd: str | None, word: Word) -> str | None:
    """The folder `word` names, relative to `cwd` (None when either is unknown)."""
    if word.dynamic or word.glob:
        return None
    if os.path.isabs(word.value):
        return os.path.normpath(word.value)
    return None if cwd is None else os.path.normpath(os.path.join(cwd, word.value))


def _xargs(cmd: SimpleCommand, parse: Parse) -> list[SimpleCommand]:
    opts = {"-a", "-d", "-E", "-I", "-L", "-n", "-P", "-s", "--arg-file", "--delimiter", "--eof", "--replace",
            "--max-lines", "--max-args", "--max-procs", "--max-chars", "--process-slot-var"}
    rest = scan(cmd.argv[1:], opts).operands
    return [cmd.with_argv(rest or [Word.literal("echo")], "xargs")]


def _shell(cmd: SimpleCommand, parse: Parse) -> list[SimpleCommand]:
    s = scan(cmd.argv[1:], {"-o", "+o", "-O", "+O", "--rcfile", "--init-file"}, plus=True)
    if s.has("-c") and s.operands:
        return parse(s.operands[0], cmd, f"{cmd.program} -c")
    return []


def _eval(cmd: SimpleCommand, parse: Parse) -> list[SimpleCommand]:
    args = cmd.argv[1:]
    if not args:
        return []
    if any(a.dynamic for a in args):
        text = " ".join(a.source for a in args)
        raise ParseRefused(f"eval {text} runs code only known at run time; it cannot be checked")
    return parse(Word.literal(" ".join(a.value for a in args)), cmd, "eval")


def _trap(cmd: SimpleCommand, parse: Parse) -> list[SimpleCommand]:
    args = cmd.argv[1:]
    if len(args) >= 2 and not args[0].value.startswith("-") and args[0].value != "":
        return parse(args[0], cmd, "trap")
    return []


def _string_option(*names: str) -> Handler:
    """`prog ... -c 'command string' ...` (su, script, runuser)."""

    def handle(cmd: SimpleCommand, parse: Parse) -> list[SimpleCommand]:
        args = cmd.argv[1:]
        for i, w in enumerate(args):
            for name in names:
                if w.value == name and i + 1 < len(args):
                    return parse(args[i + 1], cmd, f"{cmd.program} {name}")
                if name.startswith("--") and w.value.startswith(name + "="):
                    return parse(Word.literal(w.value[len(name) + 1:]) if not w.dynamic else w, cmd, cmd.program or "")
        return []

    return handle


def _watch(cmd: SimpleCommand, parse: Parse) -> list[SimpleCommand]:
    s = scan(cmd.argv[1:], {"-n", "--interval", "-q", "--equexit"})
    if not s.operands:
        return []
    if s.has("-x", "--exec"):
        return [cmd.with_argv(s.operands, "watch")]
    return joined(s.operands, cmd, parse, "watch")


def _flock(cmd: SimpleCommand, parse: Parse) -> list[SimpleCommand]:
    args = cmd.argv[1:]
    opts = {"-w", "--timeout", "-E", "--conflict-exit-code", "-c", "--command"}
    s = scan(args, opts)
    if s.value("-c", "--command"):
        return parse(s.value("-c", "--command"), cmd, "flock -c")  # type: ignore[arg-type]
    rest = s.operands[1:]
    s2 = scan(rest, opts)
    if s2.value("-c", "--command"):
        return parse(s2.value("-c", "--command"), cmd, "flock -c")  # type: ignore[arg-type]
    return [cmd.with_argv(s2.operands, "flock")] if s2.operands else []


def _parallel(cmd: SimpleCommand, parse: Parse) -> list[SimpleCommand]:
    args = cmd.argv[1:]
    end = next((i for i, w in enumerate(args) if w.value in (":::", "::::", ":::+", "::::+")), len(args))
    s = scan(args[:end], {"-j", "--jobs", "-S", "--sshlogin", "--joblog", "-a", "--arg-file", "--colsep", "-d",
                          "--delimiter", "-I", "--results", "--tmpdir", "--workdir", "--timeout", "-N", "-n", "-L"})
    return joined(s.operands, cmd, parse, "parallel") if s.operands else []


def _find(cmd: SimpleCommand, parse: Parse) -> list[SimpleCommand]:
    args = cmd.argv[1:]
    roots = find_roots(args)
    out: list[SimpleCommand] = []
    i = 0
    while i < len(args):
        if args[i].value in ("-exec", "-execdir", "-ok", "-okdir"):
            action = args[i].value
            j = i + 1
            while j < len(args) and args[j].value not in (";", "+"):
                j += 1
            template = args[i + 1:j]
            if template:
                for root in roots or [Word.literal(".")]:
                    argv = [_replace_braces(w, root) for w in template]
                    out.append(cmd.with_argv(argv, f"find {action}"))
            i = j + 1
            continue
        i += 1
    return out


def _replace_braces(word: Word, root: Word) -> Word:
    if "{}" not in word.value:
        return word
    value = word.value.replace("{}", root.value)
    return Word(value, dynamic=word.dynamic or root.dynamic, glob=word.glob or root.glob, source=value)


def find_roots(args: list[Word]) -> list[Word]:
    """find's starting points: the words before the first expression token."""
    roots = []
    for w in args:
        if w.value.startswith(("-", "(", "!", ")")) and not w.dynamic:
            if w.value in ("-H", "-L", "-P") or w.value.startswith("-O") or w.value.startswith("-D"):
                continue
            break
        roots.append(w)
    return roots


def _busybox(cmd: SimpleCommand, parse: Parse) -> list[SimpleCommand]:
    rest = cmd.argv[1:]
    return [cmd.with_argv(rest, "busybox")] if rest and not rest[0].value.startswith("-") else []


WRAPPERS: dict[str, Handler] = {
    "env": _env,
    "timeout": _simple({"-s", "--signal", "-k", "--kill-after"}, 1),
    "nice": _simple({"-n", "--adjustment"}),
    "nohup": _simple(set()),
    "setsid": _simple(set()),
    "stdbuf": _simple({"-i", "-o", "-e", "--input", "--output", "--error"}),
    "ionice": _simple({"-c", "--class", "-n", "--classdata"}, no_command={"-p", "--pid", "-P", "--pgid", "-u", "--uid"}),
    "chrt": _simple(set(), 1, no_command={"-p", "--pid"}),
    "taskset": _simple(set(), 1, no_command={"-p", "--pid"}),
    "time": _simple({"-o", "--output", "-f", "--format"}),
    "command": _simple(set(), no_command={"-v", "-V"}),
    "builtin": _simple(set()),
    "exec": _simple({"-a"}),
    "unbuffer": _simple(set()),
    "catchsegv": _simple(set()),
    "fakeroot": _simple({"-l", "--lib", "--faked", "-s", "-i"}),
    "strace": _simple({"-o", "-e", "-s", "-u", "-E", "-a", "-b", "-I", "-O", "-P", "-S", "-X"}, no_command={"-p"}),
    "ltrace": _simple({"-o", "-e", "-s", "-u", "-a", "-l", "-n", "-w", "-x", "-A", "-D", "-F"}, no_command={"-p"}),
    "chroot": _simple({"--userspec", "--groups"}, 1),
    "nsenter": _simple({"-t", "--target", "-S", "--setuid", "-G", "--setgid", "-w", "--wd", "-r", "--root"}),
    "unshare": _simple({"--map-user", "--map-group", "--setuid", "--setgid", "-R", "--root", "-w", "--wd"}),
    "sudo": _simple({"-u", "--user", "-g", "--group", "-C", "--close-from", "-D", "--chdir", "-h", "--host",
                     "-p", "--prompt", "-r", "--role", "-t", "--type", "-U", "--other-user", "-T",
                     "--command-timeout"}),
    "doas": _simple({"-u", "-C"}),
    "firejail": _simple(set()),
    "xargs": _xargs,
    "flock": _flock,
    "watch": _watch,
    "parallel": _parallel,
    "find": _find,
    "git": git,
    "eval": _eval,
    "trap": _trap,
    "su": _string_option("-c", "--command", "--session-command"),
    "runuser": _string_option("-c", "--command"),
    "script": _string_option("-c", "--command"),
    "busybox": _busybox,
}
for _shell_name in ("bash", "sh", "dash", "zsh", "ksh", "mksh", "ash", "yash", "fish", "tcsh", "csh", "rbash"):
    WRAPPERS[_shell_name] = _shell
