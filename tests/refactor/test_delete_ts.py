"""`codeagent delete` on TypeScript through the real TypeScript server: an unused function goes
with its JSDoc, its `export`, the barrel's re-export specifier (the statement's other names kept)
and the import only it used (a single specifier out of a list, a whole statement); overloads,
an interface and a local `export {..}` list; a function used only in a test file the tsconfig does
not include (the server cannot see it: the syntactic completion must) is refused, listing both
sites, with the tree byte-identical; `codeagent undo` restores every byte."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.timeout(900)

Tree = Callable[[Path], dict[str, bytes]]


def test_ts_delete_with_jsdoc_barrel_specifier_and_unused_imports_then_undo(
        tsdel: Path, tree: Tree, cli: Callable[..., Any]) -> None:
    before = tree(tsdel)
    util = before["src/util.ts"].decode()
    out = cli("delete", "src/util.ts:7:17", "--root", str(tsdel), "--json", cwd=tsdel)
    assert out.returncode == 0, out.stdout + out.stderr
    assert (tsdel / "src/util.ts").read_text() == util.replace(
        "import { read } from \"./io\";\nimport { join, basename } from \"./paths\";\n", "import { basename } from "
        "\"./paths\";\n").replace(
        "/**\n * Reads a config file.\n */\nexport function loadConfig(dir: string): string {\n"
        "  return read(join(dir, \"config.json\"));\n}\n\n", "")
    assert (tsdel / "src/index.ts").read_text() == (
        "export * from \"./paths\";\nexport { label } from \"./util\";\nexport { testedOnly } from \"./util\";\n")
    assert sorted(out.json["data"]["files"]) == ["src/index.ts", "src/util.ts"]
    assert cli("undo", "--root", str(tsdel), cwd=tsdel).returncode == 0
    assert tree(tsdel) == before


def test_ts_delete_overloads_with_local_export_list(tsdel: Path, cli: Callable[..., Any]) -> None:
    out = cli("delete", "src/shapes.ts:8:10", "--root", str(tsdel), "--json", cwd=tsdel)
    assert out.returncode == 0, out.stdout + out.stderr
    assert (tsdel / "src/shapes.ts").read_text() == (
        "export interface Shape {\n  area(): number;\n}\n\nexport const UNIT = 1;\n")
    assert (tsdel / "src/all.ts").read_text() == "export * from \"./shapes\";\n"  # `export *` is no use


def test_ts_delete_interface_and_an_import_then_export_barrel(tsdel: Path, cli: Callable[..., Any]) -> None:
    out = cli("delete", "src/shapes.ts:1:18", "--root", str(tsdel), "--json", cwd=tsdel)
    assert out.returncode == 0, out.stdout + out.stderr
    assert (tsdel / "src/shapes.ts").read_text().startswith("/** Scales a number or a string. */\nfunction scale(")
    out = cli("delete", "src/shapes.ts:8:14", "--root", str(tsdel), "--json", cwd=tsdel)  # UNIT, moved up
    assert out.returncode == 0, out.stdout + out.stderr
    assert (tsdel / "src/reexport.ts").read_text() == ""
    assert "UNIT" not in (tsdel / "src/shapes.ts").read_text()


def test_ts_delete_refused_by_a_use_in_a_test_file(tsdel: Path, tree: Tree, cli: Callable[..., Any]) -> None:
    before = tree(tsdel)
    out = cli("delete", "src/util.ts:16:17", "--root", str(tsdel), "--json", cwd=tsdel)
    assert out.returncode == 1, out.stdout + out.stderr
    error = out.json["error"]
    assert "tests/util.test.ts:1:10: import { testedOnly } from \"../src/util\";" in error
    assert "tests/util.test.ts:4:10: return testedOnly(2) === 4;" in error
    assert out.json["data"]["conflict_count"] == 2
    assert tree(tsdel) == before


def test_ts_delete_refused_by_a_use_the_server_reports(tsdel: Path, tree: Tree, cli: Callable[..., Any]) -> None:
    before = tree(tsdel)
    out = cli("delete", "src/util.ts:11:17", "--root", str(tsdel), "--json", cwd=tsdel)  # label: app.ts uses it
    assert out.returncode == 1, out.stdout + out.stderr
    assert "src/app.ts:4:10: return label(\"a/b\");" in out.json["error"]
    assert tree(tsdel) == before


def test_js_default_export_refused_by_a_default_import_and_unused_function_deleted(
        tmp_path: Path, tree: Tree, cli: Callable[..., Any], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CODEAGENT_LSP_DAEMON", "never")
    root = (tmp_path / "jsproj").resolve()
    (root / "src").mkdir(parents=True)
    (root / "src/lib.js").write_text(
        "import { helper } from \"./helper.js\";\n\n/**\n * Unused.\n */\nexport function unused(x) {\n"
        "  return helper(x);\n}\n\nexport default function main() {\n  return 1;\n}\n")
    (root / "src/helper.js").write_text("export function helper(x) {\n  return x;\n}\n")
    (root / "src/app.js").write_text("import start from \"./lib.js\";\n\nconsole.log(start());\n")
    before = tree(root)
    out = cli("delete", "src/lib.js:10:25", "--root", str(root), "--json", cwd=root)  # bound as `start`
    assert out.returncode == 1, out.stdout + out.stderr
    assert "src/app.js:1:8: import start from \"./lib.js\";" in out.json["error"]
    assert "src/app.js:3:13: console.log(start());" in out.json["error"]
    assert tree(root) == before
    out = cli("delete", "src/lib.js:6:17", "--root", str(root), "--json", cwd=root)
    assert out.returncode == 0, out.stdout + out.stderr
    assert (root / "src/lib.js").read_text() == "export default function main() {\n  return 1;\n}\n"


def test_ts_delete_refused_by_an_export_under_another_name(tsdel: Path, tree: Tree, cli: Callable[..., Any]) -> None:
    (tsdel / "src/alias.ts").write_text("function inner(): number {\n  return 1;\n}\n\nexport { inner as outer };\n")
    before = tree(tsdel)
    out = cli("delete", "src/alias.ts:1:10", "--root", str(tsdel), "--json", cwd=tsdel)
    assert out.returncode == 1, out.stdout + out.stderr
    assert "src/alias.ts:5:10: export { inner as outer };" in out.json["error"]
    assert tree(tsdel) == before
