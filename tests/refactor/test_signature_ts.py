"""`codeagent signature` on TypeScript through the real TypeScript server: a method with an
override in a subclass in another file (its own types and defaults kept) and its calls through
both classes and `super`; a function whose parameters are reordered and given a new one with
--value; a spread argument refuses the change naming the site; `codeagent undo` restores every byte."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.timeout(900)

Tree = Callable[[Path], dict[str, bytes]]
FILES = {
    "tsconfig.json": '{"compilerOptions": {"strict": true, "target": "ES2020", "module": "ES2020", '
                     '"moduleResolution": "node"}, "include": ["src"]}\n',
    "src/shapes.ts": (
        "export function scale(length: number, factor: number, offset = 0): number {\n"
        "  return length * factor + offset;\n"
        "}\n"
        "\n"
        "export class Canvas {\n"
        "  draw(shape: string, color: string, width?: number): string {\n"
        "    return `${shape}:${width}`;\n"
        "  }\n"
        "}\n"),
    "src/fancy.ts": (
        "import { Canvas } from \"./shapes\";\n"
        "\n"
        "export class FancyCanvas extends Canvas {\n"
        "  draw(shape: string, color: string = \"red\", width: number = 2): string {\n"
        "    return \"*\" + super.draw(shape, \"x\", width);\n"
        "  }\n"
        "}\n"),
    "src/app.ts": (
        "import { scale, Canvas } from \"./shapes\";\n"
        "import { FancyCanvas } from \"./fancy\";\n"
        "\n"
        "export function run(c: Canvas): string[] {\n"
        "  const a = scale(2, 3);\n"
        "  const b = scale(4, 5, 1);\n"
        "  return [c.draw(\"box\", \"blue\"), new FancyCanvas().draw(\"star\", \"gold\", 5), String(a + b)];\n"
        "}\n"),
}


def test_ts_method_with_override_and_calls_then_undo(tsproj: Path, tree: Tree, cli: Callable[..., Any]) -> None:
    before = tree(tsproj)
    out = cli("signature", "src/shapes.ts:6:3", "(shape: string, width?: number)", "--root", str(tsproj), "--json",
              cwd=tsproj)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "  draw(shape: string, width?: number): string {\n" in (tsproj / "src/shapes.ts").read_text()
    fancy = (tsproj / "src/fancy.ts").read_text()
    assert "  draw(shape: string, width: number = 2): string {\n" in fancy
    assert "super.draw(shape, width)" in fancy
    assert "return [c.draw(\"box\"), new FancyCanvas().draw(\"star\", 5), String(a + b)];" in \
        (tsproj / "src/app.ts").read_text()
    assert cli("undo", "--root", str(tsproj), cwd=tsproj).returncode == 0
    assert tree(tsproj) == before


def test_ts_function_reordered_with_a_new_value(tsproj: Path, cli: Callable[..., Any]) -> None:
    out = cli("signature", "src/shapes.ts:1:17", "(factor: number, length: number, offset = 0, unit?: string)",
              "--value", "unit='cm'", "--root", str(tsproj), "--json", cwd=tsproj)
    assert out.returncode == 0, out.stdout + out.stderr
    app = (tsproj / "src/app.ts").read_text()
    assert "const a = scale(3, 2, undefined, 'cm');" in app
    assert "const b = scale(5, 4, 1, 'cm');" in app


def test_ts_spread_argument_refuses(tsproj: Path, tree: Tree, cli: Callable[..., Any]) -> None:
    (tsproj / "src/spread.ts").write_text("import { scale } from \"./shapes\";\n\nconst dims: [number, number] = [1, 2];"
                                          "\nexport const total = scale(...dims);\n")
    before = tree(tsproj)
    out = cli("signature", "src/shapes.ts:1:17", "(factor: number, length: number)", "--root", str(tsproj), "--json",
              cwd=tsproj)
    assert out.returncode == 1
    assert "src/spread.ts:4:22: this call cannot be rewritten safely: `...dims`" in out.json["error"]
    assert tree(tsproj) == before
