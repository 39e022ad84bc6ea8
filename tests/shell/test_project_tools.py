"""get_project_info on real manifests; install_dependencies against a package index served from
this test (a loopback HTTP server standing in for PyPI, reached through PIP_INDEX_URL)."""

from __future__ import annotations

import base64
import hashlib
import http.server
import json
import sys
import threading
import zipfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from agent.bootstrap import load_all_tools, open_context
from agent.config import Settings
from agent.result import ToolResult

Call = Callable[..., ToolResult]


@pytest.fixture
def streamed() -> list[str]:
    return []


@pytest.fixture
def pcall(root: Path, streamed: list[str]) -> Iterator[Call]:
    ctx = open_context(root, settings=Settings(), on_output=streamed.append)
    registry = load_all_tools()
    yield lambda name, **args: registry.call(ctx, name, args)
    ctx.close()


def write(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def test_python_project(pcall: Call, root: Path) -> None:
    write(root, {
        "pyproject.toml": '[project]\nname = "demo"\nversion = "1.2.3"\ndependencies = ["requests>=2"]\n'
                          '[project.optional-dependencies]\ndev = ["pytest>=8"]\n[project.scripts]\ndemo = "demo:main"\n',
        "requirements-dev.txt": "# tools\nruff==0.6\n-e .\n",
        "demo/__init__.py": "def main(): pass\n", "tests/test_demo.py": "def test_x(): pass\n",
        ".venv/pyvenv.cfg": "home = /usr/bin\nversion = 3.11.7\n",
    })
    res = pcall("get_project_info")
    assert res.success, res.error
    assert "demo 1.2.3" in res.output and "requests>=2" in res.output and "extra [dev]: pytest>=8" in res.output
    assert "likely test command: python -m pytest" in res.output
    assert "virtualenv: .venv (Python 3.11.7)" in res.output
    assert res.data["languages"] == {"python": 2}
    assert res.data["manifests"][1]["dev_dependencies"] == ["ruff==0.6"]


def test_node_rust_go_and_broken_manifests(pcall: Call, root: Path) -> None:
    write(root, {
        "web/package.json": json.dumps({"name": "web", "version": "0.1.0", "dependencies": {"react": "^18"},
                                        "devDependencies": {"vitest": "^1"}, "scripts": {"test": "vitest run"}}),
        "web/pnpm-lock.yaml": "lockfileVersion: 9\n",
        "web/src/app.tsx": "export {}\n",
        "crate/Cargo.toml": '[package]\nname = "crab"\nversion = "0.3.0"\n[dependencies]\nserde = "1"\n',
        "gomod/go.mod": "module example.com/m\n\ngo 1.22\n\nrequire (\n\tgithub.com/x/y v1.0.0\n\tgolang.org/z v0.1.0 // indirect\n)\n",
        "broken/package.json": "{not json",
    })
    web = pcall("get_project_info", path="web")
    assert "web 0.1.0" in web.output and "(node, pnpm)" in web.output and "likely test command: pnpm test" in web.output
    assert web.data["languages"] == {"typescript": 1}
    crate = pcall("get_project_info", path="crate")
    assert "crab 0.3.0" in crate.output and "serde" in crate.output and "cargo test" in crate.output
    go = pcall("get_project_info", path="gomod")
    assert "example.com/m go 1.22" in go.output and "github.com/x/y v1.0.0" in go.output
    assert "go test ./..." in go.output
    broken = pcall("get_project_info", path="broken")
    assert broken.success and "not valid JSON" in broken.output
    assert not pcall("get_project_info", path="../").success
    assert "no manifest found" in pcall("get_project_info", path="web/src").output


def _wheel(folder: Path) -> Path:
    """A minimal pure-Python wheel, built by hand so the test needs no build backend."""
    name = "tinypkg-1.0-py3-none-any.whl"
    files = {"tinypkg/__init__.py": b"VALUE = 42\n",
             "tinypkg-1.0.dist-info/METADATA": b"Metadata-Version: 2.1\nName: tinypkg\nVersion: 1.0\n",
             "tinypkg-1.0.dist-info/WHEEL": b"Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\n"
                                            b"Tag: py3-none-any\n"}
    record = []
    for path, data in files.items():
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        record.append(f"{path},sha256={digest},{len(data)}")
    record.append("tinypkg-1.0.dist-info/RECORD,,")
    files["tinypkg-1.0.dist-info/RECORD"] = ("\n".join(record) + "\n").encode()
    path = folder / "simple" / "tinypkg" / name
    path.parent.mkdir(parents=True)
    with zipfile.ZipFile(path, "w") as zf:
        for rel, data in files.items():
            zf.writestr(rel, data)
    (path.parent / "index.html").write_text(f'<html><body><a href="{name}">{name}</a></body></html>')
    return path


@pytest.fixture
def index_url(tmp_path: Path) -> Iterator[str]:
    served = tmp_path / "index"
    _wheel(served)

    class Handler(http.server.SimpleHTTPRequestHandler):
        def __init__(self, *args: Any, **kw: Any) -> None:
            super().__init__(*args, directory=str(served), **kw)

        def log_message(self, *args: Any) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/simple/"
    server.shutdown()
    server.server_close()


def test_install_dependencies_creates_the_venv_and_honours_the_mirror(
        pcall: Call, root: Path, index_url: str, streamed: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", f"{Path(sys.executable).parent}:{__import__('os').environ['PATH']}")
    monkeypatch.setenv("PIP_INDEX_URL", index_url)
    monkeypatch.setenv("PIP_NO_CACHE_DIR", "1")  # not in the allow-list: must not matter
    write(root, {"requirements.txt": "tinypkg==1.0\n"})
    res = pcall("install_dependencies")
    assert res.success, res.output
    steps = [s["step"] for s in res.data["steps"]]
    assert steps == ["create the virtualenv .venv", "pip install -r requirements.txt"]
    installed = list((root / ".venv").glob("lib/python*/site-packages/tinypkg/__init__.py"))
    assert installed and installed[0].read_text() == "VALUE = 42\n"
    assert "Successfully installed tinypkg-1.0" in "".join(streamed)
    assert "## pip install -r requirements.txt: exit code 0" in res.output
    # the new venv is what later commands use
    (root / "use.py").write_text("import tinypkg\nprint('value', tinypkg.VALUE)\n")
    res = pcall("run_command", argv=["python", "use.py"])
    assert "value 42" in res.output, res.output


def test_install_dependencies_without_manifest_fails_clearly(pcall: Call) -> None:
    res = pcall("install_dependencies")
    assert not res.success and "no manifest" in (res.error or "")
