"""Under bubblewrap, commands cannot change the workspace paths that steer codeagent or host-side
git (.codeagent.toml, .codeagent/, .git/config, .git/hooks): not by writing, creating, renaming
over, deleting, or moving .git away, while git itself keeps working inside the sandbox."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from agent.bootstrap import load_all_tools, open_context
from agent.config import Settings, ShellSettings
from agent.shell.runner import CommandResult
from agent.shell.sandbox import probe_bwrap

Run = Callable[..., CommandResult]
GIT = ["git", "-c", "user.name=t", "-c", "user.email=t@example.invalid"]


@pytest.fixture(autouse=True)
def _bwrap() -> None:
    problem = probe_bwrap(shutil.which("bwrap"))
    if problem is not None:
        if os.environ.get("CI"):
            pytest.fail(f"CI must test the real bubblewrap sandbox: {problem}")
        pytest.skip(problem)


def snapshot(root: Path, *names: str) -> dict[str, str]:
    """Every file, folder and link under `names`: path -> sha256 of the bytes (or the link target)."""
    out: dict[str, str] = {}
    for name in names:
        top = root / name
        paths = [top, *sorted(top.rglob("*"))] if top.is_dir() and not top.is_symlink() else [top]
        for path in paths:
            rel = path.relative_to(root).as_posix()
            if path.is_symlink():
                out[rel] = "link:" + os.readlink(path)
            elif path.is_dir():
                out[rel] = "dir"
            elif path.exists():
                out[rel] = hashlib.sha256(path.read_bytes()).hexdigest()
    return out


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = (tmp_path / "ws").resolve()
    root.mkdir()
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    (root / "app.py").write_text("print('hi')\n")
    (root / ".codeagent.toml").write_text("[shell]\ndefault_timeout = 30\n")
    hook = root / ".git" / "hooks" / "post-commit"
    hook.write_text("#!/bin/sh\necho real-hook\n")
    hook.chmod(0o755)
    subprocess.run([*GIT, "add", "app.py"], cwd=root, check=True)
    subprocess.run([*GIT, "commit", "-qm", "init"], cwd=root, check=True)
    return root


ATTACKS = [
    # write in place
    "echo '[shell]\nsandbox = \"off\"' >> .codeagent.toml",
    "echo '[core]\n\tfsmonitor = /tmp/evil' >> .git/config",
    "git config core.fsmonitor /tmp/evil",
    "git config --local alias.st '!touch /tmp/pwned'",
    "echo evil > .git/hooks/post-commit",
    "echo evil > .git/hooks/pre-commit; chmod +x .git/hooks/pre-commit",
    "echo evil > .codeagent/evil; mkdir .codeagent/shell/x",
    # rename over
    "echo evil > e1 && mv -f e1 .codeagent.toml",
    "echo evil > e2 && mv -f e2 .git/config",
    "mkdir -p h && echo evil > h/pre-commit && mv -T -f h .git/hooks",
    "mkdir -p c && mv -T -f c .codeagent",
    # delete, then recreate
    "rm -f .codeagent.toml; echo evil > .codeagent.toml",
    "rm -f .git/config; echo evil > .git/config",
    "rm -rf .git/hooks; mkdir -p .git/hooks && echo evil > .git/hooks/pre-commit",
    "rm -rf .codeagent; mkdir .codeagent",
    # move them away with their folder, then put new ones in place
    "mv .git .git-moved && git init -q . && git config core.fsmonitor /tmp/evil",
    "mv .git/hooks .git/hooks-moved; mv .git/config .git/config-moved",
    # links and hard links
    "ln -sf /tmp/evil .codeagent.toml; ln -f app.py .codeagent.toml",
]


def test_protected_paths_cannot_be_changed(repo: Path, run_in: Run) -> None:
    warm = run_in(repo, "bwrap", "echo warm")  # the runner makes .codeagent/ (and its logs folder)
    assert warm.exit_code == 0 and (repo / ".codeagent").is_dir()
    before = snapshot(repo, ".codeagent.toml", ".codeagent", ".git/config", ".git/hooks")
    assert ".git/hooks/post-commit" in before and ".codeagent.toml" in before
    for attack in ATTACKS:
        res = run_in(repo, "bwrap", attack + "; echo ATTEMPTED")
        assert "ATTEMPTED" in res.output, (attack, res.output)
        after = snapshot(repo, ".codeagent.toml", ".codeagent", ".git/config", ".git/hooks")
        assert after == before, f"{attack!r} changed a protected path:\n{res.output}"
        assert (repo / ".git").is_dir() and not (repo / ".git-moved").exists(), attack
    assert "fsmonitor" not in (repo / ".git" / "config").read_text()


@pytest.mark.parametrize("attack", [
    "echo '[shell]' > .codeagent.toml", "echo e > e && mv -f e .codeagent.toml", "ln -s /etc/passwd .codeagent.toml",
    "mkdir .codeagent.toml", "touch .codeagent.toml/x", "rm -rf .codeagent.toml; echo '[shell]' > .codeagent.toml"])
def test_a_missing_project_file_cannot_be_created_and_leaves_no_trace(repo: Path, run_in: Run, attack: str) -> None:
    (repo / ".codeagent.toml").unlink()
    res = run_in(repo, "bwrap", attack + "; echo ATTEMPTED")
    assert "ATTEMPTED" in res.output
    assert not os.path.lexists(repo / ".codeagent.toml"), "the mount point (or a new file) was left on the host"
    # a file the user makes on the host afterwards is theirs, and later calls keep it read-only
    (repo / ".codeagent.toml").write_text("[shell]\n")
    res = run_in(repo, "bwrap", "echo x >> .codeagent.toml; echo ATTEMPTED")
    assert "ATTEMPTED" in res.output and (repo / ".codeagent.toml").read_text() == "[shell]\n"


def test_the_runner_makes_codeagent_folder_so_it_is_protected(tmp_path: Path, run_in: Run) -> None:
    root = (tmp_path / "fresh").resolve()
    root.mkdir()
    # no output log either: nothing else makes the folder before the sandbox is planned
    res = run_in(root, "bwrap", "ls -d .codeagent && touch .codeagent/evil; mkdir -p .codeagent/x; echo ATTEMPTED",
                 max_log_bytes=0)
    assert "ATTEMPTED" in res.output and res.output.startswith(".codeagent\n"), res.output
    assert (root / ".codeagent").is_dir() and not (root / ".codeagent" / "evil").exists()
    assert not (root / ".codeagent" / "x").exists()


def test_git_still_works_inside(repo: Path, run_in: Run) -> None:
    (repo / ".codeagent.toml").unlink()  # the read-only mount point must not disturb git either
    res = run_in(repo, "bwrap", "echo 'print(2)' >> app.py && echo new > new.py && git status --porcelain && "
                                f"git add app.py new.py && {' '.join(GIT)} commit -qm change && "
                                "git log --oneline | wc -l && git status --porcelain --untracked-files=no && "
                                "git branch -q feature && git stash list && echo GIT-OK")
    assert res.exit_code == 0 and "GIT-OK" in res.output, res.output
    assert " M app.py" in res.output and "?? new.py" in res.output and ".codeagent.toml" not in res.output
    log = subprocess.run(["git", "log", "--format=%s"], cwd=repo, capture_output=True, text=True, check=True).stdout
    assert log.split() == ["change", "init"]
    assert "real-hook" in res.output  # the hook ran inside (read-only, not replaced)


@pytest.mark.parametrize("name, target", [(".codeagent.toml", "outside"), (".git/hooks", "outside"),
                                          (".git/hooks", "inside")])
def test_a_protected_path_that_is_a_symlink_is_refused(repo: Path, tmp_path: Path, name: str, target: str) -> None:
    """A bind would show the link's target, and the link itself could be replaced: the tool
    refuses the command with a clear error, and the target was never shown."""
    secret = tmp_path / "secret-dir"
    secret.mkdir()
    (secret / "key").write_text("SECRET-KEY")
    dest = secret if target == "outside" else repo / "hooks-in-repo"
    dest.mkdir(exist_ok=True)
    link = repo / name
    shutil.rmtree(link) if link.is_dir() and not link.is_symlink() else link.unlink()
    link.symlink_to(dest / "key" if name == ".codeagent.toml" else dest)
    ctx = open_context(repo, settings=Settings(shell=ShellSettings(sandbox="bwrap")))
    try:
        res = load_all_tools().call(ctx, "run_shell_command", {"command": f"cat {name} {name}/key; echo RAN"})
    finally:
        ctx.close()
    assert not res.success and "RAN" not in res.output and "SECRET" not in res.output
    assert f"the workspace's {name} is reached through a symlink" in (res.error or ""), res.error
    assert "replace the link" in (res.error or "")
