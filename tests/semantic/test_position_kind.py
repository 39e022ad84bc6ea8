"""A position must name a symbol (issue 15, point 4): on a comment, a string, a docstring, a
keyword, whitespace or punctuation, `def` / `refs` / `rename` say what is there and exit 1 (the
tools fail with that message), instead of "0 reference(s)" or "no definition found for from".
Every message shows positions 1-based, in characters, as the user gave them."""

from __future__ import annotations

import ast
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from semantic_helpers import module_context

from agent.config import Settings

pytestmark = pytest.mark.timeout(600)
REPO = Path(__file__).resolve().parents[2]

PY = '''"""Fast helpers."""
from os import path  # Fast path


class Fast:
    def go(self) -> str:
        return "Fast"


def use(x: Fast) -> int:
    return len(path.sep) + len(x.go())
'''

TS = '''import { join } from "./paths";
// Fast comment
export class Fast {
  go(): string { return `Fast ${join("a")}`; }
}
'''

PATHS_TS = "export function join(a: string): string { return a; }\n"


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = (tmp_path / "proj").resolve()
    root.mkdir()
    (root / "mod.py").write_text(PY)
    (root / "fast.ts").write_text(TS)
    (root / "paths.ts").write_text(PATHS_TS)
    (root / "tsconfig.json").write_text('{"compilerOptions": {"strict": true}, "include": ["*.ts"]}\n')
    monkeypatch.setenv("CODEAGENT_LSP_DAEMON", "never")
    return root


@pytest.mark.parametrize(("command", "where", "what"), [
    ("refs", "mod.py:2:24", "is a comment, not a symbol"),
    ("def", "mod.py:2:1", "is the keyword 'from', not a symbol"),
    ("refs", "mod.py:7:17", "is a string, not a symbol"),
    ("def", "mod.py:1:5", "is a docstring, not a symbol"),
    ("refs", "mod.py:6:2", "is whitespace, not on an identifier"),
    ("def", "mod.py:11:26", "is punctuation '+', not on an identifier"),
    ("refs", "fast.ts:2:4", "is a comment, not a symbol"),
    ("def", "fast.ts:4:26", "is a string, not a symbol"),
    ("refs", "fast.ts:3:8", "is the keyword 'class', not a symbol"),
])
def test_cli_says_what_is_at_the_position_and_exits_1(project: Path, cli: Callable[..., Any], command: str,
                                                      where: str, what: str) -> None:
    out = cli(command, where, "--root", str(project), cwd=project)
    assert out.returncode == 1, (out.stdout, out.stderr)
    assert f"{where} {what}" in out.stderr
    assert "reference(s)" not in out.stdout and "no definition found" not in out.stdout


def test_tools_fail_with_the_same_message_and_names_in_code_still_work(project: Path) -> None:
    for _ctx, call in module_context(project, Settings()):
        for name in ("find_references", "find_definition"):
            res = call(name, file_path="mod.py", line=2, column=24)
            assert res.success is False and res.error is not None
            assert "mod.py:2:24 is a comment, not a symbol" in res.error
        res = call("rename_symbol", file_path="mod.py", line=2, column=1, new_name="x", dry_run=True)
        assert res.success is False and "mod.py:2:1 is the keyword 'from'" in (res.error or "")
        # code inside an f-string / template literal, and a TS import source, are code
        ok = call("find_references", file_path="mod.py", line=5, column=7)
        assert ok.success is True and ok.data["count"] == 2, ok.error
        ok = call("find_definition", file_path="fast.ts", line=4, column=33)
        assert ok.success is True and ok.data["definitions"][0]["path"] == "paths.ts", ok.error
        ok = call("find_definition", file_path="fast.ts", line=1, column=25)
        assert ok.success is True, ok.error


def test_a_refused_rename_shows_the_position_as_given(project: Path, cli: Callable[..., Any]) -> None:
    """basedpyright refuses to rename a builtin; the message used to show the server's 0-based
    position (mod.py:10:11 for the user's mod.py:11:12)."""
    out = cli("rename", "mod.py:11:12", "size", "--root", str(project), "--dry-run", cwd=project)
    assert out.returncode == 1
    assert "cannot be renamed" in out.stderr
    assert "mod.py:11:12" in out.stderr and "mod.py:10:11" not in out.stderr


ZERO_BASED = {"pos", "position", "rng", "range", "start", "end"}


def _leaf(expr: ast.expr) -> str | None:
    if isinstance(expr, ast.Name):
        return expr.id
    if isinstance(expr, ast.Attribute):
        return expr.attr
    return None


def _zero_based(expr: ast.expr) -> bool:
    """A bridge Position / Range (0-based; its str() is too) put straight into a message."""
    name = _leaf(expr)
    if isinstance(expr, ast.Name):
        return name in ("pos", "position", "rng")
    if isinstance(expr, ast.Attribute) and name in ("start", "end", "range"):
        return True
    return isinstance(expr, ast.Attribute) and name in ("line", "character") and _leaf(expr.value) in ZERO_BASED


def test_no_message_formats_a_zero_based_position() -> None:
    """Scans every f-string of agent/ and lsp_bridge/: a message must show `pos.shown()` (or the
    Location), never a bridge position as it is. Position/Range.__str__ (debug form) are exempt."""
    found = []
    for package in ("agent", "lsp_bridge"):
        for path in sorted((REPO / package).rglob("*.py")):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            exempt = {id(n) for f in ast.walk(tree) if isinstance(f, ast.FunctionDef) and f.name == "__str__"
                      for n in ast.walk(f)}
            for node in ast.walk(tree):
                if not isinstance(node, ast.JoinedStr) or id(node) in exempt:
                    continue
                for value in node.values:
                    if isinstance(value, ast.FormattedValue) and _zero_based(value.value):
                        found.append(f"{path.relative_to(REPO)}:{node.lineno}: {{{ast.unparse(value.value)}}}")
    assert found == []
