"""get_ast, list_symbols and find_symbol through the registry (as the agent loop calls them)
and through the real `codeagent tool` command: output, bounds, and clear failures."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from agent.bootstrap import load_all_tools, open_context
from agent.config import Settings, SyntaxSettings, WorkspaceSettings
from agent.result import ToolResult
from agent.toolcontext import ToolContext

Call = Callable[..., ToolResult]
FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "syntax"


@pytest.fixture
def fixtures_root(root: Path) -> Path:
    for path in FIXTURES.iterdir():
        shutil.copy(path, root / path.name)
    return root


def test_tools_are_registered_in_the_semantic_toolset() -> None:
    registry = load_all_tools()
    for name in ("get_ast", "list_symbols", "find_symbol"):
        tool = registry.get(name)
        assert tool.toolset == "semantic" and tool.read_only
        schema = tool.openai_schema()["function"]
        assert schema["description"] and schema["parameters"]["additionalProperties"] is False
        assert all(p.get("description") for p in schema["parameters"]["properties"].values())
    assert {"get_ast", "list_symbols", "find_symbol"} <= {t.name for t in registry.tools("semantic")}
    assert not {"get_ast", "list_symbols", "find_symbol"} & {t.name for t in registry.tools("text")}


def test_get_ast_whole_file(fixtures_root: Path, call: Call) -> None:
    res = call("get_ast", file_path="server.go", depth=1)
    assert res.success, res.error
    lines = res.output.split("\n")
    assert lines[0] == "go syntax tree, 27 lines, 0 syntax errors"
    assert lines[1] == "source_file 1:1-27:1"
    assert "  package_clause 1:1-1:15  … 1 named children" in lines
    assert res.data["truncated"] is False and res.data["language"] == "go"


def test_get_ast_at_a_position_after_emoji(fixtures_root: Path, call: Call) -> None:
    res = call("get_ast", file_path="tricky.py", line=9, column=23, depth=2)  # π, after "héllo 😀";
    assert res.success, res.error
    assert res.data["node_type"] == "identifier"
    lines = res.output.split("\n")
    assert lines[0] == "python syntax tree at 9:23 (0 syntax errors in the file)"
    assert lines[2] == "module 1:1-61:1"
    assert any(line.strip() == "expression_statement 9:23-9:34" for line in lines)
    assert lines[-1].startswith(">") and lines[-1].endswith('left: identifier 9:23-9:24 "π"')


def test_get_ast_line_only_uses_the_first_non_blank_column(fixtures_root: Path, call: Call) -> None:
    res = call("get_ast", file_path="App.tsx", line=10)
    assert res.success and "at 10:3" in res.output.split("\n")[0]
    assert res.data["node_type"] == "lexical_declaration"


def test_get_ast_shows_errors_and_missing_nodes(fixtures_root: Path, call: Call) -> None:
    res = call("get_ast", file_path="broken.py", depth=4)
    assert res.success and res.data["syntax_errors"] >= 1
    assert "ERROR" in res.output or "MISSING" in res.output


def test_get_ast_is_bounded_and_says_so(root: Path) -> None:
    (root / "big.py").write_text("".join(f"def f{i}(a, b):\n    return a + b\n" for i in range(300)))
    settings = Settings(syntax=SyntaxSettings(max_ast_lines=50))
    with open_context(root, settings=settings) as ctx:
        res = load_all_tools().call(ctx, "get_ast", {"file_path": "big.py", "depth": 5})
    assert res.success and res.data["truncated"] is True
    lines = res.output.split("\n")
    assert len(lines) == 51
    assert lines[-1].startswith("[... cut after 50 lines (") and "give line/column to zoom in" in lines[-1]


@pytest.mark.parametrize(("args", "message"), [
    ({"file_path": "README.md"}, "not a supported source file"),
    ({"file_path": "server.go", "line": 99}, "line 99 is outside the file (1-27)"),
    ({"file_path": "server.go", "line": 1, "column": 40}, "column 40 is outside line 1 (1-15)"),
    ({"file_path": "missing.py"}, "no such file"),
    ({"file_path": "../outside.py"}, "outside the workspace"),
    ({"file_path": "server.go", "column": 2}, "column needs a line"),
])
def test_get_ast_failures_are_clear(fixtures_root: Path, call: Call, args: dict[str, object], message: str) -> None:
    res = call("get_ast", **args)
    assert not res.success and message in (res.error or "")


def test_list_symbols_of_a_file(fixtures_root: Path, call: Call) -> None:
    res = call("list_symbols", path="widgets.ts")
    assert res.success, res.error
    lines = res.output.split("\n")
    assert lines[0].startswith("widgets.ts (typescript): ")
    assert "interface Widget  7:8-10:2  interface Widget<T> extends Base" in lines
    assert "  method render  9:3-9:26  render(target: T): void" in lines
    assert "  enum_member Red  15:3-15:6  Red" in lines
    top = [s["name_path"] for s in res.data["symbols"]]
    assert top[:3] == ["DEFAULT_SIZE", "mutableCount", "label"]


def test_list_symbols_depth_and_kinds(fixtures_root: Path, call: Call) -> None:
    res = call("list_symbols", path="tricky.py", depth=1, kinds=["class", "function"])
    assert res.success
    body = res.output.split("\n")[1:]
    assert [line.split("  ")[0] for line in body] == [
        "function plain", "function decorated", "function fetch", "class Outer", "function grüße"]


def test_list_symbols_of_a_folder(fixtures_root: Path, call: Call) -> None:
    (fixtures_root / "sub").mkdir()
    (fixtures_root / "sub" / "extra.py").write_text("def extra():\n    pass\n")
    res = call("list_symbols", path=".", depth=1)
    assert res.success, res.error
    lines = res.output.split("\n")
    assert lines[0].startswith(".: ") and "in 10 of 10 source files (depth 1)" in lines[0]
    assert "sub/extra.py" in lines and "  function extra  1:1-2:9  def extra()" in lines
    assert "Main.java" in lines
    sub = call("list_symbols", path="sub")
    assert sub.success and sub.output.split("\n")[1:] == ["sub/extra.py", "  function extra  1:1-2:9  def extra()"]


def test_list_symbols_of_a_folder_is_bounded(root: Path) -> None:
    for i in range(40):
        (root / f"m{i:02}.py").write_text("".join(f"def func_{i}_{j}(x):\n    return x\n" for j in range(30)))
    settings = Settings(workspace=WorkspaceSettings(max_output_chars=2000))
    with open_context(root, settings=settings) as ctx:
        res = load_all_tools().call(ctx, "list_symbols", {"path": "."})
    assert res.success and res.data["truncated"] is True and res.data["symbols"] == 1200
    assert len(res.output) < 2600
    assert "[... output cut at 2000 characters:" in res.output and "list a subfolder or a file" in res.output


def test_list_symbols_failures(fixtures_root: Path, call: Call) -> None:
    assert "not a supported source file" in (call("list_symbols", path="README.md").error or "")
    assert "no such file or folder" in (call("list_symbols", path="nope").error or "")


def find(ctx: ToolContext, **args: object) -> ToolResult:
    return load_all_tools().call(ctx, "find_symbol", args)


def test_find_symbol(fixtures_root: Path, ctx: ToolContext) -> None:
    res = find(ctx, name="Outer.Inner.Deepest.deep")
    assert res.success, res.error
    assert res.output.split("\n")[1] == (
        "tricky.py:36:17  method Outer.Inner.Deepest.deep  [36:13-39:38]  def deep(self) -> None")
    [match] = res.data["matches"]
    assert (match["path"], match["line"], match["column"], match["kind"]) == ("tricky.py", 36, 17, "method")

    tolerant = find(ctx, name="tricky.deep")  # module qualifier, missing classes
    assert tolerant.data["matches"][0]["name_path"] == "Outer.Inner.Deepest.deep"
    typo = find(ctx, name="makeCirlce")
    assert typo.data["matches"][0]["name"] == "makeCircle" and "(match 0." in typo.output
    go = find(ctx, name="Server.Start", kind="method")
    assert go.data["matches"][0]["path"] == "server.go"


def test_find_symbol_nothing_and_path_filter(fixtures_root: Path, ctx: ToolContext) -> None:
    res = find(ctx, name="NoSuchThingAnywhere")
    assert res.success and res.output.startswith("No definition matches 'NoSuchThingAnywhere'")
    assert res.data["matches"] == []
    only = find(ctx, name="area", path="shapes.rs")
    assert {m["path"] for m in only.data["matches"]} == {"shapes.rs"}
    assert not find(ctx, name="").success  # validated: a name is required


def test_find_symbol_sees_edits_made_by_tools(fixtures_root: Path, ctx: ToolContext, call: Call) -> None:
    assert find(ctx, name="grüße").data["matches"]
    edit = call("replace_in_file", file_path="tricky.py", old_text="def grüße(", new_text="def greet(")
    assert edit.success, edit.error
    assert find(ctx, name="grüße").data["matches"] == []
    assert find(ctx, name="greet").data["matches"][0]["path"] == "tricky.py"


def test_cli_tool_commands(fixtures_root: Path, cli: Callable[..., object]) -> None:
    out = cli("tool", "find_symbol", "--root", str(fixtures_root), "--args", json.dumps({"name": "Cache.get"}))
    assert out.returncode == 0, out.stderr  # type: ignore[attr-defined]
    data = json.loads(out.stdout)  # type: ignore[attr-defined]
    assert data["success"] and data["data"]["matches"][0]["path"] == "util.js"
    assert (fixtures_root / ".codeagent" / "index" / "symbols.sqlite").is_file()

    out = cli("tool", "list_symbols", "--root", str(fixtures_root), "--args", json.dumps({"path": "Main.java"}))
    assert out.returncode == 0 and "class Main  5:1-31:2  public class Main" in json.loads(out.stdout)["output"]  # type: ignore[attr-defined]

    out = cli("tool", "get_ast", "--root", str(fixtures_root), "--args",
              json.dumps({"file_path": "shapes.rs", "line": 20, "column": 8}))
    assert out.returncode == 0  # type: ignore[attr-defined]
    assert json.loads(out.stdout)["data"]["node_type"] == "identifier"  # type: ignore[attr-defined]

    out = cli("tool", "get_ast", "--root", str(fixtures_root), "--args", json.dumps({"file_path": "README.md"}))
    assert out.returncode == 1 and "not a supported source file" in json.loads(out.stdout)["error"]  # type: ignore[attr-defined]
    out = cli("tool", "get_ast", "--root", str(fixtures_root), "--args", json.dumps({"depth": 2}))
    assert out.returncode == 2 and "file_path" in out.stderr  # type: ignore[attr-defined]


def test_cli_index_command(fixtures_root: Path, cli: Callable[..., object]) -> None:
    out = cli("index", "--root", str(fixtures_root), "--json")
    assert out.returncode == 0, out.stderr  # type: ignore[attr-defined]
    data = json.loads(out.stdout)  # type: ignore[attr-defined]
    assert (data["files"], data["parsed"], data["problem"]) == (9, 9, None)
    assert data["cache"].endswith(".codeagent/index/symbols.sqlite")
    again = json.loads(cli("index", "--root", str(fixtures_root), "--json").stdout)  # type: ignore[attr-defined]
    assert (again["files"], again["parsed"]) == (9, 0)
    rebuilt = cli("index", "--root", str(fixtures_root), "--rebuild")
    assert rebuilt.returncode == 0 and "indexed 9 source files (9 parsed" in rebuilt.stdout  # type: ignore[attr-defined]
