"""search_in_files in a session without a daemon (the agent loop, the MCP server) reuses its walk while a
stat of what the walk depends on shows no change (agent/semantic/walkstamps.py, issue 20 target
7): a repeated search says `walk_reused` and gives the fresh walk's answer; each change below
(a created, deleted or renamed file, a .gitignore edit, a nested negation, a file growing over
the read limit, a symlink turned to point outside or back in, a virtualenv made or unmade, even
through a marker linked from outside, a folder's mtime set back, even in a folder no watch sees)
makes the very next search walk again and answer exactly as a new session does. The same holds
in a session that watches its folders as an agent run and the MCP server do
(agent/semantic/session_watch.py: the walk is kept under the watch instead of stat'ed)."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from test_tools_search import build_tree, needs_rg

from agent.bootstrap import load_all_tools, open_context
from agent.config import Settings, WorkspaceSettings
from agent.ripgrep import find_rg
from agent.semantic.querycache import RACY_NS
from agent.semantic.session_watch import watch_session
from agent.toolcontext import ToolContext

ARGS = {"pattern": "parse", "regex": False, "max_results": 5000}
SETTINGS = Settings(workspace=WorkspaceSettings(max_read_bytes=2048))
REGISTRY = load_all_tools()


def _search(ctx: ToolContext, args: dict[str, Any] | None = None) -> dict[str, Any]:
    result = REGISTRY.call(ctx, "search_in_files", dict(args or ARGS))
    assert result.success, result.error
    return {"output": result.output, **result.data}


def _fresh(root: Path, args: dict[str, Any] | None = None) -> dict[str, Any]:
    ctx = open_context(root, settings=SETTINGS)
    try:
        return _search(ctx, args)
    finally:
        ctx.close()


MODES = ["stamped", "watched"]


def _warm(root: Path, tmp_path: Path, mode: str = "stamped") -> ToolContext:
    """A session whose selection is kept: the tree is older than the racy window; "watched": the
    session watches its folders (as an agent run does)."""
    build_tree(root, tmp_path / "outside")
    (root / "src" / "grow.txt").write_text("parse small\n")
    (tmp_path / "outside" / "venv.cfg").write_text("home = /usr\n")  # a virtualenv marked through a link
    (root / "env2").mkdir()
    (root / "env2" / "pyvenv.cfg").symlink_to(tmp_path / "outside" / "venv.cfg")
    (root / "env2" / "site.py").write_text("parse in a venv\n")
    (root / ".tools" / "inner").mkdir(parents=True)  # a folder no watch sees (in a hidden one)
    (root / ".tools" / "inner" / "h.txt").write_text("parse hidden\n")
    time.sleep(RACY_NS / 1e9 + 0.1)
    ctx = open_context(root, settings=SETTINGS)
    if mode == "watched":
        assert watch_session(ctx) is not None
    first = _search(ctx)
    again = _search(ctx)
    assert again.pop("walk_reused") is True and "walk_reused" not in first
    assert again == first == _fresh(root)
    return ctx


def _replace_link(root: Path, tmp: Path) -> None:
    (root / "in_link.py").unlink()
    (root / "in_link.py").symlink_to(tmp / "outside" / "secret.py")


def _retarget_through_outside(root: Path, tmp: Path) -> None:
    # the link's own folder does not change: only a new resolution of the link sees it
    (tmp / "outside" / "secret.py").unlink()
    (tmp / "outside" / "secret.py").symlink_to(root / "sub" / "kept.py")


def _add_and_set_mtime_back(root: Path, tmp: Path) -> None:
    st = os.stat(root / "src" / "util")
    (root / "src" / "util" / "new.py").write_text("parse new\n")
    os.utime(root / "src" / "util", ns=(st.st_atime_ns, st.st_mtime_ns))


def _add_unwatched_and_set_mtime_back(root: Path, tmp: Path) -> None:
    # no watch sees .tools/inner, nor its parent (the utime's event), and a folder's size need
    # not change (ext4's stays a block): only its ctime shows it
    inner = root / ".tools" / "inner"
    st = os.stat(inner)
    (inner / "new.txt").write_text("parse new\n")
    os.utime(inner, ns=(st.st_atime_ns, st.st_mtime_ns))


def _edit_gitignore_same_size(root: Path, tmp: Path) -> None:
    (root / ".gitignore").write_text("*.lag\nbuild/\n!keep.log\n")  # same length: *.log no longer ignored


CHANGES: dict[str, Callable[[Path, Path], None]] = {
    "created in a nested folder": lambda r, t: (r / "src" / "util" / "more.py").write_text("parse more\n"),
    "deleted": lambda r, t: (r / "src" / "app.py").unlink(),
    "renamed": lambda r, t: (r / "src" / "app.py").rename(r / "src" / "moved.py"),
    "created in a hidden folder": lambda r, t: (r / ".hidden").mkdir() or (r / ".hidden" / "h.txt").write_text("parse\n"),
    "root .gitignore edited, same size": _edit_gitignore_same_size,
    "nested negation added": lambda r, t: (r / "sub" / ".gitignore").write_text("generated.py\n!generated.py\n"),
    "file grows over the read limit": lambda r, t: (r / "src" / "grow.txt").write_text("parse big\n" * 300),
    "in-link replaced by an out-link": _replace_link,
    "out-link's target now leads inside": _retarget_through_outside,
    "virtualenv created": lambda r, t: (r / "src" / "util" / "pyvenv.cfg").write_text("home = /usr\n"),
    "entry added, folder mtime set back": _add_and_set_mtime_back,
    "entry added in an unwatched folder, its mtime set back": _add_unwatched_and_set_mtime_back,
    "virtualenv marker removed": lambda r, t: (r / "env2" / "pyvenv.cfg").unlink(),
    "virtualenv marker's target outside removed": lambda r, t: (t / "outside" / "venv.cfg").unlink(),
}


@needs_rg
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("change", list(CHANGES))
def test_a_change_makes_the_next_search_walk_again(root: Path, tmp_path: Path, change: str, mode: str) -> None:
    ctx = _warm(root, tmp_path, mode)
    try:
        before = _search(ctx)
        CHANGES[change](root, tmp_path)
        after = _search(ctx)
        assert "walk_reused" not in after
        assert after == _fresh(root)
        before.pop("walk_reused")
        assert after != before  # (the change is one a search can see)
    finally:
        ctx.close()


@needs_rg
@pytest.mark.parametrize("mode", MODES)
def test_reuse_keeps_each_selection_apart(root: Path, tmp_path: Path, mode: str) -> None:
    """A glob and a sub-folder are selections of their own; a change above a sub-folder (its
    parent's .gitignore) reaches it."""
    ctx = _warm(root, tmp_path, mode)
    try:
        for args in ({**ARGS, "glob": "*.py"}, {**ARGS, "path": "sub"}):
            first = _search(ctx, args)
            again = _search(ctx, args)
            assert again.pop("walk_reused") is True and again == first == _fresh(root, args)
        (root / ".gitignore").write_text("*.log\nbuild/\n!keep.log\nkept.py\n")
        after = _search(ctx, {**ARGS, "path": "sub"})
        assert "walk_reused" not in after and after == _fresh(root, {**ARGS, "path": "sub"})
        assert "sub/kept.py" not in after["output"]
    finally:
        ctx.close()


def test_a_tree_being_changed_is_not_kept(root: Path, tmp_path: Path) -> None:
    """Walked within the racy window (a folder changed in the last RACY_NS): walked again."""
    build_tree(root, tmp_path / "outside")
    ctx = open_context(root, settings=SETTINGS)
    try:
        _search(ctx)
        assert "walk_reused" not in _search(ctx)
    finally:
        ctx.close()


@pytest.mark.parametrize("engine", ["python", "ripgrep"])
def test_a_size_change_alone_is_seen_by_either_engine(root: Path, tmp_path: Path, engine: str) -> None:
    """Only a file's size changed (no folder did): the check made while the search begins fails,
    and the search walks again; with Python's engine the check comes before a file is read."""
    if engine == "ripgrep" and find_rg() is None:
        pytest.skip("ripgrep (the `ripgrep` wheel) is not installed")
    settings = Settings(workspace=WorkspaceSettings(max_read_bytes=2048, search_engine=engine))
    build_tree(root, tmp_path / "outside")
    (root / "src" / "grow.txt").write_text("parse small\n")
    time.sleep(RACY_NS / 1e9 + 0.1)
    ctx = open_context(root, settings=settings)
    try:
        _search(ctx)
        assert _search(ctx)["walk_reused"] is True
        (root / "src" / "grow.txt").write_text("parse big\n" * 300)
        (root / "src" / "app.py").write_text("parse one more line\n" * 2)  # (an edit: not a change of selection)
        after = _search(ctx)
        fresh_ctx = open_context(root, settings=settings)
        try:
            assert after == _search(fresh_ctx)
        finally:
            fresh_ctx.close()
        assert "walk_reused" not in after and "src/grow.txt" in after["skipped_large"]
        again = _search(ctx)
        assert "walk_reused" not in again or again.pop("walk_reused") is True
        assert again == after
    finally:
        ctx.close()
