"""An optional git checkpoint per agent run: a commit of the whole working tree (tracked and
untracked files, minus ignored ones) stored under `refs/codeagent/runs/<run id>`.

It is built through a temporary index, so the user's index, HEAD, branches and working tree are
never touched; the edit journal stays the primary undo, this is the belt to its braces.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from .errors import CodeagentError

GIT_TIMEOUT = 60.0
REF_PREFIX = "refs/codeagent/runs/"


class CheckpointError(CodeagentError):
    """Not a git repository, git missing, or a git command failed."""


def _git(root: Path, *args: str, env: dict[str, str] | None = None) -> str:
    try:
        proc = subprocess.run(["git", *args], cwd=root, env=env, capture_output=True, text=True,
                              timeout=GIT_TIMEOUT, check=False)
    except FileNotFoundError as exc:
        raise CheckpointError("git is not installed") from exc
    except subprocess.TimeoutExpired as exc:
        raise CheckpointError(f"git {args[0]} took over {GIT_TIMEOUT:g} s") from exc
    if proc.returncode != 0:
        raise CheckpointError(f"git {args[0]} failed: {proc.stderr.strip()[:300]}")
    return proc.stdout.strip()


def git_checkpoint(root: Path, run_id: str) -> str:
    """Record the tree as it is now; returns the ref name."""
    try:
        top = Path(_git(root, "rev-parse", "--show-toplevel"))
    except CheckpointError as exc:
        raise CheckpointError(f"{root} is not inside a git repository") from exc
    env = dict(os.environ)
    env.setdefault("GIT_AUTHOR_NAME", "codeagent")
    env.setdefault("GIT_AUTHOR_EMAIL", "codeagent@localhost")
    env.setdefault("GIT_COMMITTER_NAME", env["GIT_AUTHOR_NAME"])
    env.setdefault("GIT_COMMITTER_EMAIL", env["GIT_AUTHOR_EMAIL"])
    with tempfile.TemporaryDirectory(prefix="codeagent-ckpt-") as tmp:
        index = Path(tmp) / "index"
        real_index = Path(top, _git(top, "rev-parse", "--git-path", "index"))
        if real_index.is_file():
            shutil.copyfile(real_index, index)  # a warm start: git add only hashes what changed
        env["GIT_INDEX_FILE"] = str(index)
        _git(top, "add", "-A", env=env)
        tree = _git(top, "write-tree", env=env)
        try:
            parent = ["-p", _git(top, "rev-parse", "--verify", "HEAD")]
        except CheckpointError:
            parent = []  # a repository without commits
        commit = _git(top, "commit-tree", tree, *parent, "-m", f"codeagent checkpoint before run {run_id}", env=env)
    ref = REF_PREFIX + run_id
    _git(top, "update-ref", ref, commit)
    return ref


def restore_hint(ref: str) -> str:
    return f"git restore --source={ref} --worktree -- ."
