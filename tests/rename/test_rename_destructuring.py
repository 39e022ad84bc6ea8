"""Never worse than TypeScript's own rename: destructured locals and shorthand properties keep the
half that is not renamed (what the server does with prefix/suffix text), while imports keep the
declaration rename (what it does without). The real `codeagent rename` on copies of
fixtures/destructuring/ts with both TypeScript servers."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from lsp_bridge import ServerNotInstalled
from lsp_bridge.servers import get_spec, resolve_command

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "destructuring" / "ts"

pytestmark = [pytest.mark.timeout(900), pytest.mark.parametrize("server", ["tsc", "typescript-language-server"])]


def renamed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, cli: Callable[..., Any], server: str, target: str,
            new: str) -> Path:
    try:
        resolve_command(get_spec(server), auto_install=False, timeout=60)
    except ServerNotInstalled as exc:
        pytest.skip(f"{server} is not installed here: {exc}")
    monkeypatch.setenv("CODEAGENT_TS_SERVER", server)
    monkeypatch.setenv("CODEAGENT_LSP_DAEMON", "never")
    root = (tmp_path / "proj").resolve()
    shutil.copytree(FIXTURE, root)
    out = cli("rename", target, new, "--root", str(root), cwd=root, timeout=600)
    assert out.returncode == 0, out.stderr
    return root


def lines(root: Path, rel: str) -> list[str]:
    return (root / rel).read_text().split("\n")


def test_renaming_a_destructured_local_keeps_the_property(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                          cli: Callable[..., Any], server: str) -> None:
    before = lines(FIXTURE, "src/opts.ts")
    for target in ("src/opts.ts:7:11", "src/opts.ts:8:10"):  # from the binding and from its use
        root = renamed(tmp_path / target.replace("/", "_").replace(":", "_"), monkeypatch, cli, server, target,
                       "strict")
        after = lines(root, "src/opts.ts")
        assert after[6:8] == ["  const { enforce: strict } = opts", "  return strict"]
        # the interface's property and the other shorthand keep their names
        assert after[:6] == before[:6] and after[8:] == before[8:]
        assert lines(root, "src/use.ts") == lines(FIXTURE, "src/use.ts")


def test_renaming_a_property_keeps_the_destructured_locals(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                           cli: Callable[..., Any], server: str) -> None:
    root = renamed(tmp_path, monkeypatch, cli, server, "src/opts.ts:2:3", "strict")
    after = lines(root, "src/opts.ts")
    assert after[1] == "  strict: boolean"
    assert after[6:8] == ["  const { strict: enforce } = opts", "  return enforce"]
    assert after[10:12] == ["export function make(enforce: boolean): Options {", "  return { strict: enforce, depth: 1 }"]


def test_renaming_a_destructured_parameter_keeps_its_type(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                          cli: Callable[..., Any], server: str) -> None:
    root = renamed(tmp_path, monkeypatch, cli, server, "src/use.ts:3:25", "strict")
    assert lines(root, "src/use.ts")[2:4] == [
        "export function check({ enforce: strict, depth }: { enforce: boolean, depth: number }): boolean {",
        "  return run(make(strict)) && depth > 0",
    ]


def test_imports_keep_the_declaration_rename(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                             cli: Callable[..., Any], server: str) -> None:
    root = renamed(tmp_path, monkeypatch, cli, server, "src/use.ts:1:10", "build")
    assert lines(root, "src/use.ts")[0] == "import { build, run } from './opts'"
    assert "  return run(build(enforce)) && depth > 0" in lines(root, "src/use.ts")
    assert "export function build(enforce: boolean): Options {" in lines(root, "src/opts.ts")
