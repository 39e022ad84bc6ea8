"""find_files and search_in_files; ripgrep and the Python engine give identical results."""

from __future__ import annotations

import codecs
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from agent.bootstrap import load_all_tools, open_context
from agent.config import Settings, WorkspaceSettings
from agent.result import ToolResult
from agent.ripgrep import find_rg
from agent.toolcontext import ToolContext
from agent.walk import compile_glob

Call = Callable[..., ToolResult]

needs_rg = pytest.mark.skipif(find_rg() is None, reason="ripgrep (the `ripgrep` wheel) is not installed")


def build_tree(root: Path, outside: Path) -> None:
    """Files that exercise every rule: ignores, encodings, line endings, binaries, symlinks."""
    files: dict[str, bytes] = {
        "README.md": b"# Demo\nThe parser reads TODO items.\n",
        "src/app.py": b"import os\n\ndef parse(text):\n    # TODO: handle errors\n    return text.split()\n\n"
                      b"class Parser:\n    def parse(self):\n        return parse('x')\n",
        "src/util/helpers.py": b"def helper():\n    return 'parse me'\n" + b"# filler\n" * 30 + b"def parse_all(): pass\n",
        "src/util/__init__.py": b"",
        "src/win.txt": b"alpha parse\r\nbeta\r\nparse gamma\r\n",
        "src/bom.py": codecs.BOM_UTF8 + "x = 'parse caf\u00e9'\n".encode(),
        "src/utf16.txt": codecs.BOM_UTF16_LE + "utf16 parse line\nsecond\n".encode("utf-16-le"),
        "src/latin.txt": "caf\u00e9 parse cr\u00e8me\n".encode("latin-1"),
        "src/emoji.ts": "const s = '\U0001f600'; parse(s); // \u00e9t\u00e9 Parse\n".encode(),
        "src/long.min.js": b"var a=1;" * 2000 + b"parse();" + b"var b=2;" * 2000 + b"\n",
        "src/nonl.txt": b"first\nlast parse",
        "src/many.txt": b"".join(b"parse %d\n" % i for i in range(300)),
        "src/PARSE_upper.txt": b"PARSE loudly\nParse politely\n",
        "src/regexy.txt": b"a.b a+b (parse) [x] parse$ \\d\n",
        "data/blob.bin": b"parse\x00binary\x00",
        "data/late.bin": b"parse line\n" * 100 + b"\x00",
        ".env": b"PARSE_KEY=1\n",
        ".gitignore": b"*.log\nbuild/\n!keep.log\n",
        "debug.log": b"parse in a log\n",
        "keep.log": b"parse kept log\n",
        "build/out.py": b"parse()\n",
        "node_modules/dep/index.js": b"parse()\n",
        ".git/config": b"parse = true\n",
        "venv/pyvenv.cfg": b"home = /usr\n",
        "venv/lib/site.py": b"parse\n",
        "sub/.gitignore": b"generated.py\n",
        "sub/generated.py": b"parse()\n",
        "sub/kept.py": b"parse()\n",
    }
    for rel, data in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    outside.mkdir()
    (outside / "secret.py").write_text("parse the secret\n")
    (root / "out_link.py").symlink_to(outside / "secret.py")
    (root / "out_dir").symlink_to(outside)
    (root / "in_link.py").symlink_to(root / "sub" / "kept.py")


@pytest.fixture
def tree(root: Path, tmp_path: Path) -> Path:
    build_tree(root, tmp_path / "outside")
    return root


def _ctx(root: Path, engine: str, **kw: Any) -> ToolContext:
    return open_context(root, settings=Settings(workspace=WorkspaceSettings(search_engine=engine, **kw)))


@pytest.fixture
def engines(tree: Path) -> Iterator[dict[str, ToolContext]]:
    contexts = {"ripgrep": _ctx(tree, "ripgrep"), "python": _ctx(tree, "python")}
    yield contexts
    for c in contexts.values():
        c.close()


