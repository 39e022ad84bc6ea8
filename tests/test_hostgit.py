"""Host-side git (agent.hostgit, agent.checkpoint) on a repository whose .git/ an attacker wrote:
every program its config or hooks name would create a marker file; none may run, and the
checkpoint must still record the tree."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from agent.checkpoint import git_checkpoint
from agent.hostgit import HostGit

IDENTITY = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t"}


def git(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """Plain git, as a user would run it (the traps fire)."""
    return subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, check=False,
                          env={**os.environ, **IDENTITY, "GIT_CONFIG_NOSYSTEM": "1"})


def trap(folder: Path, name: str, markers: Path) -> str:
    """A script that records it ran (and passes stdin through, as a filter would)."""
    script = folder / f"{name}.sh"
    script.write_text(f"#!/bin/sh\ntouch {markers}/{name}\ncat\n", encoding="utf-8")
    script.chmod(0o755)
    return str(script)


@pytest.fixture
def hostile(tmp_path: Path) -> tuple[Path, Path, Path]:
    """(workspace repo, markers folder, a secret folder outside the workspace)."""
    root, markers, tools, secret = (tmp_path / n for n in ("ws", "markers", "tools", "secret"))
    for folder in (root, markers, tools, secret):
        folder.mkdir()
    (secret / "id_rsa").write_text("PRIVATE\n", encoding="utf-8")
    assert git(root, "init", "-q").returncode == 0
    (root / "a.txt").write_text("one\n", encoding="utf-8")
    (root / "main.py").write_text("print(1)\n", encoding="utf-8")
    assert git(root, "add", "-A").returncode == 0 and git(root, "commit", "-qm", "base").returncode == 0
    (root / "a.txt").write_text("two\n", encoding="utf-8")  # a change for `git add` to clean
    (root / ".gitattributes").write_text("*.txt filter=evil diff=evil\n", encoding="utf-8")
    hooks = root / ".git" / "hooks"
    for hook in ("reference-transaction", "post-index-change", "pre-commit", "post-commit"):
        (hooks / hook).write_text(f"#!/bin/sh\ntouch {markers}/hook-{hook}\n", encoding="utf-8")
        (hooks / hook).chmod(0o755)
    config = {
        "core.fsmonitor": trap(tools, "fsmonitor", markers),
        "core.pager": trap(tools, "pager", markers),
        "core.editor": trap(tools, "editor", markers),
        "core.sshCommand": trap(tools, "ssh", markers),
        "core.askPass": trap(tools, "askpass", markers),
        "filter.evil.clean": trap(tools, "clean", markers),
        "filter.evil.smudge": trap(tools, "smudge", markers),
        "filter.evil.required": "true",
        "diff.evil.textconv": trap(tools, "textconv", markers),
        "alias.ckpt": "!" + trap(tools, "alias", markers),
        "commit.gpgSign": "true",
        "gpg.program": trap(tools, "gpg", markers),
    }
    for key, value in config.items():
        assert git(root, "config", key, value).returncode == 0
    return root, markers, secret


def test_the_traps_fire_under_plain_git(hostile: tuple[Path, Path, Path]) -> None:
    """The fixture is hostile for real: plain git runs the fsmonitor, the filter and the hooks."""
    root, markers, _ = hostile
    git(root, "add", "-A")
    git(root, "update-ref", "refs/x", "HEAD")
    fired = {p.name for p in markers.iterdir()}
    assert {"fsmonitor", "clean", "hook-reference-transaction"} <= fired, fired


def test_checkpoint_runs_no_program_of_the_repository(hostile: tuple[Path, Path, Path]) -> None:
    root, markers, _ = hostile
    index_before = (root / ".git" / "index").read_bytes()
    ref = git_checkpoint(root, "run1")
    assert sorted(p.name for p in markers.iterdir()) == []
    files = git(root, "ls-tree", "-r", "--name-only", ref).stdout.split()
    assert {"a.txt", "main.py", ".gitattributes"} <= set(files)
    blob = git(root, "cat-file", "-p", f"{ref}:a.txt").stdout
    assert blob == "two\n"  # the current content, unfiltered
    assert (root / ".git" / "index").read_bytes() == index_before
    assert not any(markers.iterdir())


def test_core_worktree_cannot_point_the_checkpoint_outside(hostile: tuple[Path, Path, Path]) -> None:
    root, markers, secret = hostile
    # the workspace's parent holds the secret folder: `git add -A` there would hash it into .git/objects
    assert git(root, "config", "core.worktree", str(secret.parent)).returncode == 0
    ref = git_checkpoint(root, "run2")
    files = git(root, "--work-tree", str(root), "ls-tree", "-r", "--name-only", ref).stdout.split()
    assert "main.py" in files and not [f for f in files if "id_rsa" in f]
    assert not any(markers.iterdir())


def test_the_repository_is_found_without_asking_git(hostile: tuple[Path, Path, Path]) -> None:
    root, _, _ = hostile
    sub = root / "pkg"
    sub.mkdir()
    g = HostGit(sub)
    assert (g.top, g.git_dir) == (root, root / ".git")
    assert f"--work-tree={root}" in g.argv
    assert "filter.evil.clean=" in g.argv and "filter.evil.required=false" in g.argv
    assert "diff.evil.textconv=" in g.argv
