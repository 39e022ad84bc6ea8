"""read_file, write_file, list_directory through the Python API (the registry), and every
path-taking tool refusing paths outside the workspace."""

from __future__ import annotations

import codecs
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from agent.result import ToolResult

Call = Callable[..., ToolResult]
Snapshot = Callable[[Path], dict[str, Any]]


def test_read_file_numbers_lines_and_ranges(root: Path, call: Call) -> None:
    (root / "a.py").write_text("".join(f"line {i}\n" for i in range(1, 21)))
    res = call("read_file", file_path="a.py")
    assert res.success and res.output.splitlines()[0] == " 1  line 1"
    assert res.data["total_lines"] == 20 and res.data["truncated"] is False
    part = call("read_file", file_path="a.py", start_line=5, end_line=7)
    assert part.output.splitlines() == ["5  line 5", "6  line 6", "7  line 7"]
    tail = call("read_file", file_path="a.py", start_line=19)
    assert tail.output.splitlines() == ["19  line 19", "20  line 20"]


def test_read_file_large_file_shows_head_and_tail_with_how_to_ask(root: Path, call: Call) -> None:
    (root / "big.txt").write_text("".join(f"row {i}\n" for i in range(1, 2001)))
    res = call("read_file", file_path="big.txt")
    assert res.success and res.data["truncated"] is True
    assert "row 400" in res.output and "row 401\n" not in res.output and "row 2000" in res.output
    assert "1500 lines left out (lines 401-1900)" in res.output
    assert "start_line=401, end_line=1900" in res.output
    middle = call("read_file", file_path="big.txt", start_line=401, end_line=403)
    assert "row 401" in middle.output and "row 403" in middle.output


def test_read_file_cuts_very_long_lines(root: Path, call: Call) -> None:
    (root / "min.js").write_text("x" * 100_000 + "\nshort\n")
    res = call("read_file", file_path="min.js")
    assert res.success and "98000 more characters on this line" in res.output and "short" in res.output
    assert len(res.output) < 5000


def test_read_file_errors_are_clear(root: Path, call: Call) -> None:
    (root / "a.txt").write_text("one\n")
    (root / "img.bin").write_bytes(b"\x89PNG\x00\x00")
    (root / "empty.txt").write_text("")
    (root / "d").mkdir()
    cases = {
        "missing.txt": "missing.txt: no such file",
        "img.bin": "binary file",
        "d": "not a regular file",
    }
    for path, message in cases.items():
        res = call("read_file", file_path=path)
        assert not res.success and message in (res.error or ""), (path, res.error)
    assert "past the end" in (call("read_file", file_path="a.txt", start_line=5).error or "")
    (root / "b.txt").write_text("1\n2\n3\n")
    assert "before start_line" in (call("read_file", file_path="b.txt", start_line=3, end_line=2).error or "")
    assert call("read_file", file_path="empty.txt").output == "empty.txt is empty (0 lines)"
    bad = call("read_file", file_path="a.txt", start_line="two")
    assert not bad.success and "start_line" in (bad.error or "") and bad.data["usage_error"]


def test_read_file_decodes_bom_and_gbk(root: Path, call: Call) -> None:
    (root / "bom.txt").write_bytes(codecs.BOM_UTF8 + "h\u00e9\r\n".encode())
    (root / "zh.txt").write_bytes(("中文内容，用于检测编码是否正确。\n" * 4).encode("gbk"))
    assert call("read_file", file_path="bom.txt").output == "1  h\u00e9"
    res = call("read_file", file_path="zh.txt")
    assert "中文内容" in res.output and res.data["encoding"] in ("gb18030", "gbk", "gb2312")


def test_write_file_creates_folders_and_keeps_format(root: Path, call: Call) -> None:
    res = call("write_file", file_path="deep/er/new.txt", content="hello\n")
    assert res.success and "created deep/er/new.txt" in res.output
    assert (root / "deep/er/new.txt").read_text() == "hello\n"
    assert "+hello" in res.data["diff"] and res.data["journal_id"]
    (root / "win.txt").write_bytes(codecs.BOM_UTF8 + b"old\r\n")
    res = call("write_file", file_path="win.txt", content="new\nlines\n")
    assert res.success and "overwrote win.txt" in res.output
    assert (root / "win.txt").read_bytes() == codecs.BOM_UTF8 + b"new\r\nlines\r\n"


def test_write_file_refuses_a_folder(root: Path, call: Call) -> None:
    (root / "d").mkdir()
    res = call("write_file", file_path="d", content="x")
    assert not res.success and "not a regular file" in (res.error or "")