QUERIES: list[dict[str, Any]] = [
    {"pattern": "parse"},
    {"pattern": "parse", "case_sensitive": False},
    {"pattern": "parse", "context_lines": 2},
    {"pattern": "parse", "max_results": 7, "context_lines": 1},
    {"pattern": "parse", "max_results": 1},
    {"pattern": r"def \w+\(", "glob": "*.py"},
    {"pattern": r"parse$"},
    {"pattern": r"^\s+return", "context_lines": 1},
    {"pattern": "(parse)", "regex": False},
    {"pattern": "parse$", "regex": False},
    {"pattern": "a.b", "regex": False},
    {"pattern": "caf\u00e9"},
    {"pattern": "\U0001f600"},
    {"pattern": "parse", "path": "src/util"},
    {"pattern": "parse", "path": "src/win.txt"},
    {"pattern": "parse", "glob": "src/**/*.{py,ts}"},
    {"pattern": "nothing-matches-this"},
    {"pattern": r"parse \d+", "max_results": 5},
    {"pattern": "parse", "path": "src", "glob": "util/*.py"},  # a glob relative to a subfolder
]


@needs_rg
@pytest.mark.parametrize("index", range(len(QUERIES)))
def test_ripgrep_and_python_give_identical_results(engines: dict[str, ToolContext], index: int) -> None:
    registry = load_all_tools()
    query = QUERIES[index]
    rg = registry.call(engines["ripgrep"], "search_in_files", query)
    py = registry.call(engines["python"], "search_in_files", query)
    assert rg.success and py.success, (rg.error, py.error)
    assert rg.data.pop("engine") == "ripgrep" and py.data.pop("engine") == "python"
    assert rg.output == py.output
    assert rg.data == py.data


@needs_rg
def test_many_matching_files_give_identical_results(root: Path) -> None:
    """Hundreds of files with many matches each, binary files with matches before their NUL
    among them: rg's matches past what can be shown are only counted and dropped as they come
    (grep_rg.py), and the totals, the files counted and the lines shown stay the Python engine's."""
    for i in range(240):
        (root / f"d{i % 7}").mkdir(exist_ok=True)
        (root / f"d{i % 7}" / f"f{i:03}.txt").write_bytes(b"".join(b"hit %d of %d\n" % (j, i) for j in range(25)))
        if i % 40 == 0:
            (root / f"d{i % 7}" / f"b{i:03}.bin").write_bytes(b"hit before the nul\n" * 30 + b"\x00")
    registry = load_all_tools()
    contexts = {engine: _ctx(root, engine) for engine in ("ripgrep", "python")}
    try:
        for query in ({"pattern": "hit", "max_results": 10}, {"pattern": r"hit \d+ of 1\d\b", "max_results": 300},
                      {"pattern": "hit", "max_results": 3, "context_lines": 2}):
            rg, py = (registry.call(contexts[e], "search_in_files", query) for e in ("ripgrep", "python"))
            assert rg.success and py.success, (rg.error, py.error)
            assert rg.data.pop("engine") == "ripgrep" and py.data.pop("engine") == "python"
            assert (rg.output, rg.data) == (py.output, py.data)
        assert rg.data["total_matches"] == 240 * 25 and rg.data["files_with_matches"] == 240
    finally:
        for c in contexts.values():
            c.close()


