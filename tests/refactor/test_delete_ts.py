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
UTIL = (
    "import { read } from \"./io\";\n"
    "import { join, basename } from \"./paths\";\n"
    "\n"
    "/**\n"
    " * Reads a config file.\n"
    " */\n"
    "export function loadConfig(dir: string): string {\n"
    "  return read(join(dir, \"config.json\"));\n"
    "}\n"
    "\n"
    "export function label(path: string): string {\n"
    "  return basename(path);\n"
    "}\n"
    "\n"
    "// Only the tests call this.\n"
    "export function testedOnly(x: number): number {\n"
    "  return x * 2;\n"
    "}\n")
FILES = {
    "tsconfig.json": '{"compilerOptions": {"strict": true, "target": "ES2020", "module": "ESNext", '
                     '"moduleResolution": "bundler"}, "include": ["src"]}\n',
    "src/paths.ts": (
        "export function join(a: string, b: string): string {\n"
        "  return a + \"/\" + b;\n"
        "}\n"
        "\n"
        "export function basename(p: string): string {\n"
        "  return p.split(\"/\").pop() ?? p;\n"
        "}\n"),
    "src/io.ts": "export function read(path: string): string {\n  return path;\n}\n",
    "src/util.ts": UTIL,
    "src/index.ts": (
        "export * from \"./paths\";\n"
        "export { loadConfig, label } from \"./util\";\n"
        "export { testedOnly } from \"./util\";\n"),
    "src/app.ts": "import { label } from \"./index\";\n\nexport function main(): string {\n  return label(\"a/b\");\n}\n",
    "src/shapes.ts": (
        "export interface Shape {\n"
        "  area(): number;\n"
        "}\n"
        "\n"
        "/** Scales a number or a string. */\n"
        "function scale(x: number): number;\n"
        "function scale(x: string): string;\n"
        "function scale(x: number | string): number | string {\n"
        "  return typeof x === \"number\" ? x * 2 : x + x;\n"
        "}\n"
        "\n"
        "export const UNIT = 1;\n"
        "\n"
        "export { scale };\n"),
    "src/reexport.ts": "import { UNIT } from \"./shapes\";\n\nexport { UNIT };\n",
    "tests/util.test.ts": (
        "import { testedOnly } from \"../src/util\";\n"
        "\n"
        "export function check(): boolean {\n"
        "  return testedOnly(2) === 4;\n"
        "}\n"),
}


@pytest.fixture
def tsproj(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("CODEAGENT_LSP_DAEMON", "never")
    root = (tmp_path / "tsproj").resolve()
    for rel, text in FILES.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    return root


def test_ts_delete_with_jsdoc_barrel_specifier_and_unused_imports_then_undo(
        tsproj: Path, tree: Tree, cli: Callable[..., Any]) -> None:
    before = tree(tsproj)
    out = cli("delete", "src/util.ts:7:17", "--root", str(tsproj), "--json", cwd=tsproj)
    assert out.returncode == 0, out.stdout + out.stderr
    assert (tsproj / "src/util.ts").read_text() == UTIL.replace(
        "import { read } from \"./io\";\nimport { join, basename } from \"./paths\";\n", "import { basename } from "
        "\"./paths\";\n").replace(
        "/**\n * Reads a config file.\n */\nexport function loadConfig(dir: string): string {\n"
        "  return read(join(dir, \"config.json\"));\n}\n\n", "")
    assert (tsproj / "src/index.ts").read_text() == (
        "export * from \"./paths\";\nexport { label } from \"./util\";\nexport { testedOnly } from \"./util\";\n")
    assert sorted(out.json["data"]["files"]) == ["src/index.ts", "src/util.ts"]
    assert cli("undo", "--root", str(tsproj), cwd=tsproj).returncode == 0
    assert tree(tsproj) == before


def test_ts_delete_overloads_with_local_export_list(tsproj: Path, cli: Callable[..., Any]) -> None:
    out = cli("delete", "src/shapes.ts:8:10", "--root", str(tsproj), "--json", cwd=tsproj)
    assert out.returncode == 0, out.stdout + out.stderr
    assert (tsproj / "src/shapes.ts").read_text() == (
        "export interface Shape {\n  area(): number;\n}\n\nexport const UNIT = 1;\n")


def test_ts_delete_interface_and_an_import_then_export_barrel(tsproj: Path, cli: Callable[..., Any]) -> None:
    out = cli("delete", "src/shapes.ts:1:18", "--root", str(tsproj), "--json", cwd=tsproj)
    assert out.returncode == 0, out.stdout + out.stderr
    assert (tsproj / "src/shapes.ts").read_text().startswith("/** Scales a number or a string. */\nfunction scale(")
    out = cli("delete", "src/shapes.ts:8:14", "--root", str(tsproj), "--json", cwd=tsproj)  # UNIT, moved up
    assert out.returncode == 0, out.stdout + out.stderr
    assert (tsproj / "src/reexport.ts").read_text() == ""
    assert "UNIT" not in (tsproj / "src/shapes.ts").read_text()


def test_ts_delete_refused_by_a_use_in_a_test_file(tsproj: Path, tree: Tree, cli: Callable[..., Any]) -> None:
    before = tree(tsproj)
    out = cli("delete", "src/util.ts:16:17", "--root", str(tsproj), "--json", cwd=tsproj)
    assert out.returncode == 1, out.stdout + out.stderr
    error = out.json["error"]
    assert "tests/util.test.ts:1:10: import { testedOnly } from \"../src/util\";" in error
    assert "tests/util.test.ts:4:10: return testedOnly(2) === 4;" in error
    assert out.json["data"]["conflict_count"] == 2
    assert tree(tsproj) == before


def test_ts_delete_refused_by_a_use_the_server_reports(tsproj: Path, tree: Tree, cli: Callable[..., Any]) -> None:
    before = tree(tsproj)
    out = cli("delete", "src/util.ts:11:17", "--root", str(tsproj), "--json", cwd=tsproj)  # label: app.ts uses it
    assert out.returncode == 1, out.stdout + out.stderr
    assert "src/app.ts:4:10: return label(\"a/b\");" in out.json["error"]
    assert tree(tsproj) == before
