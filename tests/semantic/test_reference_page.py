"""find_references' page without a server: references grouped by file and by the definition that
encloses each (a module-level one under its module), and a text cut by the budget that states
exactly how many references it left out, in which files, and how to get them."""

from __future__ import annotations

from pathlib import Path

from agent.bootstrap import open_context
from agent.config import Settings
from agent.semantic.outlines import Outlines, module_name
from agent.semantic.reference_page import page


def test_references_are_grouped_by_enclosing_symbol_and_the_cut_is_exact(tmp_path: Path) -> None:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg/__init__.py").write_text("from pkg.a import f\n")
    (tmp_path / "pkg/a.py").write_text("def f():\n    pass\n\n\nclass Registry:\n    def describe(self):\n"
                                       "        return f()\n\n\nx = f()\nf()\n")
    (tmp_path / "pkg/b.py").write_text("from pkg.a import f\n" + "".join(f"y{i} = f()\n" for i in range(40)))
    refs = {"pkg/__init__.py": [(0, 18, 0, 19)],
            "pkg/a.py": [(0, 4, 0, 5), (6, 15, 6, 16), (9, 4, 9, 5), (10, 0, 10, 1)],
            "pkg/b.py": [(0, 18, 0, 19)] + [(i + 1, len(f"y{i} = "), i + 1, len(f"y{i} = ") + 1) for i in range(40)]}
    ctx = open_context(tmp_path, settings=Settings())
    try:
        outlines = Outlines(ctx)
        whole = page(refs, outlines.lines.line, outlines.where, offset=0, limit=1000, budget=10**9)
        a = next(f for f in whole.files if f["path"] == "pkg/a.py")
        assert [(g["in"], g["kind"], [h["line"] for h in g["hits"]]) for g in a["groups"]] == [
            ("f", "function", [1]), ("Registry.describe", "method", [7]), ("x", "variable", [10]),
            ("pkg.a", "module", [11])]  # a module-level assignment is a definition; a bare statement is not
        assert a["groups"][1]["hits"][0] == {"line": 7, "column": 16, "end_line": 7, "end_column": 17,
                                             "text": "return f()"}
        init = whole.files[0]
        assert (init["path"], init["groups"][0]["in"]) == ("pkg/__init__.py", "pkg")  # a package's module
        text = "\n".join(whole.text)
        assert "pkg/a.py\n  in f\n    1:5  def f():\n  in Registry.describe\n    7:16  return f()\n" \
               "  in x\n    10:5  x = f()\n  in module pkg.a\n    11:1  f()\n" in text
        assert whole.listed == whole.in_page == 46 and whole.note(46, 0, "codeagent refs pkg/a.py:1:5") is None

        cut = page(refs, outlines.lines.line, outlines.where, offset=0, limit=1000, budget=300)
        assert 4 < cut.listed < 46 and cut.in_page == 46  # the data stays whole
        left = 46 - cut.listed
        assert cut.left_files == {"pkg/b.py": left}
        assert cut.note(46, 0, "codeagent refs pkg/a.py:1:5") == (
            f"[{left} more reference(s) in 1 file(s) not listed: call again with offset={cut.listed}, or run "
            f"`codeagent refs pkg/a.py:1:5 --json` for all of them; they are in pkg/b.py ({left})]")
        shown_rows = [line for line in cut.text if line.startswith("    ")]
        assert len(shown_rows) == cut.listed and sum(len(line) + 1 for line in cut.text) <= 300
        # an edited file is grouped by its new outline (kept outlines are for their own text only)
        (tmp_path / "pkg/a.py").write_text("class Registry:\n    def describe(self):\n        return f()\n")
        assert Outlines(ctx).where("pkg/a.py", 2, 15) == ("Registry.describe", "method")
        assert Outlines(ctx).where("pkg/a.py", 6, 15) == ("pkg.a", "module")
    finally:
        ctx.close()


def test_module_names() -> None:
    assert module_name("shapes/registry.py") == "shapes.registry"
    assert module_name("shapes/__init__.py") == "shapes"
    assert module_name("setup.py") == "setup"
    assert module_name("src/components/Panel.tsx") == "src/components/Panel"


def test_the_whole_text_of_a_cut_page_is_the_unlimited_page(tmp_path: Path) -> None:
    """find_references builds the CLI's whole page in the pass that cuts the model's text
    (`whole`): it must say exactly what a pass with an unlimited budget says, for any cut."""
    from agent.semantic.reference_page import whole_page

    (tmp_path / "a.py").write_text("def f():\n    return 1\n\n\nclass C:\n    def m(self):\n        f()\n"
                                   + "".join(f"z{i} = f()\n" for i in range(30)))
    (tmp_path / "b.py").write_text("".join(f"def g{i}():\n    f()\n" for i in range(20)))
    refs = {"a.py": [(0, 4, 0, 5), (6, 8, 6, 9)] + [(7 + i, 5 + len(str(i)), 7 + i, 6 + len(str(i))) for i in range(30)],
            "b.py": [(2 * i + 1, 4, 2 * i + 1, 5) for i in range(20)]}
    total = 52
    ctx = open_context(tmp_path, settings=Settings())
    try:
        outlines = Outlines(ctx)
        for offset, limit, budget in [(0, 1000, 200), (0, 1000, 10**9), (5, 20, 150), (40, 1000, 50), (0, 3, 10**9),
                                      (10, 1000, 0)]:
            cut = page(refs, outlines.lines.line, outlines.where, offset=offset, limit=limit, budget=budget, whole=True)
            unlimited = page(refs, outlines.lines.line, outlines.where, offset=offset, limit=limit, budget=10**12)
            whole = whole_page(cut, refs, offset)
            assert whole.text == unlimited.text and whole.files == unlimited.files
            assert whole.note(total, offset, "refs") == unlimited.note(total, offset, "refs")
            assert cut.text == page(refs, outlines.lines.line, outlines.where, offset=offset, limit=limit,
                                    budget=budget).text  # `whole` changes nothing else
    finally:
        ctx.close()


def test_a_target_is_found_on_any_line_and_a_line_past_the_end_names_the_line_count(tmp_path: Path) -> None:
    """resolve_target splits the text only up to the target's line: the first, a middle and the
    last line resolve, and a line past the end gives the file's exact line count."""
    import pytest

    from agent.errors import ToolFailure
    from agent.semantic.target import resolve_target

    (tmp_path / "m.py").write_text("alpha = 1\nbeta = alpha\n\ngamma = beta\n", encoding="utf-8")
    ctx = open_context(tmp_path, settings=Settings())
    try:
        for line, column, name in [(1, 1, "alpha"), (2, 8, "alpha"), (4, 9, "beta")]:
            target = resolve_target(ctx, "m.py", line, column, None)
            assert (target.name, target.pos.line, target.pos.character) == (name, line - 1, column - 1)
        for line in (6, 99, 0):
            with pytest.raises(ToolFailure, match=r"outside the file \(1-5\)"):
                resolve_target(ctx, "m.py", line, 1, None)
    finally:
        ctx.close()