def test_list_directory_skips_noise_and_shows_depth(root: Path, call: Call) -> None:
    for folder in ("src/pkg", ".git", "node_modules/lib", "__pycache__", "env", "build"):
        (root / folder).mkdir(parents=True)
    (root / "env" / "pyvenv.cfg").write_text("home = /usr\n")
    (root / ".gitignore").write_text("build/\n*.log\n")
    (root / "src" / "pkg" / "mod.py").write_text("x = 1\n")
    (root / "src" / "main.py").write_text("print()\n" * 200)
    (root / "debug.log").write_text("noise\n")
    (root / "README.md").write_text("# hi\n")
    res = call("list_directory")
    assert res.success
    lines = res.output.splitlines()
    assert lines[0] == "./"
    assert "  src/  (2 entries)" in lines and "  README.md  5 B" in lines
    for noise in ("node_modules", "__pycache__", "env/", "build", "debug.log"):
        assert not any(line.strip().startswith(noise) for line in lines[1:-1]), noise
    assert "not listed:" in lines[-1] and "node_modules/" in lines[-1]
    deep = call("list_directory", path="src", depth=2)
    assert deep.output.splitlines()[:4] == ["src/", "  pkg/", "    mod.py  6 B", "  main.py  1.6 KB"]
    assert [e["path"] for e in deep.data["entries"]] == ["src/pkg", "src/pkg/mod.py", "src/main.py"]


def test_list_directory_bounds_and_errors(root: Path, call: Call) -> None:
    for i in range(620):
        (root / f"f{i:04}.txt").write_text("")
    res = call("list_directory")
    assert res.success and "120 more entries not shown (limit 500)" in res.output
    assert not call("list_directory", path="f0001.txt").success
    assert "no such folder" in (call("list_directory", path="nope").error or "")
    assert not call("list_directory", depth=0).success


def test_list_directory_symlinks_are_shown_not_followed(root: Path, call: Call, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("s")
    (root / "out").symlink_to(outside)
    (root / "a.txt").write_text("a")
    (root / "in.txt").symlink_to(root / "a.txt")
    res = call("list_directory", depth=3)
    assert "  out -> (outside the workspace)" in res.output and "secret" not in res.output
    assert "  in.txt -> a.txt" in res.output


# ----------------------------------------------------------------- refusals, for every tool


@pytest.fixture
def trap(root: Path, tmp_path: Path) -> dict[str, str]:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("secret\n")
    evil = tmp_path / "ws_evil"
    evil.mkdir()
    (evil / "f.txt").write_text("evil\n")
    (root / "link.txt").symlink_to(outside / "secret.txt")
    (root / "linkdir").symlink_to(outside)
    (root / ".git").mkdir()
    (root / ".git" / "config").write_text("[core]\n")
    return {
        "dotdot": "../outside/secret.txt",
        "absolute": str(outside / "secret.txt"),
        "sibling": str(evil / "f.txt"),
        "file_symlink": "link.txt",
        "dir_symlink": "linkdir/secret.txt",
        "proc_root": f"/proc/self/root{outside}/secret.txt",
        "tilde": "~/secret.txt",
        "nul": "a\x00b.txt",
    }


def _calls(path: str) -> list[tuple[str, dict[str, Any]]]:
    patch = f"--- a/{path}\n+++ b/{path}\n@@ -1 +1 @@\n-secret\n+pwned\n"
    new_patch = f"--- /dev/null\n+++ b/{path}\n@@ -0,0 +1 @@\n+pwned\n"
    return [
        ("read_file", {"file_path": path}),
        ("write_file", {"file_path": path, "content": "pwned\n"}),
        ("replace_in_file", {"file_path": path, "old_text": "secret", "new_text": "pwned"}),
        ("apply_patch", {"patch": patch}),
        ("apply_patch", {"patch": new_patch}),
        ("list_directory", {"path": path}),
        ("find_files", {"pattern": "*", "path": path}),
        ("search_in_files", {"pattern": "secret", "path": path}),
    ]


@pytest.mark.parametrize("case", ["dotdot", "absolute", "sibling", "file_symlink", "dir_symlink", "proc_root",
                                  "tilde", "nul"])
def test_every_path_tool_refuses_escapes(root: Path, tmp_path: Path, trap: dict[str, str], call: Call,
                                         snapshot: Snapshot, case: str) -> None:
    before = snapshot(tmp_path)
    for name, args in _calls(trap[case]):
        res = call(name, **args)
        assert not res.success, (name, case, res.output)
        assert "outside the workspace" in (res.error or "") or "'~'" in (res.error or "") \
            or "NUL byte" in (res.error or ""), (name, case, res.error)
    assert snapshot(tmp_path) == before


def test_tools_never_write_into_git(root: Path, tmp_path: Path, trap: dict[str, str], call: Call,
                                    snapshot: Snapshot) -> None:
    before = snapshot(tmp_path)
    for name, args in _calls(".git/config")[1:5]:
        res = call(name, **args)
        assert not res.success and ".git/" in (res.error or ""), (name, res.error)
    assert snapshot(tmp_path) == before


def test_search_does_not_follow_symlinks_out(root: Path, trap: dict[str, str], call: Call) -> None:
    (root / "inside.txt").write_text("secret inside\n")
    res = call("search_in_files", pattern="secret")
    assert res.success and res.data["total_matches"] == 1 and "inside.txt:1:" in res.output
    found = call("find_files", pattern="**/*.txt")
    assert found.data["files"] == ["inside.txt"]
