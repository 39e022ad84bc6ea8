"""Run git on the host (outside the sandbox) on a repository whose `.git/` the sandbox may have
written: its config, hooks and attributes are untrusted input, so nothing in them may make git run a
program or read files outside its work tree.

Every call gets, on its command line (which wins over every config file):
- the programs git could start neutralised: hooks (core.hooksPath=/dev/null: the
  reference-transaction hook runs on update-ref), core.fsmonitor, pager, editor, askpass, ssh and
  proxy commands, credential helpers, gpg signing;
- every filter/diff/merge driver the repository's config defines (`git add` runs a `filter=X` clean
  command named by an attacker-written .gitattributes): each is read with `git config` under the
  same neutral settings and overridden with an empty command (required=false);
- an explicit --git-dir and --work-tree, so a core.worktree in the config cannot point `git add -A`
  at folders outside the repository;
and an environment without the system config, prompts or optional locks.
Only the user's global config (GIT_CONFIG_GLOBAL, ~/.gitconfig) is kept, as trusted.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path

from .errors import CodeagentError

GIT_TIMEOUT = 60.0
NEUTRAL_CONFIG = (
    "core.hooksPath=/dev/null", "core.fsmonitor=false", "core.pager=cat",
    "core.editor=:", "sequence.editor=:", "core.askPass=", "core.sshCommand=ssh", "core.gitProxy=",
    "credential.helper=", "commit.gpgSign=false", "tag.gpgSign=false", "gpg.program=gpg",
    "core.attributesFile=/dev/null", "diff.external=", "core.alternateRefsCommand=",
    "uploadpack.packObjectsHook=", "protocol.allow=never", "core.untrackedCache=false",
    "maintenance.auto=false", "gc.auto=0",
)
# Keys of drivers that name a command, in the repository's (attacker-written) config.
DRIVER_KEYS = r"^(filter|diff|merge)\..+\.(clean|smudge|process|textconv|command|driver)$"


class HostGitError(CodeagentError):
    """git is missing, timed out or failed; the message holds its stderr's start."""


def git_env(base: Mapping[str, str] | None = None) -> dict[str, str]:
    env = {k: v for k, v in (os.environ if base is None else base).items()
           if not k.startswith("GIT_") or k in ("GIT_CONFIG_GLOBAL", "GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL",
                                                 "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL", "GIT_INDEX_FILE")}
    env.update(GIT_CONFIG_NOSYSTEM="1", GIT_TERMINAL_PROMPT="0", GIT_OPTIONAL_LOCKS="0", GIT_PAGER="cat",
               PAGER="cat", GIT_ASKPASS="", SSH_ASKPASS="", GIT_ATTR_NOSYSTEM="1", GIT_NO_REPLACE_OBJECTS="1")
    return env


def _run(argv: Sequence[str], cwd: Path, env: Mapping[str, str], *, ok: tuple[int, ...] = (0,)) -> str:
    try:
        proc = subprocess.run(list(argv), cwd=cwd, env=dict(env), capture_output=True, text=True,
                              timeout=GIT_TIMEOUT, check=False, stdin=subprocess.DEVNULL)
    except FileNotFoundError as exc:
        raise HostGitError("git is not installed") from exc
    except subprocess.TimeoutExpired as exc:
        raise HostGitError(f"git {_verb(argv)} took over {GIT_TIMEOUT:g} s") from exc
    if proc.returncode not in ok:
        raise HostGitError(f"git {_verb(argv)} failed: {proc.stderr.strip()[:300]}")
    return proc.stdout.strip()


def _verb(argv: Sequence[str]) -> str:
    words = [a for a in argv[1:] if not a.startswith("-") and "=" not in a]
    return words[0] if words else "?"


def _neutral(extra: Sequence[str] = ()) -> list[str]:
    out = ["git", "--no-pager", "--no-optional-locks"]
    for item in (*NEUTRAL_CONFIG, *extra):
        out += ["-c", item]
    return out


def find_repository(start: Path) -> tuple[Path, Path]:
    """(work tree top, git dir) of the repository holding `start`, found by walking up for a `.git`
    (a folder, or a file naming one) instead of asking git, whose answer a config can steer."""
    for folder in (start, *start.parents):
        dot = folder / ".git"
        if dot.is_dir():
            return folder, dot
        if dot.is_file():
            text = dot.read_text(encoding="utf-8", errors="replace").strip()
            if text.startswith("gitdir:"):
                target = Path(text[len("gitdir:"):].strip())
                return folder, (target if target.is_absolute() else folder / target).resolve()
    raise HostGitError(f"{start} is not inside a git repository")


class HostGit:
    """git commands in one repository, with the neutral settings of the module docstring."""

    def __init__(self, start: Path, *, env: Mapping[str, str] | None = None):
        self.top, self.git_dir = find_repository(Path(os.path.realpath(start)))
        self.env = git_env(env)
        where = [f"--git-dir={self.git_dir}", f"--work-tree={self.top}"]
        # `git config --get-regexp` exits 1 when nothing matches
        drivers = _run([*_neutral(), *where, "config", "--name-only", "--get-regexp", DRIVER_KEYS], self.top,
                       self.env, ok=(0, 1))
        extra: list[str] = []
        for key in sorted(set(drivers.split())):
            extra.append(f"{key}=")
            if key.startswith("filter."):
                extra.append(key.rsplit(".", 1)[0] + ".required=false")
        self.argv = [*_neutral(extra), *where]

    def run(self, *args: str, env: Mapping[str, str] | None = None) -> str:
        """stdout of `git ARGS` (stripped); `env` adds variables (GIT_INDEX_FILE, identities)."""
        full = dict(self.env)
        if env:
            full.update(env)
        return _run([*self.argv, *args], self.top, full)
