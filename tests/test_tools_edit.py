"""replace_in_file and apply_patch through the Python API: exact matches, clear failures that
write nothing, multi-file patches (new, deleted, renamed files) and undo as one operation."""

from __future__ import annotations

import codecs
import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from agent.result import ToolResult
from agent.toolcontext import ToolContext
from agent.workspace import Workspace

Call = Callable[..., ToolResult]
Snapshot = Callable[[Path], dict[str, Any]]

CODE = "def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a - b\n"


def test_replace_once(root: Path, call: Call) -> None:
    (root / "m.py").write_text(CODE)
    res = call("replace_in_file", file_path="m.py", old_text="return a + b", new_text="return b + a")
    assert res.success and "replaced 1 occurrence in m.py (line 2)" in res.output
    assert "-    return a + b\n+    return b + a" in res.output
    assert (root / "m.py").read_text() == CODE.replace("a + b", "b + a")


def test_replace_several_matches_lists_lines_and_writes_nothing(root: Path, call: Call, snapshot: Snapshot) -> None:
    (root / "m.py").write_text(CODE)
    before = snapshot(root)
    res = call("replace_in_file", file_path="m.py", old_text="(a, b):", new_text="(x, y):")
    assert not res.success
    assert "old_text occurs 2 times (at lines 1, 5); nothing was written" in (res.error or "")
    assert snapshot(root) == before
    res = call("replace_in_file", file_path="m.py", old_text="(a, b):", new_text="(x, y):", replace_all=True)
    assert res.success and "replaced 2 occurrences in m.py (lines 1, 5)" in res.output
    assert (root / "m.py").read_text().count("(x, y):") == 2


def test_replace_no_match_gives_closest_lines_or_whitespace_hint(root: Path, call: Call, snapshot: Snapshot) -> None:
    (root / "m.py").write_text(CODE)
    before = snapshot(root)
    res = call("replace_in_file", file_path="m.py", old_text="return a * b", new_text="x")
    assert not res.success and "old_text was not found; nothing was written" in (res.error or "")
    assert "closest lines" in (res.error or "") and "2:     return a + b" in (res.error or "")
    res = call("replace_in_file", file_path="m.py", old_text="def sub(a, b):\n  return a - b", new_text="x")
    assert "matches only if whitespace/indentation is ignored, at line(s) 5" in (res.error or "")
    res = call("replace_in_file", file_path="m.py", old_text="zzzz qqqq", new_text="x")
    assert "no similar lines" in (res.error or "")
    assert not call("replace_in_file", file_path="m.py", old_text="", new_text="x").success
    assert "the same" in (call("replace_in_file", file_path="m.py", old_text="a", new_text="a").error or "")
    assert "no such file" in (call("replace_in_file", file_path="nope.py", old_text="a", new_text="b").error or "")
    assert snapshot(root) == before


def test_replace_keeps_crlf_and_bom(root: Path, call: Call) -> None:
    (root / "w.txt").write_bytes(codecs.BOM_UTF8 + b"alpha\r\nbeta\r\ngamma\r\n")
    res = call("replace_in_file", file_path="w.txt", old_text="alpha\r\nbeta", new_text="ALPHA\nBETA\nextra")
    assert res.success
    assert (root / "w.txt").read_bytes() == codecs.BOM_UTF8 + b"ALPHA\r\nBETA\r\nextra\r\ngamma\r\n"


# ----------------------------------------------------------------- apply_patch

MULTI = """\
diff --git a/src/a.py b/src/a.py
--- a/src/a.py
+++ b/src/a.py
@@ -1,3 +1,3 @@
 def f():
-    return 1
+    return 2

@@ -8,3 +8,4 @@
 def h():
     return 3
+# end
diff --git a/gone.py b/gone.py
deleted file mode 100644
--- a/gone.py
+++ /dev/null
@@ -1,2 +0,0 @@
-x = 1
-y = 2
diff --git a/pkg/new.py b/pkg/new.py
new file mode 100644
--- /dev/null
+++ b/pkg/new.py
@@ -0,0 +1,2 @@
+print("new")
+print("file")
"""

A_PY = "def f():\n    return 1\n\n\ndef g():\n    return 2\n\ndef h():\n    return 3\n"


def _tree(root: Path) -> None:
    (root / "src").mkdir()
    (root / "src" / "a.py").write_text(A_PY)
    (root / "gone.py").write_text("x = 1\ny = 2\n")


