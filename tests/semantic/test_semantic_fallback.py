"""Without a language server (a configured server command that does not exist): references and
single-file renames come from the syntax layer and say so; a cross-file rename is refused unless
allowed; find_definition still answers; get_diagnostics fails clearly; the CLI says the same."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from semantic_helpers import Caller, copy_fixture, module_context, refs_of, run_cli, tree

from agent.config import LspSettings, Settings
from agent.toolcontext import ToolContext

GEOMETRY = "shapes/geometry.py"
MISSING = ["/nonexistent/language-server", "--stdio"]


@pytest.fixture(scope="module")
def proj(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return copy_fixture("pyproj", tmp_path_factory.mktemp("fallback"))


@pytest.fixture(scope="module")
def env(proj: Path) -> Iterator[tuple[ToolContext, Caller]]:
    settings = Settings(lsp=LspSettings(server_commands={"python": MISSING}))
    yield from module_context(proj, settings)


@pytest.fixture
def call(env: tuple[ToolContext, Caller]) -> Caller:
    return env[1]


def test_references_fall_back_to_syntax_and_say_so(call: Caller) -> None:
    r = call("find_references", file_path=GEOMETRY, line=38, column=9)  # the shadowing local
    assert r.success, r.error
    assert r.data["complete"] is False and r.data["source"] == "syntactic"
    assert [(e["line"], e["column"]) for _, e in refs_of(r.data)] == [(38, 9), (39, 18)]
    assert "INCOMPLETE: syntactic" in r.output and "not installed" in r.output
    # A module-level name: its uses in other files are only textual, listed for review.
    r = call("find_references", file_path=GEOMETRY, line=30, column=5)
    assert r.success and r.data["complete"] is False
    assert {u["path"] for u in r.data["unconfirmed"]} == {"shapes/__init__.py", "shapes/labels.py",
                                                          "shapes/registry.py", "tests/test_shapes.py"}


def test_single_file_rename_works_syntactically(call: Caller, proj: Path) -> None:
    before = tree(proj)
    r = call("rename_symbol", file_path=GEOMETRY, line=38, column=9, new_name="piece", dry_run=True)
    assert r.success, r.error
    assert r.data["method"] == "syntactic" and r.data["complete"] is False
    assert {(s["line"], s["reason"]) for s in r.data["sites"]} == {(38, "syntactic"), (39, "syntactic")}
    assert tree(proj) == before


def test_cross_file_rename_is_refused_unless_allowed(env: tuple[ToolContext, Caller], call: Caller,
                                                     proj: Path) -> None:
    ctx, _ = env
    before = tree(proj)
    r = call("rename_symbol", file_path=GEOMETRY, line=30, column=5, new_name="compute_area")
    assert not r.success and "refused" in (r.error or "") and "allow_syntactic" in (r.error or "")
    assert tree(proj) == before
    r = call("rename_symbol", file_path=GEOMETRY, line=30, column=5, new_name="compute_area", allow_syntactic=True)
    assert r.success, r.error
    try:
        assert r.data["files"] == ["shapes/__init__.py", GEOMETRY, "shapes/labels.py", "shapes/registry.py",
                                   "tests/test_shapes.py"]
        geometry = (proj / GEOMETRY).read_text(encoding="utf-8")
        assert "def compute_area(" in geometry
        assert "# area_of rounds: this comment mentions area_of" in geometry  # comments untouched
        assert "area_of = shape.area()" in geometry  # the shadowing local is another binding
        assert 'label = "area_of"' in (proj / "shapes/registry.py").read_text(encoding="utf-8")
    finally:
        ctx.workspace.undo()
    assert tree(proj) == before


def test_definition_and_diagnostics_without_a_server(call: Caller) -> None:
    r = call("find_definition", file_path=GEOMETRY, line=39, column=18)
    assert r.success, r.error
    assert r.data["source"] == "syntactic"
    assert [(d["line"], d["column"]) for d in r.data["definitions"]] == [(38, 9)]
    d = call("get_diagnostics", file_path=GEOMETRY)
    assert not d.success and "not installed" in (d.error or "")


def test_cli_reports_the_fallback(proj: Path, tmp_path: Path) -> None:
    # server_commands is a security setting: it comes from the user's config, not the project's
    user = tmp_path / "user.toml"
    user.write_text('[lsp]\nserver_commands = {python = ["/nonexistent/language-server", "--stdio"]}\n',
                    encoding="utf-8")
    env = {"CODEAGENT_CONFIG": str(user)}
    r = run_cli("refs", f"{GEOMETRY}:38:9", "--root", str(proj), "--json", "--no-daemon", env=env)
    assert r.returncode == 0, r.stderr
    assert r.json["data"]["complete"] is False and r.json["data"]["source"] == "syntactic"
    r = run_cli("rename", f"{GEOMETRY}:30:5", "compute_area", "--root", str(proj), "--json", "--no-daemon", env=env)
    assert r.returncode == 1 and "refused" in r.json["error"]
