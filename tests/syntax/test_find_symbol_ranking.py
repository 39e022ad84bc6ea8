"""find_symbol through the real `codeagent tool` command on a package shaped like a published
TypeScript library: the source under src/, its build output under dist/esm (JavaScript) and
dist/types (declarations), a minified bundle, and overloaded signatures. The source ranks first,
then the stub, then the generated files; overloads are one match with a count."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from clikit import Cli

SOURCE = """export class Stream<T> {
  pipe(): Stream<T>;
  pipe<A>(op1: (s: Stream<T>) => A): A;
  pipe<A, B>(op1: (s: Stream<T>) => A, op2: (a: A) => B): B;
  pipe(...ops: unknown[]): unknown {
    return ops.length ? ops : this;
  }
}
"""
BUILT = """export class Stream {
  pipe(...ops) {
    return ops.length ? ops : this;
  }
}
"""
TYPES = """export declare class Stream<T> {
  pipe(): Stream<T>;
  pipe<A>(op1: (s: Stream<T>) => A): A;
}
"""
BUNDLE = "export class Stream { pipe(...o) { return o.length ? o : this; } }\n"


def _tree(root: Path) -> None:
    files = {
        # Paths chosen so that alphabetical order (today's tie-break) puts build output first.
        "dist/esm/internal/Stream.js": BUILT,
        "dist/types/internal/Stream.d.ts": TYPES,
        "lib/stream.min.js": BUNDLE,
        "src/internal/Stream.ts": SOURCE,
    }
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")


def test_source_then_stub_then_build_output(root: Path, cli: Callable[..., Cli]) -> None:
    _tree(root)
    res = cli("tool", "find_symbol", "--root", str(root), "--args", json.dumps({"name": "Stream"}))
    assert res.returncode == 0, res.stderr
    matches = res.json["data"]["matches"]
    assert [m["path"] for m in matches] == [
        "src/internal/Stream.ts", "dist/types/internal/Stream.d.ts", "dist/esm/internal/Stream.js",
        "lib/stream.min.js"]
    assert [m["origin"] for m in matches] == ["source", "generated stub", "generated", "generated"]
    lines = res.json["output"].splitlines()
    assert lines[1].startswith("src/internal/Stream.ts:1:14  class Stream")
    assert lines[2].endswith("[generated stub]") and lines[3].endswith("[generated]")


def test_a_stub_beside_its_module_ranks_after_the_module(root: Path, cli: Callable[..., Cli]) -> None:
    (root / "a_stubs").mkdir()
    (root / "a_stubs" / "shapes.pyi").write_text("class Circle:\n    def area(self) -> float: ...\n")
    (root / "shapes.py").write_text("class Circle:\n    def area(self):\n        return 3.14\n")
    res = cli("tool", "find_symbol", "--root", str(root), "--args", json.dumps({"name": "Circle"}))
    assert res.returncode == 0, res.stderr
    assert [(m["path"], m["origin"]) for m in res.json["data"]["matches"]] == [
        ("shapes.py", "source"), ("a_stubs/shapes.pyi", "stub")]


def test_overloads_collapse_into_one_match_with_a_count(root: Path, cli: Callable[..., Cli]) -> None:
    _tree(root)
    res = cli("tool", "find_symbol", "--root", str(root), "--args", json.dumps({"name": "Stream.pipe"}))
    assert res.returncode == 0, res.stderr
    matches = res.json["data"]["matches"]
    assert [(m["path"], m["overloads"]) for m in matches] == [
        ("src/internal/Stream.ts", 4), ("dist/types/internal/Stream.d.ts", 2),
        ("dist/esm/internal/Stream.js", 1), ("lib/stream.min.js", 1)]
    assert matches[0]["line"] == 2  # the first declaration
    assert "(4 overloads)" in res.json["output"].splitlines()[1]