@needs_rg
def test_far_more_matches_than_shown_give_exact_totals_and_the_same_lines(root: Path) -> None:
    """Some 30,000 matching lines (megabytes of rg's JSON, read in chunks, a line longer than a
    chunk among them) for at most a few hundred shown: rg's matches are counted by a byte scan
    and only the first ones kept (grep_rgscan.py). Names JSON escapes or gives as bytes, and a
    binary file whose matches come before its NUL, sort before the shown lines. The totals are
    exact and the lines shown are the Python engine's."""
    odd = [b"a/q\"uote.txt", b"a/back\\slash.txt", b"a/tab\tname.txt", "a/\u00fcn\u00ef.txt".encode(), b"a/lat\xe9.txt"]
    (root / "a").mkdir()
    for name in odd:
        (root / os.fsdecode(name)).write_bytes(b"x = 1\n" + b"call(hit) %d\n" * 3 % (1, 2, 3))
    (root / "a" / "bin.dat").write_bytes(b"call(hit) before the nul\n" * 50 + b"\x00")
    (root / "a" / "long.txt").write_bytes(b"call(hit) " + b"y" * 1_500_000 + b"\ncall(hit) after\n")
    for i in range(300):
        folder = root / f"d{i % 9}"
        folder.mkdir(exist_ok=True)
        (folder / f"f{i:03}.py").write_bytes(b"".join(
            b"    self.call(hit) %d of %d, %s\n" % (j, i, b"z" * (j % 50)) for j in range(100)) + b"other\n")
    registry = load_all_tools()
    contexts = {engine: _ctx(root, engine) for engine in ("ripgrep", "python")}
    try:
        for query in ({"pattern": "call(hit)", "regex": False, "max_results": 25},
                      {"pattern": "CALL(HIT) 2", "regex": False, "case_sensitive": False},
                      {"pattern": r"hit\) \d+ of 2\d\d", "max_results": 5000},
                      {"pattern": r"hit\) 9\d of", "max_results": 1}):
            rg, py = (registry.call(contexts[e], "search_in_files", query) for e in ("ripgrep", "python"))
            assert rg.success and py.success, (rg.error, py.error)
            assert rg.data.pop("engine") == "ripgrep" and py.data.pop("engine") == "python"
            assert (rg.output, rg.data) == (py.output, py.data), query
            assert rg.data["truncated"] and len(rg.data["matches"]) == query.get("max_results", 200)
        first = registry.call(contexts["ripgrep"], "search_in_files", {"pattern": "call(hit)", "regex": False, "max_results": 25})
        assert first.data["total_matches"] == 5 * 3 + 2 + 300 * 100 and first.data["files_with_matches"] == 5 + 1 + 300
        assert [m["path"] for m in first.data["matches"][:3]] == ["a/back\\slash.txt"] * 3
        assert "a/bin.dat" not in {m["path"] for m in first.data["matches"]}
    finally:
        for c in contexts.values():
            c.close()


def test_search_results_are_right(tree: Path, call: Call) -> None:
    res = call("search_in_files", pattern="parse", max_results=1000)
    assert res.success
    paths = {m["path"] for m in res.data["matches"]}
    assert {"README.md", "src/app.py", "src/win.txt", "src/bom.py", "src/utf16.txt", "src/latin.txt",
            "src/emoji.ts", "src/long.min.js", "src/nonl.txt", "keep.log", "sub/kept.py", "in_link.py"} <= paths
    for never in ("debug.log", "build/out.py", "node_modules/dep/index.js", ".git/config", "venv/lib/site.py",
                  "sub/generated.py", "out_link.py", "data/blob.bin", "data/late.bin"):
        assert never not in paths, never
    assert not any(p.startswith("out_dir") for p in paths)
    counts: dict[str, int] = {}
    for m in res.data["matches"]:
        counts[m["path"]] = counts.get(m["path"], 0) + 1
    assert counts == {
        "README.md": 1, "src/app.py": 3, "src/util/helpers.py": 2, "src/win.txt": 2, "src/bom.py": 1,
        "src/utf16.txt": 1, "src/latin.txt": 1, "src/emoji.ts": 1, "src/long.min.js": 1, "src/nonl.txt": 1,
        "src/many.txt": 300, "src/regexy.txt": 1, "keep.log": 1, "sub/kept.py": 1, "in_link.py": 1,
    }
    assert res.data["total_matches"] == 318 and res.data["files_with_matches"] == 15
    assert "src/win.txt:3: parse gamma" in res.output  # CRLF: no stray \r
    assert "src/latin.txt:1: caf\u00e9 parse cr\u00e8me" in res.output  # shown in its own encoding
    emoji = next(m for m in res.data["matches"] if m["path"] == "src/emoji.ts")
    assert emoji["column"] == 16  # characters, not bytes: the emoji counts as one
    long_line = next(m for m in res.data["matches"] if m["path"] == "src/long.min.js")
    assert len(long_line["text"]) < 400 and "parse();" in long_line["text"] and "cut" in long_line["text"]


