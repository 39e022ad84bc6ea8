"""An optional git checkpoint per agent run: a commit of the whole working tree (tracked and
untracked files, minus ignored ones) stored under `refs/codeagent/runs/<run id>`.

It is built through a temporary index, so the user's index, HEAD, branches and working tree are
never touched; the edit journal stays the primary undo, this is the belt to its braces. git runs
on the host through agent.hostgit: nothing in the repository's .git/ may make it run a program.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from .errors import CodeagentError
from .hostgit import HostGit, HostGitError

REF_PREFIX = "refs/codeagent/runs/"
_IDENTITY = {"GIT_AUTHOR_NAME": "codeagent", "GIT_AUTHOR_EMAIL": "codeagent@localhost"}


class CheckpointError(CodeagentError):
    """Not a git repository, git missing, or a git command failed."""


def git_checkpoint(root: Path, run_id: str) -> str:
    """Record the tree as it is now; returns the ref name."""
    try:
        git = HostGit(root)
        return _checkpoint(git, run_id)
    except HostGitError as exc:
        raise CheckpointError(str(exc)) from exc


def _checkpoint(git: HostGit, run_id: str) -> str:
    env = {k: git.env.get(k) or v for k, v in _IDENTITY.items()}
    env["GIT_COMMITTER_NAME"] = git.env.get("GIT_COMMITTER_NAME") or env["GIT_AUTHOR_NAME"]
    env["GIT_COMMITTER_EMAIL"] = git.env.get("GIT_COMMITTER_EMAIL") or env["GIT_AUTHOR_EMAIL"]
    with tempfile.TemporaryDirectory(prefix="codeagent-ckpt-") as tmp:
        index = Path(tmp) / "index"
        real_index = git.git_dir / "index"
        if real_index.is_file() and not real_index.is_symlink():
            # A warm start: git add only hashes what changed. copy2 keeps the index's mtime, which
            # git's racy-clean check compares with each file's: a fresh mtime would make a file
            # changed in the same second as the last index write (same size) look unchanged.
            shutil.copy2(real_index, index)
        env["GIT_INDEX_FILE"] = str(index)
        git.run("add", "-A", env=env)
        tree = git.run("write-tree", env=env)
        try:
            parent = ["-p", git.run("rev-parse", "--verify", "--quiet", "HEAD^{commit}")]
        except HostGitError:
            parent = []  # a repository without commits
        commit = git.run("commit-tree", "--no-gpg-sign", tree, *parent, "-m",
                         f"codeagent checkpoint before run {run_id}", env=env)
    ref = REF_PREFIX + run_id
    git.run("update-ref", ref, commit)
    return ref


def restore_hint(ref: str) -> str:
    return f"git restore --source={ref} --worktree -- ."
