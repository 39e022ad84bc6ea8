"""A session's kept search walk takes its .gitignore files from the walk's own listings (no stat
of every folder's .gitignore, agent/walk.py `rule_files`): an edit that leaves a nested rule
file's size and its folder unchanged still makes the next search walk again, and one in a folder
above a sub-folder's start too."""

from __future__ import annotations

from pathlib import Path

from test_search_walk_stamps import ARGS, _fresh, _search, _warm
from test_tools_search import needs_rg

from agent.walk import iter_file_names


@needs_rg
def test_a_nested_gitignore_edited_in_place_walks_again(root: Path, tmp_path: Path) -> None:
    ctx = _warm(root, tmp_path)
    try:
        (root / "sub" / ".gitignore").write_text("generatex.py\n")  # same size: generated.py is searched now
        after = _search(ctx)
        assert "walk_reused" not in after and after == _fresh(root)
        assert "sub/generated.py" in after["output"]
    finally:
        ctx.close()


@needs_rg
def test_a_parent_gitignore_edited_in_place_reaches_a_sub_folder_search(root: Path, tmp_path: Path) -> None:
    ctx = _warm(root, tmp_path)
    args = {**ARGS, "path": "sub"}
    try:
        first = _search(ctx, args)
        assert _search(ctx, args).pop("walk_reused") is True
        (root / ".gitignore").write_text("*.log\nbuild/\n!keep.log\nkept.p*\n")
        after = _search(ctx, args)
        assert "walk_reused" not in after and after == _fresh(root, args) != first
    finally:
        ctx.close()


def test_the_walk_lists_the_rule_files_it_read(root: Path) -> None:
    for folder in ("a/b", "a/c", "d"):
        (root / folder).mkdir(parents=True)
        (root / folder / "f.txt").write_text("x\n")
    (root / ".gitignore").write_text("*.log\n")
    (root / "a" / "b" / ".gitignore").write_text("g.txt\n")
    (root / "d" / ".gitignore").mkdir()  # not a file: listed, harmless to stamp
    found: list[str] = []
    names = [rel for _, rel in iter_file_names(root, root, rule_files=found)]
    assert sorted(names) == [".gitignore", "a/b/.gitignore", "a/b/f.txt", "a/c/f.txt", "d/f.txt"]
    assert sorted(found) == sorted(str(root / p / ".gitignore") for p in ("", "a/b", "d"))
