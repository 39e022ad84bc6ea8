"""The walk's quick gitignore test (agent/ignorequick.py) never changes an answer: a path it
says no rule can match is one pathspec leaves undecided, so `IgnoreRules` answers every path
as pathspec's own rule-by-rule check does, over nested .gitignore files, negations, folder-only
rules, anchored rules, `**`, classes and escapes; and a typical .gitignore gets a quick test."""

from __future__ import annotations

import itertools
import os
from pathlib import Path

import pathspec

from agent.ignorequick import quick_test
from agent.walk import IgnoreRules, iter_file_names

RULES = [
    "# comment", "", "__pycache__/", "*.py[cod]", "*$py.class", "*.so", "build/", "dist/", "*.egg-info/",
    "/site", "docs/_build/", "*.log", "!keep.log", ".env", "lib64/", "a/**/b", "**/deep", "x/**", "/foo",
    "sub/*.txt", "\\#hash", "\\!bang", "space\\ name", "[br]*.md", "ünï*", "!/dist/keep/", "*.tmp ", "celery*-schedule",
    "?.c", "weird[", "**", "!important.py",
]
NAMES = ["build", "dist", "a", "b", "docs", "_build", "x.py", "x.pyc", "keep.log", "debug.log", "foo", "site",
         "lib64", ".env", "sub", "deep", "f.txt", "x.so", "p.egg-info", "celery-beat-schedule", "space name",
         "ünï.py", "bar.md", "#hash", "!bang", "y.c", "keep", "x", "important.py", "z.tmp"]


def _paths(depth: int = 3) -> list[str]:
    out = []
    for n in range(1, depth + 1):
        for parts in itertools.product(NAMES[: 30 if n == 1 else 12 if n == 2 else 6], repeat=n):
            rel = "/".join(parts)
            out += [rel, rel + "/"]
    return out


def test_the_quick_test_is_only_ever_no_where_pathspec_decides_nothing() -> None:
    for lines in (RULES, RULES[:-2], [r for r in RULES if r != "**"], ["*.log", "!keep.log"], ["# only a comment"]):
        spec = pathspec.GitIgnoreSpec.from_lines(lines)
        quick = quick_test(spec)
        assert quick is not None, lines
        for path in _paths():
            if quick(path) is None:
                assert spec.check_file(path).include is None, (lines, path)
            else:  # (the test is not merely "always maybe")
                assert any(p.include is not None and p.match_file(path) for p in spec.patterns), (lines, path)


def test_a_typical_python_gitignore_gets_a_quick_test_that_passes_most_paths() -> None:
    spec = pathspec.GitIgnoreSpec.from_lines(RULES[:-3])
    quick = quick_test(spec)
    assert quick is not None
    assert quick("django/db/models/query.py") is None and quick("x/y/z.pyc") is not None


def _reference_ignored(root: Path, rel: str, is_dir: bool) -> bool:
    """The deepest .gitignore with a deciding rule wins, each asked through pathspec alone."""
    parts = rel.split("/")
    for depth in range(len(parts) - 1, -1, -1):
        folder = root.joinpath(*parts[:depth])
        if not (folder / ".gitignore").is_file():
            continue
        spec = pathspec.GitIgnoreSpec.from_lines((folder / ".gitignore").read_text().splitlines())
        sub = "/".join(parts[depth:]) + ("/" if is_dir else "")
        include = spec.check_file(sub).include
        if include is not None:
            return bool(include)
    return False


def test_the_walk_answers_as_pathspec_rule_by_rule(root: Path) -> None:
    (root / ".gitignore").write_text("\n".join(RULES[:-2]) + "\n")
    for rel in ("src", "src/a/b", "src/deep", "docs/_build", "dist/keep", "sub", "pkg/sub", "x/y", "keep"):
        (root / rel).mkdir(parents=True, exist_ok=True)
    (root / "src" / ".gitignore").write_text("!*.log\n*.txt\n/only_here.py\n!build/\n")
    (root / "pkg" / ".gitignore").write_text("**/*.md\n!keep/\nsub/\n")
    for folder, _dirs, _files in list(os.walk(root)):
        for name in NAMES:
            path = Path(folder) / name
            if not path.exists():
                path.write_text("x\n")
        (Path(folder) / "only_here.py").write_text("x\n")
    rules = IgnoreRules(root)
    checked = 0
    for folder, dirs, files in os.walk(root):
        for name in dirs + files:
            rel = (Path(folder) / name).relative_to(root).as_posix()
            is_dir = name in dirs
            assert rules.ignored_rel(rel, is_dir) == _reference_ignored(root, rel, is_dir), rel
            checked += 1
    assert checked > 300
    walked = {rel for _, rel in iter_file_names(root, root)}
    assert "src/keep.log" in walked and "src/debug.log" in walked and "debug.log" not in walked
    assert "src/f.txt" not in walked and "src/only_here.py" not in walked and "only_here.py" in walked


def test_rules_that_cannot_be_joined_safely_get_no_quick_test() -> None:
    for regex in (r"^(a)\1$", r"^(?P<name>x)(?P=name)", r"(?m)^x$"):
        spec = pathspec.PathSpec([pathspec.RegexPattern(regex)])
        assert quick_test(spec) is None, regex
    assert quick_test(pathspec.GitIgnoreSpec.from_lines(["# nothing but a comment"])) is not None
