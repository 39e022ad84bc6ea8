"""The index's walk (agent/syntax/sources.py) asks a .gitignore's quick test (agent/ignorequick.py)
before pathspec: the files it yields are exactly those a rule-by-rule pathspec check of every
.gitignore keeps (the deepest deciding rule wins, an ignored folder hides all below it)."""

from __future__ import annotations

import os
from pathlib import Path

import pathspec

from agent.syntax.languages import language_for
from agent.syntax.sources import source_files

TOP_RULES = ["__pycache__/", "*.py[cod]", "build/", "/site", "docs/_build/", "!keep_me.py", "a/**/b",
             "**/deep", "gen_*.py", "[xy]_*.ts", "*.tmp.py", "/only_top.py"]
NESTED_RULES = {"src": ["!gen_keep.py", "*.js", "/only_here.py", "!build/"],
                "pkg": ["**/*.ts", "!keep/", "sub/"]}
NAMES = ["m.py", "gen_a.py", "gen_keep.py", "keep_me.py", "x_a.ts", "z.ts", "w.js", "c.tmp.py",
         "only_top.py", "only_here.py", "m.pyc"]
FOLDERS = ["src", "src/build", "src/a/q/b", "src/deep", "docs/_build", "build", "site", "pkg/sub",
           "pkg/keep", "pkg/other", "lib/site"]


def _reference_ignored(root: Path, parts: list[str], is_dir: bool) -> bool:
    for depth in range(len(parts) - 1, -1, -1):
        rules = root.joinpath(*parts[:depth], ".gitignore")
        if not rules.is_file():
            continue
        spec = pathspec.GitIgnoreSpec.from_lines(rules.read_text().splitlines())
        include = spec.check_file("/".join(parts[depth:]) + ("/" if is_dir else "")).include
        if include is not None:
            return bool(include)
    return False


def test_the_index_walk_keeps_exactly_what_pathspec_keeps(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    for folder in FOLDERS:
        (root / folder).mkdir(parents=True, exist_ok=True)
    (root / ".gitignore").write_text("\n".join(TOP_RULES) + "\n")
    for folder, lines in NESTED_RULES.items():
        (root / folder / ".gitignore").write_text("\n".join(lines) + "\n")
    for folder, _dirs, _files in list(os.walk(root)):
        for name in NAMES:
            (Path(folder) / name).write_text("x = 1\n")
    expected = set()
    for folder, dirs, files in os.walk(root):
        parts = Path(folder).relative_to(root).parts
        dirs[:] = [d for d in dirs if not _reference_ignored(root, [*parts, d], True)]
        for name in files:
            if language_for(name) is not None and not _reference_ignored(root, [*parts, name], False):
                expected.add("/".join([*parts, name]))
    walked = {rel for _, rel, _ in source_files(str(root))}
    assert walked == expected
    # (the tree decides something at every level: the comparison is not of two near-empty sets)
    assert {"src/gen_keep.py", "src/build/m.py", "pkg/keep/m.py", "keep_me.py"} <= walked
    assert not walked & {"gen_a.py", "src/only_here.py", "only_top.py", "pkg/z.ts", "pkg/sub/m.py", "site/m.py"}
    assert "lib/site/m.py" in walked and "src/only_top.py" in walked and len(walked) > 40
