"""The syntax guard through the real mutating tools: a change that adds syntax errors is undone
and explained (where, with context); a fixing change is accepted; force keeps a broken one;
files that were already broken, unsupported files and a disabled guard are let through."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from agent.bootstrap import load_all_tools, open_context
from agent.config import Settings, SyntaxSettings
from agent.result import ToolResult
from agent.syntax.guard import SyntaxGuard
from agent.toolcontext import ToolContext

Call = Callable[..., ToolResult]


def contents(folder: Path) -> dict[str, bytes]:
    """The bytes of every file under `folder` but the tool's own state (undo rewrites mtimes)."""
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file() and ".codeagent" not in p.parts}

GOOD = "def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a - b\n"


def test_guard_is_installed_by_default(ctx: ToolContext) -> None:
    assert any(isinstance(check, SyntaxGuard) for check in ctx.edit_checks)


def test_broken_replace_is_rejected_and_the_file_is_unchanged(root: Path, call: Call) -> None:
    (root / "m.py").write_text(GOOD)
    before = contents(root)
    res = call("replace_in_file", file_path="m.py", old_text="return a - b", new_text="return (a - b")
    assert not res.success
    assert res.error is not None
    assert "syntax check: m.py: the edit adds syntax errors (0 before, 1 after)" in res.error
    assert "line 6" in res.error
    assert ">  6 |     return (a - b" in res.error or "> 6 |     return (a - b" in res.error
    assert "  5 | def sub(a, b):" in res.error  # context before the error
    assert "The edit was undone" in res.error
    assert res.data["rejected_by"] == "syntax"
    assert contents(root) == before


def test_broken_write_is_rejected_and_a_fixed_one_accepted(root: Path, call: Call) -> None:
    (root / "app.ts").write_text("export const x: number = 1;\n")
    broken = call("write_file", file_path="app.ts", content="export const x: number = ;\nfunction f( {\n")
    assert not broken.success and "app.ts" in (broken.error or "")
    assert (root / "app.ts").read_text() == "export const x: number = 1;\n"
    fixed = call("write_file", file_path="app.ts", content="export const x: number = 2;\n")
    assert fixed.success
    assert fixed.data["syntax"]["files"]["app.ts"] == {"language": "typescript", "errors_before": 0, "errors_after": 0}
    assert (root / "app.ts").read_text() == "export const x: number = 2;\n"


def test_a_new_broken_file_is_rejected_and_not_created(root: Path, call: Call) -> None:
    res = call("write_file", file_path="pkg/new.py", content="class A(:\n    pass\n")
    assert not res.success and "pkg/new.py" in (res.error or "")
    assert not (root / "pkg" / "new.py").exists()


def test_force_keeps_a_broken_edit_and_says_so(root: Path, call: Call) -> None:
    (root / "m.py").write_text(GOOD)
    res = call("replace_in_file", file_path="m.py", old_text="return a - b", new_text="return (a - b", force=True)
    assert res.success
    assert "kept despite syntax (force)" in res.output
    assert (root / "m.py").read_text() == GOOD.replace("return a - b", "return (a - b")


def test_fixing_an_already_broken_file_is_accepted_and_noted(root: Path, call: Call) -> None:
    (root / "m.py").write_text(GOOD.replace("return a - b", "return (a - b"))
    res = call("replace_in_file", file_path="m.py", old_text="return (a - b", new_text="return a - b")
    assert res.success and "m.py: syntax errors 1 → 0" in res.output


def test_editing_elsewhere_in_an_already_broken_file_is_accepted(root: Path, call: Call) -> None:
    (root / "m.py").write_text(GOOD.replace("return a - b", "return (a - b"))
    res = call("replace_in_file", file_path="m.py", old_text="return a + b", new_text="return b + a")
    assert res.success


def test_unsupported_files_and_deletions_are_not_checked(root: Path, call: Call) -> None:
    assert call("write_file", file_path="notes.md", content="def broken(:\n").success
    assert call("write_file", file_path="data.json", content="{ not json").success


def test_patch_touching_two_files_is_undone_as_a_whole(root: Path, call: Call) -> None:
    (root / "a.py").write_text("x = 1\n")
    (root / "b.js").write_text("const y = 2;\n")
    before = contents(root)
    patch = ("--- a/a.py\n+++ b/a.py\n@@ -1 +1 @@\n-x = 1\n+x = 3\n"
             "--- a/b.js\n+++ b/b.js\n@@ -1 +1 @@\n-const y = 2;\n+const y = (2;\n")
    res = call("apply_patch", patch=patch)
    assert not res.success and "b.js" in (res.error or "") and "a.py" not in (res.error or "").split("\n")[0]
    assert contents(root) == before


def test_error_position_counts_characters_and_points_at_the_change(root: Path, call: Call) -> None:
    (root / "e.js").write_text("const a = ;\n\nconst s = 1;\n")  # already broken, away from the change
    res = call("replace_in_file", file_path="e.js", old_text="const s = 1;", new_text='const s = "😀"; const x = ;')
    assert not res.success
    # `=` is the 24th character of line 3 (the 27th byte): columns count characters
    assert "First new error at line 3, column 24: unexpected '='" in (res.error or "")
    lines = (res.error or "").split("\n")
    marked = next(i for i, line in enumerate(lines) if line.startswith("> 3 | "))
    assert lines[marked + 1].index("^") - lines[marked + 1].index("|") == 2 + 23


def test_disabled_guard_lets_broken_edits_through(root: Path) -> None:
    (root / "m.py").write_text(GOOD)
    with open_context(root, settings=Settings(syntax=SyntaxSettings(guard=False))) as ctx:
        res = load_all_tools().call(ctx, "write_file", {"file_path": "m.py", "content": "def (:\n"})
    assert res.success and (root / "m.py").read_text() == "def (:\n"
