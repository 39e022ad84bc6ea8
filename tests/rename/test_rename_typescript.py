"""TypeScript renames through the engine with the default TypeScript server: shorthand properties
keep the half that is not renamed."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from agent.refactor.commit import file_edits
from agent.refactor.rename import plan_rename
from agent.workspace import Workspace
from lsp_bridge import DEFAULT_SERVERS, Position, ServerNotInstalled, SessionPool
from lsp_bridge.servers import get_spec, resolve_command

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "renamecases" / "ts"

pytestmark = pytest.mark.timeout(600)


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, object]]:
    try:
        resolve_command(get_spec(DEFAULT_SERVERS["typescript"]), auto_install=True, timeout=300)
    except ServerNotInstalled as exc:
        pytest.skip(f"the TypeScript server is unavailable here: {exc}")
    root = (tmp_path_factory.mktemp("ts") / "proj").resolve()
    shutil.copytree(FIXTURE, root)
    pool = SessionPool(request_timeout=120, ready_timeout=240)
    try:
        yield root, pool.get(root, "typescript")
    finally:
        pool.close_all()


def renamed(project: tuple[Path, object], rel: str, needle: str, new: str, offset: int = 0) -> dict[str, str]:
    """Plan a rename at `offset` characters into the first line containing `needle`; the new texts."""
    root, server = project
    for line, text in enumerate((root / rel).read_text(encoding="utf-8").split("\n")):
        if needle in text:
            pos = Position(line, text.index(needle) + offset)
            break
    ws = Workspace(root)
    plan = plan_rename(server, ws, root / rel, pos, new)  # type: ignore[arg-type]
    return {fe.path: fe.new_text or "" for fe in file_edits(ws, plan).edits}


def test_renaming_a_parameter_keeps_the_property_name(project: tuple[Path, object]) -> None:
    files = renamed(project, "src/scope.ts", "parent_: Scope | undefined)", "parentScope")
    assert set(files) == {"src/scope.ts"}
    assert files["src/scope.ts"].split("\n")[5:8] == [
        "export function createScope(parentScope: Scope | undefined): Scope {",
        "\tconst depth = parentScope ? parentScope.depth + 1 : 0",
        "\treturn {parent_: parentScope, depth}",
    ]


def test_renaming_a_property_keeps_the_variable_names(project: tuple[Path, object]) -> None:
    files = renamed(project, "src/scope.ts", "parent_: Scope | undefined", "up")  # line 2: the interface
    assert files["src/scope.ts"].split("\n")[1] == "\tup: Scope | undefined"
    assert "\treturn {up: parent_, depth}" in files["src/scope.ts"]
    # destructuring keeps the local and its uses (TypeScript's own rename with prefix/suffix text)
    assert files["src/use.ts"].split("\n")[3:5] == ["\tconst {up: parent_} = scope", "\treturn parent_"]


def test_renaming_a_destructured_variable_keeps_the_property_name(project: tuple[Path, object]) -> None:
    files = renamed(project, "src/use.ts", "return parent_", "up", offset=7)
    assert files["src/use.ts"].split("\n")[3:5] == ["\tconst {parent_: up} = scope", "\treturn up"]
