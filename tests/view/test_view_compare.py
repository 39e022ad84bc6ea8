"""The Compare page: `codeagent rename ... --compare --view` serves the comparison it printed as a
page (the same numbers and sites), and the view's own Compare form gets the same answer through
the rename_symbol tool. Real language server (basedpyright); nothing is written."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from clikit import codeagent_command
from viewkit import FIXTURES, ViewServer, call, cli_env, run_script, screenshot, tools_reply

pytestmark = pytest.mark.timeout(600)

WRONG = ("shapes/geometry.py:1:26", "shapes/geometry.py:31:7", "shapes/geometry.py:31:45", "shapes/geometry.py:38:9",
         "shapes/geometry.py:39:18", "shapes/registry.py:20:18", "tests/test_shapes.py:27:34")


def tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and ".codeagent" not in p.parts and "__pycache__" not in p.parts}


def check_page(page: Any) -> None:
    tally = page.locator(".tally").inner_text()
    assert "11\nsites both change" in tally and "7\ntext would wrongly change" in tally and "0\ntext would miss" in tally
    rows = page.locator("table.cmptable tbody tr")
    assert rows.count() == 7
    wheres = [w.split("\n")[0] for w in page.locator("table.cmptable td.where").all_inner_texts()]
    assert wheres == sorted(WRONG, key=lambda w: (w.rsplit(":", 2)[0], int(w.rsplit(":", 2)[1]), int(w.rsplit(":")[-1])))
    text = page.locator("table.cmptable").inner_text()
    assert "changed (in a string or comment)" in text and "changed (another symbol with the same name)" in text
    assert text.count("left alone") == 7
    assert page.locator("table.cmptable mark").count() == 7  # each site marked in its line of code
    assert page.locator(".diff table.unified tr.add").count() > 0  # the semantic plan's diff


def test_rename_compare_view_serves_the_comparison_and_the_form_agrees(tmp_path: Path, page: Any) -> None:
    root = (tmp_path / "pyproj").resolve()
    shutil.copytree(FIXTURES / "pyproj", root)
    pristine = tree(root)
    server = ViewServer("rename", "shapes/geometry.py:30:5", "compute_area", "--compare", "--view", "--no-daemon",
                        "--root", str(root), timeout=300)
    try:
        printed = "".join(server.lines)
        assert "text replacement would wrongly change 7 and miss 0" in printed  # what --compare prints, first
        assert "/compare/" in server.url
        page.goto(server.url)
        check_page(page)
        screenshot(page, "view-compare.png", tmp_path)

        page.goto(f"{server.origin}/compare?file_path=shapes/geometry.py&line=30&column=5&new_name=compute_area",
                  timeout=300_000)
        check_page(page)
        assert page.locator("input[name=new_name]").input_value() == "compute_area"
        page.goto(f"{server.origin}/compare?symbol=no_such_thing_here&new_name=x", timeout=300_000)
        assert page.locator(".flash.refused").count() == 1  # the tool's error, on the form
    finally:
        server.stop()
    assert tree(root) == pristine


def test_view_without_compare_is_a_usage_error(tmp_path: Path) -> None:
    proc = subprocess.run([*codeagent_command(), "rename", "a.py:1:1", "b", "--view", "--root", str(tmp_path)],
                          capture_output=True, text=True, env=cli_env(), timeout=60)
    assert proc.returncode == 2 and "--view shows a comparison: use it with --compare" in proc.stderr


def test_an_agent_rename_shows_its_diff_with_each_sites_reason(tmp_path: Path, page: Any) -> None:
    root = (tmp_path / "pyproj").resolve()
    shutil.copytree(FIXTURES / "pyproj", root)
    run_id = run_script(root, "rename area_of to compute_area", [
        tools_reply(call("rename_symbol", file_path="shapes/geometry.py", line=30, column=5, new_name="compute_area")),
        tools_reply(call("finish", summary="renamed")),
    ])
    server = ViewServer("view", "--root", str(root), "--port", "0")
    try:
        page.goto(f"{server.origin}/runs/{run_id}?token={server.token}")
        tool = page.locator('.tool[data-tool="rename_symbol"]')
        files = tool.locator(".dfile .dname code").all_inner_texts()
        assert {"shapes/__init__.py", "shapes/geometry.py", "tests/test_shapes.py"} <= set(files)
        removed = tool.locator("table.unified tr.del")
        assert removed.count() >= 8
        reasons = set(tool.locator("table.unified tr.del .why").all_inner_texts())
        assert {"lsp", "__all__"} <= reasons  # why each site changed, on its line
        init = tool.locator(".dfile", has_text="shapes/__init__.py")
        assert "__all__" in init.locator("tr.del", has_text="__all__ = [").inner_text()
        tool.locator("details.sites summary").click()
        assert tool.locator("details.sites tr").count() == 1 + 11  # header + every site with its reason
    finally:
        server.stop()