def test_search_cap_says_what_was_cut(tree: Path, call: Call) -> None:
    res = call("search_in_files", pattern=r"parse \d+", max_results=5)
    assert res.data["total_matches"] == 300 and len(res.data["matches"]) == 5 and res.data["truncated"]
    assert "[showing the first 5 of 300 matching lines in 1 files;" in res.output
    assert [m["line"] for m in res.data["matches"]] == [1, 2, 3, 4, 5]


def test_search_context_lines(tree: Path, call: Call) -> None:
    res = call("search_in_files", pattern="TODO", path="src", context_lines=1)
    assert res.output.splitlines()[:3] == [
        "src/app.py-3- def parse(text):", "src/app.py:4:     # TODO: handle errors", "src/app.py-5-     return text.split()"]


def test_search_errors(tree: Path, call: Call) -> None:
    assert "invalid regular expression" in (call("search_in_files", pattern="(unclosed").error or "")
    assert "no such file or folder" in (call("search_in_files", pattern="x", path="nope").error or "")
    assert not call("search_in_files", pattern="").success
    assert not call("search_in_files", pattern="x", context_lines=99).success


@needs_rg
def test_pattern_outside_ripgreps_dialect_falls_back_to_python(tree: Path, call: Call) -> None:
    res = call("search_in_files", pattern=r"parse(?= me)")  # look-ahead: Python's re only
    assert res.success and res.data["engine"] == "python" and "searched with Python's re" in res.output
    assert [m["path"] for m in res.data["matches"]] == ["src/util/helpers.py"]


def test_search_skips_files_over_the_read_limit(tree: Path) -> None:
    (tree / "huge.txt").write_bytes(b"parse\n" + b"x" * 5000)
    with _ctx(tree, "auto") as c:
        c.workspace.max_read_bytes = 4096
        c.settings.workspace.max_read_bytes = 4096
        res = load_all_tools().call(c, "search_in_files", {"pattern": "parse", "path": "."})
    assert "huge.txt" in res.data["skipped_large"] and "over the 4096-byte read limit" in res.output


# ----------------------------------------------------------------- find_files


def test_find_files_glob_semantics(tree: Path, call: Call) -> None:
    def found(pattern: str, path: str = ".") -> list[str]:
        res = call("find_files", pattern=pattern, path=path)
        assert res.success, res.error
        return list(res.data["files"])

    assert found("**/*.py") == ["in_link.py", "src/app.py", "src/bom.py", "src/util/__init__.py",
                                "src/util/helpers.py", "sub/kept.py"]
    assert found("*.py") == found("**/*.py")  # no '/': the name at any depth
    assert found("src/*.py") == ["src/app.py", "src/bom.py"]  # '*' stays within one folder
    assert found("*.py", path="src/util") == ["src/util/__init__.py", "src/util/helpers.py"]
    assert found("*.{ts,js}") == ["src/emoji.ts", "src/long.min.js"]
    assert found("[A-Z]*.txt") == ["src/PARSE_upper.txt"]
    assert found("*.log") == ["keep.log"]
    assert found("*.nothing") == []
    assert "no files match" in call("find_files", pattern="*.nothing").output


def test_find_files_cap(root: Path, call: Call) -> None:
    for i in range(1100):
        (root / f"f{i:05}.txt").write_text("")
    res = call("find_files", pattern="*.txt")
    assert res.data["total"] == 1100 and len(res.data["files"]) == 1000
    assert "100 more files not shown (1100 in all)" in res.output


@pytest.mark.parametrize(("glob", "path", "expected"), [
    ("*.py", "a/b/c.py", True), ("*.py", "c.pyc", False), ("**/*.py", "c.py", True),
    ("src/**", "src/a/b.txt", True), ("src/*", "src/a/b.txt", False), ("a?c", "abc", True),
    ("a?c", "a/c", False), ("*.{py,pyi}", "x/y.pyi", True), ("[!a]*", "bcd", True), ("[!a]*", "abc", False),
    ("/top.txt", "top.txt", True), ("./src/*.py", "src/x.py", True), ("**/test_*.py", "t/u/test_x.py", True),
])
def test_compile_glob(glob: str, path: str, expected: bool) -> None:
    assert compile_glob(glob)(path) is expected
