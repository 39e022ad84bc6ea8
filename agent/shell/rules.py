"""The built-in policy rules. Users add their own (checked first) and can drop these by id."""

from __future__ import annotations

from ..config import PolicyRule

SHELLS = ["bash", "sh", "dash", "zsh", "ksh", "mksh", "ash", "yash", "fish", "tcsh", "csh"]
PYTHONS = ["python", "python[0-9]*", "pypy", "pypy[0-9]*"]
NODES = ["node", "nodejs", "bun"]
_PY_VALUE_OPTS = ["-W", "-X", "-Q"]
_NODE_VALUE_OPTS = ["-r", "--require", "--import", "--loader", "-C", "--conditions", "--input-type", "--title"]

# Commands that change or remove files (the paths they act on are checked).
_DESTROY_ANY = ["rm", "rmdir", "unlink", "shred", "truncate", "mv", "chmod", "chown", "chgrp", "chattr",
                "setfacl", "touch", "mkdir", "tee", "mkfifo", "mknod"]
_DESTROY_LAST = ["cp", "ln", "install", "rsync", "scp"]

DEFAULT_RULES: list[PolicyRule] = [
    PolicyRule(
        id="privilege-escalation",
        programs=["sudo", "su", "doas", "pkexec", "runuser", "setpriv", "capsh", "chroot", "nsenter", "machinectl",
                  "systemd-run"],
        reason="privilege escalation is not allowed; commands run as an unprivileged user",
    ),
    PolicyRule(
        id="destructive-outside-workspace",
        programs=_DESTROY_ANY,
        paths="outside",
        reason="it changes or removes files outside the workspace",
    ),
    PolicyRule(
        id="destructive-outside-workspace",
        programs=_DESTROY_LAST,
        paths="outside",
        path_args=["last", "opt:-t", "opt:--target-directory"],
        value_options=["-t", "--target-directory", "-S", "--suffix", "-m", "--mode", "-o", "--owner", "-g", "--group",
                       "-e", "--rsh", "--exclude", "--include", "--filter", "-f"],
        reason="it writes files outside the workspace",
    ),
    PolicyRule(
        id="destructive-outside-workspace",
        programs=["dd"],
        paths="outside",
        path_args=["kv:of"],
        reason="it writes a file outside the workspace",
    ),
    PolicyRule(
        id="destructive-outside-workspace",
        programs=["sed", "perl"],
        flags=["-i", "--in-place"],
        value_options=["-e", "--expression", "-f", "--file", "-l", "--line-length", "-E"],
        paths="outside",
        reason="it edits files in place outside the workspace",
    ),
    PolicyRule(
        id="destructive-outside-workspace",
        programs=["find"],
        args=[r"^-delete$"],
        paths="outside",
        path_args=["find-roots"],
        reason="find -delete removes files outside the workspace",
    ),
    PolicyRule(
        id="destroys-workspace",
        programs=["rm", "rmdir", "shred", "mv"],
        paths="root",
        reason="it would remove or alter the whole workspace; act on the files you mean instead",
    ),
    PolicyRule(
        id="redirect-outside-workspace",
        programs=["*"],
        redirects="outside",
        reason="an output redirect writes a file outside the workspace",
    ),
    PolicyRule(
        id="inline-code",
        programs=PYTHONS,
        flags=["-c"],
        value_options=_PY_VALUE_OPTS,
        stop_at=["-m"],
        reason="inline interpreter code is not allowed by default; write a script file and run it "
               "(or enable it: shell.policy.disabled_rules = [\"inline-code\"])",
    ),
    PolicyRule(
        id="inline-code",
        programs=NODES + ["deno"],
        flags=["-e", "--eval", "-p", "--print"],
        value_options=_NODE_VALUE_OPTS,
        reason="inline interpreter code is not allowed by default; write a script file and run it",
    ),
    PolicyRule(
        id="inline-code",
        programs=["perl", "ruby", "lua", "lua[0-9]*", "luajit", "Rscript", "julia", "tclsh", "jshell"],
        flags=["-e", "-E"],
        value_options=["-I", "-M", "-m", "-r", "-l"],
        reason="inline interpreter code is not allowed by default; write a script file and run it",
    ),
    PolicyRule(
        id="inline-code",
        programs=["php", "php[0-9]*"],
        flags=["-r", "-R", "-B", "-E"],
        reason="inline interpreter code is not allowed by default; write a script file and run it",
    ),
    PolicyRule(
        id="inline-code",
        programs=["pwsh", "powershell", "osascript"],
        flags=["-c", "-command", "-Command", "-e"],
        reason="inline interpreter code is not allowed by default; write a script file and run it",
    ),
    PolicyRule(
        id="inline-code",
        programs=["deno", "bun"],
        args=[r"^eval$"],
        reason="inline interpreter code is not allowed by default; write a script file and run it",
    ),
    PolicyRule(
        id="stdin-code",
        programs=PYTHONS + NODES + ["perl", "ruby", "php", "lua", "Rscript", "julia", "deno"],
        stdin_code=True,
        value_options=_PY_VALUE_OPTS + _NODE_VALUE_OPTS,
        stop_at=["-m", "-c", "-e", "--eval", "-p", "--print", "-r"],
        reason="the interpreter would run code from a pipe, here-document or generated file that cannot be "
               "checked; write a script file and run it",
    ),
    PolicyRule(
        id="stdin-code",
        programs=SHELLS + ["source", "."],
        stdin_code=True,
        value_options=["-o", "+o", "-O", "+O", "--rcfile", "--init-file"],
        stop_at=["-c"],
        reason="the shell would run commands from a pipe, here-document or generated file that cannot be "
               "checked; put the commands in the command itself or in a script file",
    ),
    PolicyRule(
        id="stdin-code",
        programs=SHELLS,
        flags=["-s"],
        value_options=["-o", "+o", "-O", "+O", "--rcfile", "--init-file"],
        stop_at=["-c"],
        reason="`-s` makes the shell read commands from its input, which cannot be checked",
    ),
    PolicyRule(
        id="awk-runs-commands",
        programs=["awk", "gawk", "mawk", "nawk", "busybox"],
        args=[r"\bsystem\s*\(", r"\|\s*(\"|getline)", r"\"\s*\|\s*getline", r"\|&"],
        reason="the awk program runs shell commands (system(), pipes), which cannot be checked",
    ),
    PolicyRule(
        id="sed-runs-commands",
        programs=["sed", "gsed"],
        args=[r"^s(.).*\1.*\1[gpIiMm0-9w]*e[gpIiMm0-9]*$", r"(^|[;\n{}]\s*|^\d+\s*|/\s*)e(\s|$)"],
        reason="the sed script runs shell commands (the `e` command or flag), which cannot be checked",
    ),
    PolicyRule(
        id="hidden-commands",
        programs=["alias"],
        args=["="],
        reason="aliases hide what a command runs from the check; write the command out",
    ),
    PolicyRule(
        id="hidden-commands",
        programs=["enable"],
        flags=["-f"],
        reason="loading builtins from a file is not allowed",
    ),
    PolicyRule(
        id="hidden-commands",
        programs=["shopt"],
        args=["^expand_aliases$"],
        reason="aliases hide what a command runs from the check; write the command out",
    ),
]
