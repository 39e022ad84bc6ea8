"""Strings, comments and docs that name the renamed symbol are reported, never silently skipped
(issue 15, point 3): a separate review group with counts per kind, not edited by default, renamed
with `--strings` / `--comments` (include_strings / include_comments); the "same name, not
confirmed" list is ranked by likelihood from the syntax (a bare `print(` is no `Console.print`, an
ASGI `send` parameter is no `Client.send`) and kept short. Real basedpyright and TypeScript."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from semantic_helpers import module_context, tree

from agent.config import Settings
from agent.refactor.likelihood import Symbol, rank, symbol_at

pytestmark = pytest.mark.timeout(900)

SEGMENT = '''"""Segment: a piece of styled text."""


class Segment:
    """A Segment holds text."""

    def __init__(self, text: str) -> None:
        self.text = text

    def __repr__(self) -> str:
        return f"Segment({self.text!r})"  # the repr names Segment
'''
TEST = '''from segment import Segment


def test_repr() -> None:
    assert repr(Segment("foo")) == "Segment('foo')"
'''
CLIENT = '''class Client:
    def send(self, data: bytes) -> None:
        pass


async def app(scope: dict, receive: object, send: object) -> None:
''' + "".join(f"    print('step {i}')\n" for i in range(25)) + '''    await send({"type": "http.response.start"})


def push(c: Client) -> None:
    c.send(b"x")
'''
TS = '''// Store keeps items; see Store.add
export class Store {
  add(item: string): string { return `Store(${item})`; }
}
export const label = "Store";
'''


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = (tmp_path / "proj").resolve()
    root.mkdir()
    (root / "segment.py").write_text(SEGMENT)
    (root / "test_segment.py").write_text(TEST)
    (root / "client.py").write_text(CLIENT)
    (root / "store.ts").write_text(TS)
    (root / "tsconfig.json").write_text('{"compilerOptions": {"strict": true}, "include": ["*.ts"]}\n')
    monkeypatch.setenv("CODEAGENT_LSP_DAEMON", "never")
    return root


def test_strings_comments_and_docstrings_are_listed_and_not_edited(project: Path, cli: Callable[..., Any]) -> None:
    before = tree(project)
    out = cli("rename", "segment.py:4:7", "Piece", "--dry-run", "--root", str(project), cwd=project)
    assert out.returncode == 0, out.stderr
    text = out.stdout
    assert ("'Segment' in strings, comments and docstrings, not changed (1 comment(s), 2 docstring(s), "
            "2 string(s); rename them too with --strings / --comments") in text
    assert "  segment.py:11:18 [string] return f\"Segment({self.text!r})\"" in text
    assert "  segment.py:11:60 [comment]" in text
    assert "  segment.py:1:4 [docstring]" in text
    assert "  test_segment.py:5:37 [string] assert repr(Segment(\"foo\")) == \"Segment('foo')\"" in text
    assert "-        return f\"Segment(" not in text  # the diff leaves them alone
    assert tree(project) == before


def test_strings_and_comments_are_renamed_when_included(project: Path, cli: Callable[..., Any]) -> None:
    out = cli("rename", "segment.py:4:7", "Piece", "--strings", "--json", "--root", str(project), cwd=project)
    assert out.returncode == 0, out.stderr
    data = out.json["data"]
    assert data["reasons"] == {"lsp": 3, "string": 2, "docstring": 2}  # class, import, use
    assert data["textual_counts"] == {"comment": 1}
    assert "return f\"Piece({self.text!r})\"  # the repr names Segment" in (project / "segment.py").read_text()
    assert "assert repr(Piece(\"foo\")) == \"Piece('foo')\"" in (project / "test_segment.py").read_text()
    assert cli("undo", "--root", str(project), cwd=project).returncode == 0
    out = cli("rename", "segment.py:4:7", "Piece", "--strings", "--comments", "--root", str(project), cwd=project)
    assert out.returncode == 0, out.stderr
    assert "Segment" not in (project / "segment.py").read_text()


def test_unconfirmed_names_are_ranked_counted_and_kept_short(project: Path) -> None:
    for _ctx, call in module_context(project, Settings()):
        res = call("rename_symbol", file_path="client.py", line=2, column=9, new_name="transmit", dry_run=True)
        assert res.success, res.error
        ranked = res.data["unconfirmed_ranked"]
        assert {(r["line"], r["rank"], r["why"]) for r in ranked} == {
            (6, "unlikely", "a parameter of the same name"),
            (32, "unlikely", "a bare name, not an attribute access")}
        assert "same name in code, not renamed (2 unlikely;" in res.output
        assert "2 unlikely, not listed (1 a parameter of the same name; 1 a bare name, not an attribute access)" \
            in res.output
        assert "client.py:6:" not in res.output  # unlikely ones are counted, not listed
        res = call("rename_symbol", file_path="store.ts", line=3, column=3, new_name="put", dry_run=True)
        assert res.success, res.error
        assert res.data["textual_counts"] == {"comment": 1}  # "see Store.add"
        assert "store.ts:1:33 [comment]" in res.output
        res = call("rename_symbol", file_path="store.ts", line=2, column=14, new_name="Depot", dry_run=True)
        assert res.success, res.error
        assert res.data["textual_counts"] == {"comment": 2, "string": 1}
        assert "store.ts:3:39 [string]" in res.output and "store.ts:1:4 [comment]" in res.output
        # `"Store"` is the engine's exact-literal review item: listed once, counted in the group's header
        assert "and 1 string literal(s) spelling exactly the name, listed above" in res.output
        assert res.output.count("store.ts:5:23") == 1


def test_the_ranking_reads_receivers_hints_and_imports() -> None:
    src = '''from rich import print


class Console:
    def print(self, x: object) -> None:
        self.print(x)


class Other:
    def run(self) -> None:
        self.print(1)


def f(c: Console, o: Other, u) -> None:
    c.print(1)
    o.print(2)
    u.print(3)
    print(4)
'''
    owner = symbol_at(src, "python", 4, 8)
    assert owner == Symbol(member=True, owner="Console")

    def at(line: int, needle: str) -> tuple[str, str]:
        column = src.split("\n")[line].index(needle)
        return rank(src, "python", line, column, owner)

    assert at(5, "print") == ("likely", "self.<name> inside class Console")
    assert at(10, "print") == ("possible", "self.<name> inside class Other")
    assert at(14, "print") == ("likely", "c: Console")
    assert at(15, "print") == ("unlikely", "o: Other")
    assert at(16, "print") == ("possible", "u.<name>: an attribute of an untyped receiver")
    assert at(17, "print") == ("unlikely", "a bare name, not an attribute access")
    assert at(0, "print") == ("unlikely", "an import of another module's name")
