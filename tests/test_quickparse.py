"""The warm fast path reads its command lines without argparse (agent/commands/quickparse.py) and
its targets, roots and suffixes without re or pathlib: each must read exactly what the full CLI
reads, or leave the command line to it. These tests hold the two readers side by side, so they
cannot drift: argparse's own parser (the CLI's), the regular expressions the targets were read
with, and pathlib."""

from __future__ import annotations

import contextlib
import io
import itertools
import os
import re
from pathlib import Path, PurePosixPath

import pytest

from agent.cli import build_parser
from agent.commands.arguments import (
    file_arg,
    in_file_parts,
    line_parts,
    parse_target,
    position_parts,
    resolved_root,
)
from agent.commands.quickparse import parse
from agent.commands.tool_command import ARGUMENTS as TOOL_ARGUMENTS
from agent.commands.via_daemon import command_words, semantic_call
from agent.languages import suffix

T = "pkg/mod.py:3:7"
# Command lines the quick reader must read itself (and as argparse does).
CANONICAL = [
    ["refs", T], ["refs", T, "--json"], ["refs", "--json", T], ["refs", T, "--root", ".", "--json"],
    ["refs", T, "--root", "/tmp", "--json", "--no-declaration"], ["refs", T, "--json", "--json"],
    ["refs", T, "--root", "a", "--root", "b"], ["refs", "Thing.method", "--json"], ["refs", "pkg/mod.py::Thing"],
    ["refs", ""], ["refs", "-"], ["refs", T, "--root", "-"], ["refs", "a b:1:2"], ["refs", "-x y"[1:]],
    ["def", T, "--json"], ["def", "QuerySet"], ["diagnostics", "pkg/mod.py", "--json"], ["diagnostics", T],
    ["rename", T, "new", "--dry-run"], ["rename", T, "--dry-run", "new"], ["rename", "--check", T, "new", "--force"],
    ["rename", T, "new", "--strings", "--comments", "--allow-syntactic", "--json"],
    ["type", T], ["impls", T, "--json"], ["calls", T, "--depth", "3"], ["calls", T, "--outgoing", "--depth", "5"],
    ["calls", T, "--depth", "٣"], ["hierarchy", T, "--down"], ["hierarchy", T, "--up", "--up"],
    ["fix", T, "--apply", "Add import"], ["fix", T, "--apply", ""],
    ["tool", "read_file", "--args", "{}"], ["tool", "read_file", "--args", "-"], ["tool", "--root", ".", "x"],
    ["tool", "search_in_files", "--args", '{"pattern": "-x"}', "--no-daemon"], ["tool", "x", "--stream"],
]
# Command lines left to argparse: it reads some of them, refuses the others with its own message.
LEFT = [
    ["refs"], ["refs", T, "extra"], ["refs", "--js", T], ["refs", T, "--root=."], ["refs", T, "-h"],
    ["refs", T, "--help"], ["refs", T, "--no-such"], ["refs", T, "--root"], ["refs", T, "--root", "--json"],
    ["refs", "--", T], ["refs", "-1:2:3"], ["refs", T, "--root", "-x"], ["refs", T, "--no-decl"],
    ["refs", T, "--json=1"], ["refs", "-x y"], ["def", T, "--no-declaration"], ["diagnostics"],
    ["rename", T], ["rename", T, "a", "b"], ["rename", T, "new", "--dry"],
    ["calls", T, "--depth", "0"], ["calls", T, "--depth", "6"], ["calls", T, "--depth", "x"],
    ["calls", T, "--depth"], ["calls", T, "--depth", "-1"], ["calls", T, "--depth=2"],
    ["hierarchy", T, "--up", "--down"], ["type", T, "--outgoing"], ["fix", T, "--apply"], ["fix", T, "--apply", "-x"],
    ["tool"], ["tool", "a", "b"], ["tool", "x", "--args"], ["tool", "x", "--arg", "{}"], ["tool", "-h"],
]


def _argparse(argv: list[str]) -> tuple[object | None, str]:
    """The full CLI's parse of `argv`: (namespace, "") or (None, its error output)."""
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        try:
            return build_parser().parse_args(argv), ""
        except SystemExit:
            return None, err.getvalue()


def _quick(argv: list[str]) -> object | None:
    if argv[0] == "tool":
        return parse(TOOL_ARGUMENTS, argv[1:])
    return command_words(argv[0], argv[1:])


@pytest.mark.parametrize("argv", CANONICAL + LEFT, ids=" ".join)
def test_the_quick_reader_reads_what_argparse_reads_or_leaves_it(argv: list[str]) -> None:
    quick, (full, error) = _quick(argv), _argparse(argv)
    if argv in CANONICAL:
        assert quick is not None, "a canonical command line must not need argparse"
    if quick is None:
        return  # (the CLI's argparse reads it, or prints its own error)
    assert full is not None, f"argparse refuses what the quick reader read: {error}"
    values = vars(quick)
    assert values, argv
    for name, value in values.items():
        assert getattr(full, name) == value and type(getattr(full, name)) is type(value), (name, value)


