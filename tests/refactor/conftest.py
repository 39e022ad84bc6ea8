"""A small Python package for the signature / delete tests: a base class with an override in
another module, a plain function called positionally and by keyword (in tests too), helpers
re-exported by the package, and an `__all__`."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

FILES = {
    "shapes/__init__.py": (
        "from .geometry import Canvas, scaled, spare_helper\n"
        "\n"
        "__all__ = [\"Canvas\", \"scaled\", \"spare_helper\"]\n"
    ),
    "shapes/geometry.py": (
        "import math\n"
        "import os\n"
        "\n"
        "\n"
        "class Canvas:\n"
        "    def draw(self, shape, color, width=1):\n"
        "        return f\"{shape}:{color}:{width}\"\n"
        "\n"
        "\n"
        "def scaled(length, factor, offset=0):\n"
        "    return length * factor + offset\n"
        "\n"
        "\n"
        "def spare_helper(name):\n"
        "    \"\"\"Nothing calls this.\"\"\"\n"
        "    return os.path.basename(name)\n"
        "\n"
        "\n"
        "def circle_area(radius):\n"
        "    return math.pi * radius * radius\n"
    ),
    "shapes/fancy.py": (
        "from .geometry import Canvas\n"
        "\n"
        "\n"
        "class FancyCanvas(Canvas):\n"
        "    def draw(self, shape: str, color: str = \"red\", width: int = 2) -> str:\n"
        "        return \"*\" + super().draw(shape, color, width)\n"
    ),
    "shapes/app.py": (
        "from .fancy import FancyCanvas\n"
        "from .geometry import Canvas, scaled\n"
        "\n"
        "\n"
        "def paint(canvas: Canvas) -> list[str]:\n"
        "    return [canvas.draw(\"box\", \"blue\"), canvas.draw(shape=\"dot\", color=\"green\", width=3),\n"
        "            FancyCanvas().draw(\"star\", \"gold\", 5)]\n"
        "\n"
        "\n"
        "def sizes() -> list[float]:\n"
        "    return [scaled(2, 3), scaled(length=4, factor=5, offset=1)]\n"
    ),
    "tests/test_shapes.py": (
        "from shapes.geometry import circle_area, scaled\n"
        "\n"
        "\n"
        "def test_scaled() -> None:\n"
        "    assert scaled(1, 2, 3) == 5\n"
        "    assert circle_area(1) > 3\n"
    ),
}


def make_project(root: Path, extra: dict[str, str] | None = None) -> Path:
    for rel, text in {**FILES, **(extra or {})}.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


def tree_bytes(root: Path) -> dict[str, bytes]:
    """Every file's bytes, the journal's own folder left out."""
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and ".codeagent" not in p.relative_to(root).parts}


@pytest.fixture
def shapes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The package above in a fresh folder; the CLI runs in-process (no daemon)."""
    monkeypatch.setenv("CODEAGENT_LSP_DAEMON", "never")
    return make_project((tmp_path / "proj").resolve())


@pytest.fixture
def tree() -> Callable[[Path], dict[str, bytes]]:
    return tree_bytes


# A TypeScript project for the safe-delete tests: a function with JSDoc behind a barrel re-export
# and imports only it uses, overloads and an interface, an import-then-export barrel, and a test
# file the tsconfig does not include (the TypeScript server cannot see it).
TS_UTIL = (
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
TS_FILES = {
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
    "src/util.ts": TS_UTIL,
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
    "src/all.ts": "export * from \"./shapes\";\n",
    "src/reexport.ts": "import { UNIT } from \"./shapes\";\n\nexport { UNIT };\n",
    "tests/util.test.ts": (
        "import { testedOnly } from \"../src/util\";\n"
        "\n"
        "export function check(): boolean {\n"
        "  return testedOnly(2) === 4;\n"
        "}\n"),
}


def written_project(root: Path, files: dict[str, str]) -> Path:
    """`files` (relative path → text) written under `root`, resolved."""
    root = root.resolve()
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    return root


@pytest.fixture
def tsdel(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("CODEAGENT_LSP_DAEMON", "never")
    return written_project(tmp_path / "tsdel", TS_FILES)


@pytest.fixture
def tsproj(request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The module's FILES as a TypeScript project, its servers in this process."""
    files = getattr(request.module, "FILES", None)
    if not isinstance(files, dict):
        pytest.fail(f"{request.module.__name__} uses `tsproj` but sets no FILES")
    monkeypatch.setenv("CODEAGENT_LSP_DAEMON", "never")
    return written_project(tmp_path / "tsproj", files)