def test_patch_over_many_files_and_undo_as_one(root: Path, call: Call, snapshot: Snapshot) -> None:
    _tree(root)
    before = snapshot(root)
    res = call("apply_patch", patch=MULTI)
    assert res.success, res.error
    assert "patched 3 files: gone.py, pkg/new.py, src/a.py" in res.output
    assert (root / "src/a.py").read_text() == A_PY.replace("return 1", "return 2") + "# end\n"
    assert not (root / "gone.py").exists()
    assert (root / "pkg/new.py").read_text() == 'print("new")\nprint("file")\n'
    Workspace(root).undo()
    assert {k: v[0] for k, v in snapshot(root).items() if not k.startswith(".codeagent")} == {
        k: v[0] for k, v in before.items()}


def test_patch_failing_half_way_writes_nothing_and_names_file_and_hunk(root: Path, call: Call,
                                                                     snapshot: Snapshot) -> None:
    _tree(root)
    (root / "src" / "a.py").write_text(A_PY.replace("return 3", "return 33"))  # hunk 2 no longer applies
    before = snapshot(root)
    res = call("apply_patch", patch=MULTI)
    assert not res.success
    error = res.error or ""
    assert "nothing was written; 1 of 3 file(s) failed" in error
    assert "src/a.py: hunk 2 of 2 (@@ -8,3 +8,4 @@) does not apply" in error
    assert "expected these lines:\n  def h():\n      return 3" in error
    assert "closest text in the file (line 8)" in error and "return 33" in error
    assert snapshot(root) == before  # not even the first hunk, the deletion or the new file


def test_patch_reports_every_failing_file(root: Path, call: Call, snapshot: Snapshot) -> None:
    (root / "a.txt").write_text("one\n")
    (root / "exists.txt").write_text("here\n")
    patch = ("--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-uno\n+eins\n"
             "--- /dev/null\n+++ b/exists.txt\n@@ -0,0 +1 @@\n+x\n"
             "--- a/missing.txt\n+++ b/missing.txt\n@@ -1 +1 @@\n-a\n+b\n")
    before = snapshot(root)
    res = call("apply_patch", patch=patch)
    error = res.error or ""
    assert "3 of 3 file(s) failed" in error
    assert "a.txt: hunk 1 of 1" in error and "exists.txt: the patch creates this file, but it already exists" in error
    assert "missing.txt: no such file" in error
    assert snapshot(root) == before


def test_patch_hunk_offset_whitespace_and_bad_counts(root: Path, call: Call) -> None:
    (root / "f.txt").write_text("intro\n" * 5 + "a\nb  \nc\n")
    # stated at line 1 but the lines are at 6; 'b' has trailing spaces in the file; counts are wrong
    patch = "--- a/f.txt\n+++ b/f.txt\n@@ -1,2 +1,2 @@\n a\n-b\n+B\n c\n"
    res = call("apply_patch", patch=patch)
    assert res.success, res.error
    assert "hunk 1 applied at line 6 (stated 1)" in res.output
    assert "ignoring trailing whitespace" in res.output
    assert (root / "f.txt").read_text() == "intro\n" * 5 + "a\nB\nc\n"


def test_patch_without_line_numbers_and_in_a_code_fence(root: Path, call: Call) -> None:
    (root / "f.py").write_text("x = 1\ny = 2\n")
    patch = "```diff\n--- f.py\n+++ f.py\n@@ ... @@\n x = 1\n-y = 2\n+y = 3\n```\n"
    res = call("apply_patch", patch=patch)
    assert res.success, res.error
    assert (root / "f.py").read_text() == "x = 1\ny = 3\n"
    (root / "g.py").write_text("a\nb\na\nb\n")
    res = call("apply_patch", patch="--- g.py\n+++ g.py\n@@ @@\n a\n-b\n+c\n")
    assert not res.success and "occur 2 times" in (res.error or "")


def test_patch_no_newline_at_end_of_file(root: Path, call: Call) -> None:
    (root / "n.txt").write_text("a\nb")
    patch = "--- a/n.txt\n+++ b/n.txt\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+c\n"
    assert call("apply_patch", patch=patch).success
    assert (root / "n.txt").read_text() == "a\nc\n"
    # a model's patch that forgets the marker keeps the file's own ending
    (root / "m.txt").write_text("a\nb")
    assert call("apply_patch", patch="--- a/m.txt\n+++ b/m.txt\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n").success
    assert (root / "m.txt").read_text() == "a\nc"


