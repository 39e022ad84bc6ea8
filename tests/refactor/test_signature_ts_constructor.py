"""`codeagent signature` on a TypeScript `constructor(...)`, through the real TypeScript server:
`new C(...)` follows, and so do `new` calls of a subclass inheriting the constructor (also through
a second level), `super(...)` in a subclass with its own constructor, and that constructor
itself; a class passed around as a value refuses the change, naming the site; undo restores it."""

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
    "src/points.ts": (
        "export class Point {\n"
        "  constructor(public x: number, public y: number, public label: string = \"\") {}\n"
        "}\n"
        "\n"
        "export class Labelled extends Point {\n"
        "  constructor(x: number, y: number, label: string = \"none\") {\n"
        "    super(x, y, label);\n"
        "  }\n"
        "}\n"
        "\n"
        "export class Plain extends Point {}\n"
        "\n"
        "export class Grand extends Plain {\n"
        "  shifted(): Grand {\n"
        "    return new Grand(this.x + 1, this.y, this.label);\n"
        "  }\n"
        "}\n"),
    "src/app.ts": (
        "import { Grand, Labelled, Plain, Point } from \"./points\";\n"
        "\n"
        "export function build(p: Point): Point[] {\n"
        "  return [new Point(1, 2, \"a\"), new Labelled(3, 4, \"b\"), new Plain(5, 6, \"c\"), new Grand(7, 8, \"d\"),\n"
        "          p instanceof Point ? p : new Point(0, 0)];\n"
        "}\n"),
}


def test_ts_constructor_new_calls_subclasses_and_super_follow_then_undo(
        tsproj: Path, tree: Tree, cli: Callable[..., Any]) -> None:
    before = tree(tsproj)
    out = cli("signature", "src/points.ts:2:3", "(public label: string = \"\", public x: number, public y: number)",
              "--root", str(tsproj), "--json", cwd=tsproj)
    assert out.returncode == 0, out.stdout + out.stderr
    points = (tsproj / "src/points.ts").read_text()
    assert "  constructor(public label: string = \"\", public x: number, public y: number) {}\n" in points
    assert "  constructor(label: string = \"none\", x: number, y: number) {\n" in points  # the override
    assert "    super(label, x, y);\n" in points
    assert "return new Grand(this.label, this.x + 1, this.y);" in points  # inherits through Plain
    app = (tsproj / "src/app.ts").read_text()
    assert "[new Point(\"a\", 1, 2), new Labelled(\"b\", 3, 4), new Plain(\"c\", 5, 6), new Grand(\"d\", 7, 8)," in app
    assert "p instanceof Point ? p : new Point(undefined, 0, 0)" in app  # label's default
    assert cli("undo", "--root", str(tsproj), cwd=tsproj).returncode == 0
    assert tree(tsproj) == before


def test_ts_class_passed_as_a_value_refuses_naming_the_site(tsproj: Path, tree: Tree, cli: Callable[..., Any]) -> None:
    (tsproj / "src/factory.ts").write_text("import { Plain } from \"./points\";\n\nexport const maker = Plain;\n")
    before = tree(tsproj)
    out = cli("signature", "src/points.ts:2:3", "(public x: number, public y: number)", "--root", str(tsproj),
              "--json", cwd=tsproj)
    assert out.returncode == 1, out.stdout + out.stderr
    assert "src/factory.ts:3:22: 'export const maker = Plain;' uses the class Plain without `new`" in out.json["error"]
    assert tree(tsproj) == before
