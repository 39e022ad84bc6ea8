"""What a user expects of the command line (issue 15, point 10), through the real `codeagent`
command: --version, completion scripts, tools with parameters, "no such run", the undo line,
colour only on a terminal, `servers status`, the daemon's process title, and read-only commands
leaving the workspace alone without the index cache."""

from __future__ import annotations

import json
import os
import pty
import select
import shutil
import subprocess
from pathlib import Path

import pytest
from clikit import codeagent_command
from semantic_helpers import DAEMON_IDLE, run_cli, stop_daemon

from agent import __version__

SOURCE = "def greet(name):\n    return 'hi ' + name\n\n\nprint(greet('x'))\n"
ESC = "\x1b["


def _on_terminal(*args: str, cwd: Path, env: dict[str, str] | None = None) -> str:
    """Run the CLI with stdout and stderr on a pseudo-terminal; what it printed."""
    master, slave = pty.openpty()
    full = {**os.environ, "CODEAGENT_CONFIG": os.devnull, "CODEAGENT_DAEMON_IDLE_TIMEOUT": DAEMON_IDLE,
            "TERM": "xterm-256color"}
    full.pop("NO_COLOR", None)
    full.update(env or {})
    proc = subprocess.Popen([*codeagent_command(), *args], cwd=cwd, stdin=subprocess.DEVNULL, stdout=slave,
                            stderr=slave, env=full)
    os.close(slave)
    chunks: list[bytes] = []
    while True:
        ready, _, _ = select.select([master], [], [], 240)
        if not ready:
            proc.kill()
            break
        try:
            data = os.read(master, 65536)
        except OSError:  # the child closed the terminal
            break
        if not data:
            break
        chunks.append(data)
    proc.wait(timeout=60)
    os.close(master)
    return b"".join(chunks).decode("utf-8", "replace")


def test_version(tmp_path: Path) -> None:
    res = run_cli("--version", cwd=tmp_path)
    assert res.returncode == 0 and res.stdout.strip() == f"codeagent {__version__}"


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_completion_scripts_come_from_the_parser(shell: str, tmp_path: Path) -> None:
    res = run_cli("completion", shell, cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    for word in ("refs", "rename", "completion", "--no-daemon", "--dry-run"):
        if shell == "fish" and word.startswith("--"):
            word = f"-l {word[2:]}"  # fish names long options so
        assert word in res.stdout, word
    program = shutil.which(shell)
    if program and shell != "fish":  # the script parses in its shell
        script = tmp_path / f"codeagent.{shell}"
        script.write_text(res.stdout, encoding="utf-8")
        check = subprocess.run([program, "-n", str(script)], capture_output=True, text=True, timeout=60)
        assert check.returncode == 0, check.stderr


def test_tools_lists_each_tools_parameters(tmp_path: Path) -> None:
    res = run_cli("tools", cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    lines = res.stdout.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("read_file "))
    assert lines[at + 1].split() [:4] == ["parameters:", "file_path:", "string", "(required),"]
    assert "start_line: integer = null" in lines[at + 1]
    schemas = run_cli("tools", "--json", cwd=tmp_path).json
    assert {s["function"]["name"] for s in schemas} >= {"read_file", "find_references"}


def test_unknown_run_ids_say_no_such_run(root: Path) -> None:
    undo = run_cli("undo", "--run", "20260101-000000-abcdef", "--root", str(root))
    assert undo.returncode == 1 and "no such run '20260101-000000-abcdef'" in undo.stderr
    replay = run_cli("replay", "nosuchrun", "--root", str(root))
    assert replay.returncode != 0 and "no such run 'nosuchrun'" in replay.stderr


def test_a_write_says_how_to_undo_it(root: Path, tmp_path: Path) -> None:
    res = run_cli("tool", "write_file", "--root", str(root), "--args",
                  json.dumps({"file_path": "new.py", "content": "x = 1\n"}), cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    assert res.stderr.strip().splitlines()[-1] == f"codeagent: undo this with `codeagent undo --root {root}`"
    json.loads(res.stdout)  # stdout stays one JSON object
    here = run_cli("tool", "read_file", "--args", json.dumps({"file_path": "new.py"}), cwd=root)
    assert "undo" not in here.stderr  # nothing written, nothing to undo
    assert run_cli("undo", "--root", str(root)).returncode == 0
    assert not (root / "new.py").exists()


def test_colour_on_a_terminal_only(root: Path) -> None:
    (root / "app.py").write_text(SOURCE, encoding="utf-8")
    args = ("refs", "app.py:1:5", "--no-daemon")
    coloured = _on_terminal(*args, cwd=root)
    assert f"{ESC}36m1:5{ESC}0m" in coloured and "app.py" in coloured
    plain = _on_terminal(*args, cwd=root, env={"NO_COLOR": "1"})
    assert ESC not in plain and "  1:5  def greet(name):" in plain
    piped = run_cli(*args, cwd=root)
    assert piped.returncode == 0 and ESC not in piped.stdout and "  1:5  def greet(name):" in piped.stdout
    diff = _on_terminal("rename", "app.py:1:5", "welcome", "--dry-run", "--no-daemon", cwd=root)
    assert f"{ESC}31m-def greet(name):" in diff and f"{ESC}32m+def welcome(name):" in diff


def test_servers_status_and_the_daemons_process_title(root: Path) -> None:
    (root / "app.py").write_text(SOURCE, encoding="utf-8")
    try:
        started = run_cli("daemon", "start", "--root", str(root))
        assert started.returncode == 0, started.stderr
        pid = int(run_cli("daemon", "status", "--root", str(root), "--json").json["pid"])
        title = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode().strip()
        assert title == f"codeagent daemon {root}"
        status = run_cli("servers", "status", "--root", str(root), "--json").json
        names = {s["name"]: s for s in status["servers"]}
        assert names["basedpyright"]["installed"] and names["tsc"]["version"].startswith("typescript@7")
        assert status["languages"]["typescript"] == {"server": "tsc", "command": None,
                                                     "fallback": "typescript-language-server"}
        mine = [d for d in status["daemons"] if d["root"] == str(root)]
        assert len(mine) == 1 and mine[0]["pid"] == pid and mine[0]["rss_mib"] > 1
        text = run_cli("servers", "status", "--root", str(root)).stdout
        assert f"pid {pid}" in text and "typescript tsc (falls back to typescript-language-server" in text
    finally:
        stop_daemon(root)


def test_read_only_commands_leave_no_tool_folder_without_the_cache(root: Path, tmp_path: Path) -> None:
    (root / "app.py").write_text(SOURCE, encoding="utf-8")
    config = tmp_path / "user.toml"
    config.write_text("[syntax]\nindex_cache = false\n", encoding="utf-8")
    env = {"CODEAGENT_CONFIG": str(config)}
    try:
        for args in (("refs", "greet"), ("def", "app.py:5:7"), ("refs", "app.py:1:5", "--no-daemon"),
                     ("tool", "find_symbol", "--args", '{"name": "greet"}'),
                     ("tool", "list_symbols", "--args", '{"path": "."}')):
            res = run_cli(*args, "--root", str(root), env=env)
            assert res.returncode == 0, (args, res.stderr)
            assert not (root / ".codeagent").exists(), args
    finally:
        stop_daemon(root)
