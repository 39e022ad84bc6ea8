"""Nothing is cut without saying so, and the CLI never cuts what the user asked for (issue 15,
point 5). A generated project (a class used ~370 times in 61 files, long lines) exceeds every
bound: `codeagent refs` prints every reference, `rename --dry-run` the whole diff and a real
rename every changed line; the tools a model calls stay within the output budget and say exactly
what they left out and how to get it (an offset that pages through the rest). Real basedpyright."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from semantic_helpers import Caller, module_context, refs_of

from agent.config import Settings
from agent.toolcontext import ToolContext

pytestmark = pytest.mark.timeout(900)
FILES = 60
PAD = "# a long comment that makes each listed line long enough for the answer to exceed its budget"


def make_project(root: Path) -> None:
    (root / "pkg").mkdir(parents=True)
    (root / "pkg/__init__.py").write_text("")
    (root / "pkg/widget.py").write_text("class Widget:\n    def __init__(self, size: int) -> None:\n"
                                        "        self.size = size\n")
    for i in range(FILES):
        body = ["from pkg.widget import Widget", ""]
        for j in range(3):
            body += [f"def make_{j}(n: int) -> Widget:  {PAD}", f"    return Widget(n + {j})"]
        (root / f"pkg/user_{i:02d}.py").write_text("\n".join(body) + "\n")


EXPECTED = 1 + FILES * 7  # the class itself, then per file: the import, 3 annotations, 3 calls


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = (tmp_path_factory.mktemp("bounds") / "proj").resolve()
    make_project(root)
    return root


@pytest.fixture(scope="module")
def session(project: Path) -> Iterator[tuple[ToolContext, Caller]]:
    yield from module_context(project, Settings())


@pytest.fixture
def never_daemon(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CODEAGENT_LSP_DAEMON", "never")


def test_refs_cli_prints_every_reference(project: Path, cli: Callable[..., Any], never_daemon: None) -> None:
    out = cli("refs", "pkg/widget.py:1:7", "--root", str(project), cwd=project)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0].startswith(f"{EXPECTED} reference(s) to Widget")
    rows = [line for line in lines if re.match(r"^    \d+:\d+  ", line)]  # under their group's `  in ...`
    assert len(rows) == EXPECTED
    assert sum(1 for line in lines if line.startswith("pkg/")) == FILES + 1
    assert "more reference(s)" not in out.stdout and "cut" not in out.stdout
    assert all(row.endswith(PAD) or "Widget" in row for row in rows)  # no line spliced


def test_find_references_pages_and_says_what_it_left_out(session: tuple[ToolContext, Caller]) -> None:
    ctx, call = session
    budget = ctx.settings.workspace.max_output_chars
    seen: list[tuple[str, int, int]] = []
    offset = 0
    pages = 0
    while True:
        res = call("find_references", file_path="pkg/widget.py", line=1, column=7, offset=offset, limit=0)
        assert res.success, res.error
        assert len(res.output) <= budget
        data = res.data
        assert data["count"] == EXPECTED
        listed = [(path, r["line"], r["column"]) for path, r in refs_of(data)]
        seen += listed[: data["listed"]]
        pages += 1
        if data["next_offset"] is None:
            assert "not listed" not in res.output
            break
        left = EXPECTED - data["next_offset"]
        files_left = len({p for p, _, _ in listed[data["listed"]:]})
        assert (f"{left} more reference(s) in {files_left} file(s) not listed: call again with "
                f"offset={data['next_offset']}") in res.output
        assert "`codeagent refs pkg/widget.py:1:7 --json`" in res.output
        assert "cut from the middle" not in res.output
        assert len(data["full_output"].splitlines()) > len(res.output.splitlines())
        offset = data["next_offset"]
    assert pages >= 2
    assert len(seen) == EXPECTED == len(set(seen))
    # the default limit (lsp.max_results) is a page too, and says so
    res = call("find_references", file_path="pkg/widget.py", line=1, column=7, offset=5, limit=10)
    assert res.data["listed"] == 10 and res.data["next_offset"] == 15
    assert "references 1-5 were skipped (offset=5)" in res.output
    assert f"{EXPECTED - 15} more reference(s)" in res.output


def test_rename_dry_run_prints_the_whole_diff_and_the_tool_names_what_it_left_out(
        project: Path, cli: Callable[..., Any], never_daemon: None, session: tuple[ToolContext, Caller]) -> None:
    out = cli("rename", "pkg/widget.py:1:7", "Gadget", "--dry-run", "--root", str(project), cwd=project)
    assert out.returncode == 0, out.stderr
    assert out.stdout.count("\n+++ b/") == FILES + 1
    assert out.stdout.count("+from pkg.widget import Gadget") == FILES
    assert "cut from the middle" not in out.stdout and "not shown" not in out.stdout
    _, call = session
    res = call("rename_symbol", file_path="pkg/widget.py", line=1, column=7, new_name="Gadget", dry_run=True)
    assert res.success, res.error
    shown = res.output.count("\n+++ b/")
    m = re.search(r"\[diff not shown for (\d+) file\(s\) \((\d+) diff line\(s\)\): ", res.output)
    assert m is not None and shown + int(m[1]) == FILES + 1
    assert "the whole diff is in data `diff`" in res.output and "cut from the middle" not in res.output
    assert res.data["diff"].count("\n+++ b/") == FILES + 1


def test_real_rename_cli_prints_every_changed_line(project: Path, cli: Callable[..., Any],
                                                   never_daemon: None) -> None:
    before = {p: p.read_bytes() for p in project.rglob("*.py")}
    out = cli("rename", "pkg/widget.py:1:7", "Gadget", "--root", str(project), cwd=project)
    try:
        assert out.returncode == 0, out.stderr
        changed = [line for line in out.stdout.splitlines() if re.match(r"^pkg/[\w/]+\.py:\d+: ", line)]
        assert len(changed) == 1 + FILES * 7
        assert "not shown" not in out.stdout and "cut from the middle" not in out.stdout
    finally:
        assert cli("undo", "--root", str(project), cwd=project).returncode == 0
    assert {p: p.read_bytes() for p in project.rglob("*.py")} == before