def test_patch_keeps_crlf_and_git_rename(root: Path, call: Call) -> None:
    (root / "w.txt").write_bytes(b"one\r\ntwo\r\n")
    (root / "old_name.py").write_text("v = 1\n")
    patch = ("--- a/w.txt\n+++ b/w.txt\n@@ -1,2 +1,2 @@\n one\n-two\n+TWO\n"
             "diff --git a/old_name.py b/new_name.py\nsimilarity index 90%\nrename from old_name.py\n"
             "rename to new_name.py\n--- a/old_name.py\n+++ b/new_name.py\n@@ -1 +1 @@\n-v = 1\n+v = 2\n")
    res = call("apply_patch", patch=patch)
    assert res.success, res.error
    assert (root / "w.txt").read_bytes() == b"one\r\nTWO\r\n"
    assert not (root / "old_name.py").exists() and (root / "new_name.py").read_text() == "v = 2\n"


def test_patch_parse_errors_are_clear(root: Path, call: Call) -> None:
    for patch, message in [
        ("just some text\n", "no file changes found"),
        ("*** Begin Patch\n*** Update File: a\n", "not a unified diff"),
        ("--- a/x\n+++ b/x\n@@ -1,3 +1,3 @@\n", "cannot be parsed"),
    ]:
        res = call("apply_patch", patch=patch)
        assert not res.success and message in (res.error or ""), (patch, res.error)


def test_patch_deleting_a_file_that_has_more_lines_is_refused(root: Path, call: Call) -> None:
    (root / "d.txt").write_text("a\nb\nc\n")
    res = call("apply_patch", patch="--- a/d.txt\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-a\n-b\n")
    assert not res.success and "has lines the patch does not remove" in (res.error or "")
    assert (root / "d.txt").read_text() == "a\nb\nc\n"


def test_a_rejecting_edit_check_undoes_and_force_keeps(root: Path, ctx: ToolContext, call: Call) -> None:
    """The syntax guard's seam: a check that rejects makes the tool undo; force=true keeps it."""

    class NoTodo:
        name = "no_todo"

        def check(self, ctx: ToolContext, applied: Any) -> Any:
            from agent.toolcontext import CheckOutcome

            bad = [p for p, text in applied.after.items() if text and "TODO" in text]
            return CheckOutcome(reject=f"TODO added in {', '.join(bad)}" if bad else None)

    ctx.edit_checks.append(NoTodo())
    (root / "a.py").write_text("x = 1\n")
    res = call("replace_in_file", file_path="a.py", old_text="x = 1", new_text="x = 1  # TODO")
    assert not res.success and "TODO added in a.py" in (res.error or "") and "nothing changed" in (res.error or "")
    assert res.data["rejected_by"] == "no_todo"
    assert (root / "a.py").read_text() == "x = 1\n"
    res = call("replace_in_file", file_path="a.py", old_text="x = 1", new_text="x = 1  # TODO", force=True)
    assert res.success and "kept despite no_todo (force)" in res.output
    patch = "--- a/a.py\n+++ b/a.py\n@@ -1 +1 @@\n-x = 1  # TODO\n+x = 2  # TODO\n"
    assert not call("apply_patch", patch=patch).success
    assert call("apply_patch", patch=patch, force=True).success
    assert not call("write_file", file_path="b.py", content="TODO\n").success
    assert not (root / "b.py").exists()


WRITE_FAILS = """
import json, resource, signal, sys
from agent.config import Settings
from agent.bootstrap import load_all_tools, open_context
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
resource.setrlimit(resource.RLIMIT_FSIZE, (200_000, 200_000))  # the big new file cannot be written
ctx = open_context(sys.argv[1], settings=Settings())
result = load_all_tools().call(ctx, "apply_patch", {"patch": sys.stdin.read()})
print(json.dumps(result.to_dict()))
"""


def test_patch_whose_write_fails_half_way_leaves_every_file_as_it_was(root: Path, snapshot: Snapshot) -> None:
    """All hunks apply, but writing the last file fails for real (a file-size limit in the
    process): the files already written are restored and the new folder removed."""
    (root / "a.txt").write_text("one\n")
    (root / "b.txt").write_text("two\n")
    big = "".join(f"+{'x' * 99}\n" for _ in range(3000))
    patch = ("--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-one\n+ONE\n"
             "--- a/b.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-two\n"
             f"--- /dev/null\n+++ b/new/big.txt\n@@ -0,0 +1,3000 @@\n{big}")
    before = {k: v[0] for k, v in snapshot(root).items()}
    proc = subprocess.run([sys.executable, "-c", WRITE_FAILS, str(root)], input=patch, capture_output=True,
                          text=True, timeout=120)
    result = json.loads(proc.stdout)
    assert result["success"] is False and "File too large" in result["error"], result
    after = {k: v[0] for k, v in snapshot(root).items() if not k.startswith(".codeagent")}
    assert after == before