def test_the_left_command_lines_include_argparse_refusals() -> None:
    """The table is worth something: most LEFT lines are errors argparse reports itself."""
    refused = [argv for argv in LEFT if _argparse(argv)[0] is None]
    assert len(refused) >= 25, refused
    assert "unrecognized arguments: --no-such" in _argparse(["refs", T, "--no-such"])[1]


# The regular expressions TARGETs were read with before (arguments.py reads them with str methods).
POSITION = re.compile(r"^(?P<path>.+):(?P<line>\d+):(?P<col>\d+)$")
LINE_ONLY = re.compile(r"^(?P<path>.+):(?P<line>\d+)$")
IN_FILE = re.compile(r"^(?P<path>.+?)::(?P<symbol>.+)$")


def test_targets_are_split_as_the_regular_expressions_split_them() -> None:
    checked = 0
    for n in range(7):
        for letters in itertools.product(":a1٣\n/ ", repeat=n):
            text = "".join(letters)
            m = POSITION.match(text)
            assert position_parts(text) == (m.group("path", "line", "col") if m else None), repr(text)
            m = LINE_ONLY.match(text)
            assert line_parts(text) == (m.group("path", "line") if m else None), repr(text)
            m = IN_FILE.match(text)
            assert in_file_parts(text) == (m.group("path", "symbol") if m else None), repr(text)
            checked += 1
    assert checked > 100_000


def _old_file_arg(raw: str, root: Path) -> str:  # arguments.file_arg as it was, on pathlib
    given = Path(raw)
    if given.is_absolute():
        return raw
    here = (Path.cwd() / given).resolve()
    if here.exists() and (here == root or root in here.parents):
        return str(here)
    return raw


@pytest.fixture()
def tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = (tmp_path / "ws").resolve()
    (root / "pkg" / "sub").mkdir(parents=True)
    (root / "pkg" / "mod.py").write_text("x = 1\n")
    (root / "top.py").write_text("y = 2\n")
    (root / "link").symlink_to(root / "pkg")
    (root / "dangling").symlink_to(root / "nowhere")
    (tmp_path / "outside.py").write_text("z = 3\n")
    (tmp_path / "wsx").mkdir()
    monkeypatch.setenv("HOME", str(root))
    return root


RAWS = ["mod.py", "pkg/mod.py", "./mod.py", "sub/../mod.py", "../top.py", "../../outside.py", "", ".", "..",
        "link/mod.py", "dangling", "nowhere.py", "pkg//mod.py", "/abs/x.py", "//x.py", "sub/", "../wsx"]


@pytest.mark.parametrize("cwd", [".", "pkg", "pkg/sub", "link", ".."])
def test_a_path_argument_is_what_pathlib_made_of_it(tree: Path, cwd: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tree / cwd)
    for raw in RAWS:
        assert file_arg(raw, tree) == file_arg(raw, str(tree)) == _old_file_arg(raw, tree), raw
    target = parse_target("pkg/mod.py:1:1", tree)
    assert target == {"file_path": _old_file_arg("pkg/mod.py", tree), "line": 1, "column": 1}


def test_a_root_is_resolved_as_pathlib_resolves_it(tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tree / "pkg")
    for raw in [".", "..", "sub", "sub/", "./sub/..", "../link", str(tree), "~", "~/pkg", "~//pkg/", "mod.py",
                "nowhere", "../dangling", "", "//", "/"]:
        old = Path(raw).expanduser().resolve()
        assert resolved_root(raw) == (str(old) if old.is_dir() else None), raw
    assert resolved_root("~no_such_user_here/x") is None  # (pathlib raises: the normal path says so)


def test_the_fast_call_resolves_its_target_as_the_full_one(tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tree / "pkg")
    call = semantic_call(["refs", "mod.py:3:7", "--root", "..", "--json"])
    assert call is not None and call.root == str(tree) and call.tool == "find_references"
    assert call.tool_args == {"file_path": str(tree / "pkg" / "mod.py"), "line": 3, "column": 7,
                              "include_declaration": True, "limit": 0}
    assert semantic_call(["hierarchy", "mod.py:3:7", "--up", "--down"]) is None  # argparse's error
    assert semantic_call(["refs", "mod.py:0:7"]) is None  # the normal path's usage error
    assert semantic_call(["refs", "mod.py:1:1", "--root", "nowhere"]) is None


def test_a_suffix_is_what_pathlib_says() -> None:
    for n in range(8):
        for letters in itertools.product(["a", ".", "/", "py", "P", "É"], repeat=n):
            text = "".join(letters)
            assert suffix(text) == PurePosixPath(text).suffix.lower() == suffix(Path(text)), repr(text)
    assert os.sep == "/"
