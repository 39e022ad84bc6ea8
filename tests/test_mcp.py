"""`codeagent mcp` as a real subprocess, driven by the official SDK's stdio client (and, for the
exit on a closed stdin, by raw JSON-RPC lines so the SDK's own kill fallback cannot hide a hang)."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client

from agent.bootstrap import load_all_tools

REPO = Path(__file__).resolve().parent.parent
PYPROJ = REPO / "fixtures" / "pyproj"
CALL_TIMEOUT = 240.0  # the first semantic call starts a language server; machines under load are slow
COMMAND = [shutil.which("codeagent", path=str(Path(sys.executable).parent)) or "codeagent"]


def _processes() -> dict[int, tuple[int, str]]:
    """pid -> (parent pid, command line) of every process we can see."""
    table: dict[int, tuple[int, str]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace").strip()
            status = (entry / "status").read_text()
        except OSError:
            continue
        ppid = next((int(line.split()[1]) for line in status.splitlines() if line.startswith("PPid:")), 0)
        table[int(entry.name)] = (ppid, cmdline)
    return table


def server_tree(root: Path) -> dict[int, str]:
    """The `codeagent mcp` process serving `root` and all its descendants (language servers
    change their working folder, so the tree is what finds them)."""
    table = _processes()
    tree = {pid: cmd for pid, (_, cmd) in table.items() if " mcp " in cmd and str(root) in cmd}
    grew = True
    while grew:
        grew = False
        for pid, (ppid, cmd) in table.items():
            if ppid in tree and pid not in tree:
                tree[pid] = cmd
                grew = True
    return tree


def still_running(seen: dict[int, str], timeout: float = 30.0) -> dict[int, str]:
    """Which of the processes seen earlier are still alive (same pid and command line)."""
    deadline = time.monotonic() + timeout
    while True:
        table = _processes()
        alive = {pid: cmd for pid, cmd in seen.items() if pid in table and table[pid][1] == cmd}
        if not alive or time.monotonic() > deadline:
            return alive
        time.sleep(0.2)


def with_session(root: Path, body: Callable[[ClientSession], Awaitable[Any]], *extra: str,
                 env: dict[str, str] | None = None) -> Any:
    """Start `codeagent mcp --root ROOT`, run `body` with an initialized session, then close."""
    params = StdioServerParameters(command=COMMAND[0], args=["mcp", "--root", str(root), *extra], cwd=str(root),
                                   env={**os.environ, "CODEAGENT_CONFIG": os.devnull, **(env or {})})

    async def main() -> Any:
        with open(root.parent / "server.log", "a") as errlog:
            async with stdio_client(params, errlog=errlog) as (read, write), \
                    ClientSession(read, write, read_timeout_seconds=CALL_TIMEOUT) as session:
                await session.initialize()
                return await body(session)

    return anyio.run(main)


def _text(result: Any) -> str:
    return "".join(c.text for c in result.content if getattr(c, "type", "") == "text")


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    (root / "src").mkdir(parents=True)
    (root / "src" / "app.py").write_text("def greet(name):\n    return f'hello {name}'\n\nprint(greet('x'))\n")
    (root / "notes.md").write_text("greet everyone\n")
    (root / "many.txt").write_text("".join(f"match line {i} " + "x" * 80 + "\n" for i in range(400)))
    (root / ".codeagent.toml").write_text("[mcp]\nmax_text_chars = 4000\nmax_structured_chars = 6000\n")
    return root.resolve()


def test_text_tools_errors_budget_and_schemas(project: Path) -> None:
    registry = load_all_tools()

    async def body(session: ClientSession) -> dict[str, Any]:
        listed = await session.list_tools()
        out: dict[str, Any] = {"tools": {t.name: t for t in listed.tools}}
        out["read"] = await session.call_tool("read_file", {"file_path": "src/app.py", "start_line": 1, "end_line": 2})
        out["search"] = await session.call_tool("search_in_files", {"pattern": "greet", "glob": "*.py"})
        out["bad_type"] = await session.call_tool("read_file", {"file_path": 42})
        out["missing"] = await session.call_tool("replace_in_file", {"file_path": "src/app.py"})
        out["unknown"] = await session.call_tool("no_such_tool", {})
        out["failed"] = await session.call_tool("read_file", {"file_path": "../outside.txt"})
        out["big"] = await session.call_tool("search_in_files", {"pattern": "match line", "max_results": 400})
        out["edit"] = await session.call_tool("replace_in_file", {"file_path": "notes.md", "old_text": "everyone",
                                                                  "new_text": "everybody"})
        out["alive"] = await session.call_tool("read_file", {"file_path": "notes.md"})
        out["tree"] = server_tree(project)
        return out

    out = with_session(project, body)
    tools = out["tools"]
    expected = {t.name: t for t in registry.tools("all")}
    assert set(tools) == set(expected)
    for name, tool in expected.items():
        assert tools[name].description == tool.description, name
        assert tools[name].input_schema == tool.parameters_schema(), name
    assert tools["read_file"].annotations.read_only_hint is True
    assert tools["apply_patch"].annotations.destructive_hint is True

    read = out["read"]
    assert not read.is_error and _text(read) == "1  def greet(name):\n2      return f'hello {name}'"
    assert read.structured_content["success"] is True and read.structured_content["data"]["total_lines"] == 4
    search = out["search"]
    assert _text(search).splitlines()[:2] == ["src/app.py:1: def greet(name):", "src/app.py:4: print(greet('x'))"]
    assert search.structured_content["data"]["total_matches"] == 2

    assert out["bad_type"].is_error and "file_path: Input should be a valid string" in _text(out["bad_type"])
    assert out["missing"].is_error and "old_text: Field required" in _text(out["missing"])
    assert out["unknown"].is_error and "unknown tool 'no_such_tool'" in _text(out["unknown"])
    assert out["failed"].is_error and "outside the workspace" in _text(out["failed"])
    assert out["failed"].structured_content["success"] is False

    big = out["big"]
    assert not big.is_error and len(_text(big)) < 4300
    assert "[the result was cut to 4000 characters; narrow the request" in _text(big)
    assert len(json.dumps(big.structured_content)) <= 6000 and "cut" in big.structured_content

    assert not out["edit"].is_error and (project / "notes.md").read_text() == "greet everybody\n"
    assert "-greet everyone\n+greet everybody" in _text(out["edit"])
    assert _text(out["alive"]) == "1  greet everybody"
    assert out["tree"], "the server process should have been found"
    assert still_running(out["tree"]) == {}


def test_toolset_choice(project: Path) -> None:
    async def body(session: ClientSession) -> set[str]:
        return {t.name for t in (await session.list_tools()).tools}

    names = with_session(project, body, "--tools", "text")
    assert names == {t.name for t in load_all_tools().tools("text")}
    assert "read_file" in names and not names & {t.name for t in load_all_tools().tools("semantic")
                                                   if t.toolset == "semantic"}


def _registered(name: str) -> None:
    if name not in load_all_tools().names():
        pytest.skip(f"{name} is not registered yet")


def test_semantic_tools_on_the_fixture_project(tmp_path: Path) -> None:
    _registered("find_references")
    _registered("rename_symbol")
    root = tmp_path / "pyproj"
    shutil.copytree(PYPROJ, root)
    root = root.resolve()
    notes: list[str] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        notes.append(message or "")

    async def body(session: ClientSession) -> dict[str, Any]:
        out: dict[str, Any] = {}
        out["refs"] = await session.call_tool(
            "find_references", {"file_path": "shapes/geometry.py", "line": 30, "column": 5},
            progress_callback=on_progress, read_timeout_seconds=CALL_TIMEOUT)
        out["during"] = server_tree(root)
        out["rename"] = await session.call_tool(
            "rename_symbol", {"file_path": "shapes/geometry.py", "line": 30, "column": 5, "new_name": "surface_of"},
            read_timeout_seconds=CALL_TIMEOUT)
        return out

    out = with_session(root, body)
    refs = out["refs"]
    assert not refs.is_error, _text(refs)
    files = {loc_file for loc_file in ("shapes/__init__.py", "shapes/labels.py", "shapes/registry.py",
                                       "tests/test_shapes.py") if loc_file in _text(refs)}
    assert files == {"shapes/__init__.py", "shapes/labels.py", "shapes/registry.py", "tests/test_shapes.py"}
    assert notes and notes[0].startswith("first semantic call")
    assert any("langserver" in cmd or "pyright" in cmd for cmd in out["during"].values()), out["during"]

    rename = out["rename"]
    assert not rename.is_error, _text(rename)
    labels = (root / "shapes" / "labels.py").read_text()
    assert "surface_of(circle)" in labels and "area_of" not in labels
    geometry = (root / "shapes" / "geometry.py").read_text()
    assert "def surface_of(" in geometry
    assert "area_of = shape.area()" in geometry  # the shadowing local is another symbol
    assert '"area_of"' in (root / "shapes" / "registry.py").read_text()  # strings are left alone
    # the model reads each changed line once (the full diff is in the structured result)
    assert "shapes/labels.py:3: from shapes.geometry import Circle, surface_of" in _text(rename)
    assert "+from shapes.geometry import Circle, surface_of" in rename.structured_content["data"]["diff"]
    left = still_running(out["during"])
    assert left == {}, f"processes left behind: {left}"


def _rpc(proc: subprocess.Popen[bytes], message: dict[str, Any]) -> None:
    assert proc.stdin is not None
    proc.stdin.write((json.dumps(message) + "\n").encode())
    proc.stdin.flush()


def _response(proc: subprocess.Popen[bytes], request_id: int) -> dict[str, Any]:
    assert proc.stdout is not None
    while True:
        line = proc.stdout.readline()
        assert line, "the server closed stdout"
        message = json.loads(line)
        if message.get("id") == request_id:
            return dict(message)


@pytest.mark.parametrize("how", ["close_stdin", "sigterm"])
def test_server_exits_cleanly_and_stops_its_language_server(tmp_path: Path, how: str) -> None:
    """The client closes stdin (the MCP way to end a stdio session) or the server gets SIGTERM:
    it exits with status 0 by itself, and the language server it started is gone."""
    _registered("find_references")
    root = tmp_path / "pyproj"
    shutil.copytree(PYPROJ, root)
    root = root.resolve()
    proc = subprocess.Popen([*COMMAND, "mcp", "--root", str(root)], cwd=root, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                            env={**os.environ, "CODEAGENT_CONFIG": os.devnull})
    try:
        _rpc(proc, {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "test", "version": "0"}}})
        assert _response(proc, 1)["result"]["serverInfo"]["name"] == "codeagent"
        _rpc(proc, {"jsonrpc": "2.0", "method": "notifications/initialized"})
        _rpc(proc, {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
            "name": "find_references", "arguments": {"file_path": "shapes/geometry.py", "line": 30, "column": 5}}})
        result = _response(proc, 2)["result"]
        assert result["isError"] is False and "shapes/labels.py" in result["content"][0]["text"]
        tree = server_tree(root)
        assert proc.pid in tree and len(tree) > 1, f"the semantic call should have started a language server: {tree}"
        assert proc.stdin is not None
        if how == "close_stdin":
            proc.stdin.close()
        else:
            proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=60) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        for pipe in (proc.stdin, proc.stdout):
            if pipe is not None and not pipe.closed:
                pipe.close()
    left = still_running(tree)
    assert left == {}, f"processes left behind: {left}"


def test_bad_root_is_a_usage_error(tmp_path: Path) -> None:
    proc = subprocess.run([*COMMAND, "mcp", "--root", str(tmp_path / "missing")], stdin=subprocess.DEVNULL,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and "is not a folder" in proc.stderr and proc.stdout == ""
