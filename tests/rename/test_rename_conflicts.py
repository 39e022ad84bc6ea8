"""A rename whose new name conflicts with an existing one is refused before anything is written:
the real `codeagent rename` on copies of fixtures/conflicts, with the real Python server and both
TypeScript servers. Exit 1, the list of `path:line:col  why`, every file byte for byte as before;
`--force` writes anyway; a new name that conflicts with nothing still renames."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from lsp_bridge import ServerNotInstalled
from lsp_bridge.servers import get_spec, resolve_command

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "conflicts"
TS_SERVERS = ["tsc", "typescript-language-server"]

pytestmark = pytest.mark.timeout(900)


def copy_of(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str) -> Path:
    root = tmp_path / name
    shutil.copytree(FIXTURES / name, root)
    monkeypatch.setenv("CODEAGENT_LSP_DAEMON", "never")
    return root.resolve()


PY_CASES = [
    # a method renamed to the name of a classmethod of the same class
    ("pkg/segment.py:11:9", "build",
     "pkg/segment.py:15:9  'build' is already a function in class Segment; the renamed symbol would clash with it"),
    # a method renamed to a base class's method: it would override it
    ("pkg/segment.py:11:9", "make",
     "pkg/segment.py:6:9  'make' is already a member of Base, a base class of Segment"),
    # ... and to a subclass's method: the subclass's would override the renamed one
    ("pkg/segment.py:11:9", "width",
     "pkg/segment.py:20:9  'width' is already a member of Leaf, a subclass of Segment"),
    # a class renamed to a name another file already imports beside it
    ("pkg/segment.py:1:7", "Style",
     "pkg/console.py:2:20  'Style' is already imported in this module; the renamed symbol would clash with it"),
    # two classes of one module merged into one name
    ("pkg/segment.py:1:7", "Base",
     "pkg/segment.py:5:7  'Base' is already a class in this module; the renamed symbol would clash with it"),
    # a function renamed to the name of a local of a function that calls it
    ("pkg/segment.py:24:5", "count",
     "pkg/segment.py:30:12  this use would mean the 'count' defined at 29:5"),
    # a function renamed to a builtin it uses itself
    ("pkg/segment.py:24:5", "len", "pkg/segment.py:25:12  this use means the builtin 'len'; the renamed symbol "
     "would shadow it here"),
    # a parameter renamed to another parameter of the same function
    ("pkg/segment.py:33:18", "value",
     "pkg/segment.py:33:11  'value' is already a parameter in function scale"),
]

TS_CASES = [
    # an import of the new name in a file that imports the renamed function
    ("src/a.ts:1:17", "parseNew", "src/b.ts:2:10  'parseNew' is already imported in this module"),
    # two consts of one block
    ("src/a.ts:6:9", "width", "src/a.ts:7:9  'width' is already defined in the same block"),
    # a method renamed to its base class's method
    ("src/a.ts:18:3", "make", "src/a.ts:12:3  'make' is already a member of Base, a base class of Child"),
    # a function renamed to a global that a site still means
    ("src/a.ts:1:17", "String", "src/a.ts:6:17  this use means the global 'String'"),
]


def refused(cli: Callable[..., Any], snapshot: Callable[[Path], dict[str, Any]], root: Path, target: str,
            new: str, expected: str) -> None:
    before = snapshot(root)
    out = cli("rename", target, new, "--root", str(root), cwd=root, timeout=600)
    assert out.returncode == 1, (out.stdout, out.stderr)
    assert "conflicts with existing names; nothing was written" in out.stderr
    assert f"\n  {expected}" in out.stderr, out.stderr
    assert snapshot(root) == before
    # the tool's result carries the same list (the agent's rename_symbol, `--json`)
    js = cli("rename", target, new, "--root", str(root), "--json", cwd=root, timeout=600)
    assert js.returncode == 1
    assert js.json["success"] is False
    assert any(c.startswith(expected) for c in js.json["data"]["conflicts"]), js.json["data"]
    assert snapshot(root) == before


@pytest.mark.parametrize(("target", "new", "expected"), PY_CASES, ids=[f"{t}->{n}" for t, n, _ in PY_CASES])
def test_python_conflicts_are_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, cli: Callable[..., Any],
                                      snapshot: Callable[[Path], dict[str, Any]], target: str, new: str,
                                      expected: str) -> None:
    refused(cli, snapshot, copy_of(tmp_path, monkeypatch, "py"), target, new, expected)


def test_python_force_writes_anyway_and_a_free_name_renames(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                           cli: Callable[..., Any]) -> None:
    root = copy_of(tmp_path, monkeypatch, "py")
    out = cli("rename", "pkg/segment.py:1:7", "Style", "--root", str(root), "--force", cwd=root, timeout=600)
    assert out.returncode == 0, out.stderr
    assert "written despite 1 conflict(s) (force):" in out.stdout
    assert "from .segment import Style\nfrom .style import Style\n" in (root / "pkg/console.py").read_text()
    out = cli("rename", "pkg/segment.py:24:5", "count_items", "--root", str(root), cwd=root, timeout=600)
    assert out.returncode == 0, out.stderr
    assert "return count_items(items) + count" in (root / "pkg/segment.py").read_text()


def use_ts_server(monkeypatch: pytest.MonkeyPatch, server: str) -> None:
    try:
        resolve_command(get_spec(server), auto_install=False, timeout=60)
    except ServerNotInstalled as exc:
        pytest.skip(f"{server} is not installed here: {exc}")
    monkeypatch.setenv("CODEAGENT_TS_SERVER", server)


@pytest.mark.parametrize("server", TS_SERVERS)
@pytest.mark.parametrize(("target", "new", "expected"), TS_CASES, ids=[f"{t}->{n}" for t, n, _ in TS_CASES])
def test_typescript_conflicts_are_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, cli: Callable[..., Any],
                                          snapshot: Callable[[Path], dict[str, Any]], server: str, target: str,
                                          new: str, expected: str) -> None:
    use_ts_server(monkeypatch, server)
    refused(cli, snapshot, copy_of(tmp_path, monkeypatch, "ts"), target, new, expected)


@pytest.mark.parametrize("server", TS_SERVERS)
def test_typescript_free_name_renames(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, cli: Callable[..., Any],
                                      server: str) -> None:
    use_ts_server(monkeypatch, server)
    root = copy_of(tmp_path, monkeypatch, "ts")
    out = cli("rename", "src/a.ts:18:3", "halve", "--root", str(root), cwd=root, timeout=600)
    assert out.returncode == 0, out.stderr
    assert "  halve(): number {" in (root / "src/a.ts").read_text()
