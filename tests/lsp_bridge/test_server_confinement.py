"""Language servers run on the host, outside the sandbox: no program inside the workspace (nor one
its files ask for) may run. Each trap below ran on the bridge before lsp_bridge.confine; a marker
file proves whether it runs now. Real servers throughout."""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from bridgekit import require_server

from lsp_bridge import LspSession, Position
from lsp_bridge.confine import confined_path, pyright_settings
from lsp_bridge.servers import get_spec


def trap(path: Path, markers: Path) -> None:
    """An executable that records it ran in `markers` (named after the trap's path)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    name = "-".join(path.parts[-3:])
    path.write_text(f"#!/bin/sh\ntouch '{markers}/{name}'\nexit 1\n", encoding="utf-8")
    path.chmod(0o755)


@pytest.fixture
def markers(tmp_path: Path) -> Path:
    folder = tmp_path / "markers"
    folder.mkdir()
    return folder


@contextlib.contextmanager
def session(root: Path, server: str, env: dict[str, str] | None = None) -> Iterator[LspSession]:
    s = LspSession(root, get_spec(server), env=env, request_timeout=120, ready_timeout=240)
    try:
        yield s
    finally:
        s.stop()


def diagnostics(root: Path, server: str, file: str, env: dict[str, str] | None = None) -> list[str]:
    with session(root, server, env) as s:
        assert s.ready(timeout=240)
        return [d.message for d in s.diagnostics(root / file)]


def python_project(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    site = root / ".venv" / "lib" / "python3.11" / "site-packages" / "venvonly"
    site.mkdir(parents=True)
    (site / "__init__.py").write_text("VALUE = 1\n", encoding="utf-8")
    (root / ".venv" / "pyvenv.cfg").write_text("home = /usr/bin\n", encoding="utf-8")
    (root / "main.py").write_text("import venvonly\nimport nosuchmodule\n\nprint(venvonly.VALUE)\n", encoding="utf-8")
    return root


def test_pyright_never_runs_the_workspace_venv_and_still_resolves_its_packages(tmp_path: Path,
                                                                              markers: Path) -> None:
    require_server("basedpyright")
    root = python_project(tmp_path)
    for name in ("python", "python3"):  # basedpyright's automatic .venv
        trap(root / ".venv" / "bin" / name, markers)
    found = diagnostics(root, "basedpyright", "main.py")
    assert list(markers.iterdir()) == []
    assert not [m for m in found if "venvonly" in m and "could not be resolved" in m], found
    assert [m for m in found if '"nosuchmodule" could not be resolved' in m], found  # it did analyse


def test_pyright_never_runs_a_python_that_path_finds_in_the_workspace(tmp_path: Path, markers: Path) -> None:
    require_server("basedpyright")
    root = python_project(tmp_path)
    for name in ("python", "python3"):  # an activated workspace venv
        trap(root / "env" / "bin" / name, markers)
    env = {"PATH": f"{root / 'env' / 'bin'}{os.pathsep}env/bin{os.pathsep}{os.environ['PATH']}",
           "VIRTUAL_ENV": str(root / "env")}
    diagnostics(root, "basedpyright", "main.py", env)
    assert list(markers.iterdir()) == []


@pytest.mark.parametrize("server", ["tsc", "typescript-language-server"])
def test_typescript_servers_run_no_workspace_program_nor_type_acquisition(tmp_path: Path, markers: Path,
                                                                         server: str) -> None:
    require_server(server)
    root = tmp_path / "ws"
    outside = tmp_path / "outside-bin"
    for name in ("node", "npm"):
        trap(root / "bin" / name, markers)  # found through PATH before the real ones
    trap(outside / "npm", markers)  # outside the workspace: only type acquisition would run it
    (root / "package.json").write_text('{"name": "w", "dependencies": {"lodash": "*", "express": "*"}}\n')
    (root / "main.js").write_text('const _ = require("lodash");\nfunction f() { return 1; }\nf();\n')
    plugin = root / "node_modules" / "evil-plugin"
    plugin.mkdir(parents=True)
    (plugin / "package.json").write_text('{"name": "evil-plugin", "main": "index.js"}\n')
    (plugin / "index.js").write_text(f'require("fs").writeFileSync("{markers}/plugin", "");\n'
                                     "module.exports = () => ({create: (info) => info.languageService});\n")
    (root / "jsconfig.json").write_text('{"compilerOptions": {"plugins": [{"name": "evil-plugin"}]}}\n')
    env = {"PATH": os.pathsep.join([str(root / "bin"), str(outside), os.environ["PATH"]])}
    with session(root, server, env) as s:
        assert s.ready(timeout=240)
        s.references(root / "main.js", Position(1, 9))
        s.diagnostics(root / "main.js")
        time.sleep(3)  # type acquisition starts in the background once the project loads
    assert sorted(p.name for p in markers.iterdir()) == []


def test_confined_path_drops_workspace_and_relative_entries(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    (root / "bin").mkdir(parents=True)
    link = tmp_path / "link-to-bin"
    link.symlink_to(root / "bin")
    path = os.pathsep.join(["/usr/bin", str(root / "bin"), str(link), ".", "", "bin", str(root), "/bin"])
    assert confined_path(root, path) == os.pathsep.join(["/usr/bin", "/bin"])


def test_pyright_is_told_an_interpreter_outside_the_workspace(tmp_path: Path) -> None:
    root = python_project(tmp_path)
    trap(root / "bin" / "python3", tmp_path)
    settings = pyright_settings(root, {"PATH": f"{root / 'bin'}{os.pathsep}{os.environ['PATH']}"})
    interpreter = settings["python"]["pythonPath"]
    assert not Path(interpreter).resolve().is_relative_to(root)
    assert settings["python"]["analysis"]["extraPaths"] == [str(root / ".venv/lib/python3.11/site-packages")]
