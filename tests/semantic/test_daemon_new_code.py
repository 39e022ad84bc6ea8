"""A real daemon run from a copy of codeagent's code, which the test then changes the way an
editor, `git checkout`, `cp -p` or `pip install` would: the next call is answered by a daemon with
the new code, and an idle daemon whose code changed exits by itself. The CLI no longer walks the
code on each call to find out (agent/daemon/codewatch.py watches it); a warm call lists no folder
of it."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from clikit import Cli

from agent.daemon.client import process_alive

REPO = Path(__file__).resolve().parents[2]
PING = '"result": {"pid": os.getpid(), "root": str(self.root)}'
READ = "    result = _read_file(ctx, args)\n"


@pytest.fixture
def code(tmp_path: Path) -> Path:
    """A copy of agent/ and lsp_bridge/ that PYTHONPATH puts before the installed ones."""
    copy = tmp_path / "code"
    for name in ("agent", "lsp_bridge"):
        shutil.copytree(REPO / name, copy / name, ignore=shutil.ignore_patterns("__pycache__"))
    return copy


@pytest.fixture
def ws(tmp_path: Path, code: Path) -> Iterator[Path]:
    root = (tmp_path / "ws").resolve()
    root.mkdir()
    (root / "hello.txt").write_text("hello\n")
    yield root
    run(code, "daemon", "stop", "--root", str(root))


def run(code: Path, *args: str, prelude: str = "") -> Cli:
    """`codeagent ARGS` on the copy (`prelude` runs first, e.g. an audit hook)."""
    env = {**os.environ, "PYTHONPATH": str(code), "PYTHONDONTWRITEBYTECODE": "1", "CODEAGENT_CONFIG": os.devnull,
           "CODEAGENT_DAEMON_IDLE_TIMEOUT": "120"}
    script = f"import sys\n{prelude}\nfrom agent.cli import main\nsys.exit(main(sys.argv[1:]))\n"
    proc = subprocess.run([sys.executable, "-c", script, *args], capture_output=True, text=True, timeout=240,
                          env=env, cwd=code.parent)
    return Cli(proc.returncode, proc.stdout, proc.stderr)


def started(code: Path, root: Path) -> dict[str, object]:
    r = run(code, "daemon", "start", "--root", str(root), "--json")
    assert r.returncode == 0, r.stderr
    out: dict[str, object] = r.json
    return out


def replace(path: Path, old: str, new: str, *, keep_mtime: bool) -> None:
    """Replace `path` with an edited copy, through a rename (as git and pip do); with `keep_mtime`,
    the new file has the old one's mtime (as `cp -p`, `tar x` or `rsync -t` leave it), so the
    newest mtime of the code does not move."""
    text = path.read_text(encoding="utf-8")
    assert old in text, f"{path.name} no longer holds {old!r}: update this test"
    before = path.stat()
    tmp = path.with_name(path.name + ".new")
    tmp.write_text(text.replace(old, new), encoding="utf-8")
    if keep_mtime:
        os.utime(tmp, ns=(before.st_atime_ns, before.st_mtime_ns))
    os.replace(tmp, path)


def read_hello(code: Path, root: Path) -> dict[str, object]:
    """`codeagent tool read_file` of hello.txt: its result's data."""
    r = run(code, "tool", "read_file", "--root", str(root), "--args", json.dumps({"file_path": "hello.txt"}))
    assert r.returncode == 0 and "hello" in r.json["output"], r.stderr
    data: dict[str, object] = r.json["data"]
    return data


def test_a_replaced_module_restarts_the_daemon_and_the_call_gets_the_new_code(code: Path, ws: Path) -> None:
    first = started(code, ws)
    assert "edited" not in read_hello(code, ws)
    # read_file's module is replaced by one that marks its answers, with the old file's mtime
    replace(code / "agent" / "tools" / "files.py", READ, READ + '    result.data["edited"] = True\n', keep_mtime=True)
    assert read_hello(code, ws).get("edited") is True  # whoever answers runs the new file
    after = started(code, ws)
    assert after["pid"] != first["pid"]
    assert read_hello(code, ws).get("edited") is True  # (the new daemon too)


def test_an_idle_daemon_whose_code_changed_exits_and_the_next_is_new(code: Path, ws: Path) -> None:
    first = started(code, ws)
    pid = int(str(first["pid"]))
    replace(code / "agent" / "daemon" / "server.py", PING, '"result": {"pid": os.getpid(), "root": str(self.root), '
            '"edited": True}', keep_mtime=False)
    deadline = time.monotonic() + 30
    while process_alive(pid) and time.monotonic() < deadline:  # it looks at its watch every 2 s when idle
        time.sleep(0.1)
    assert not process_alive(pid), "the daemon still runs the code it started with"
    assert started(code, ws).get("edited") is True


AUDIT = """
import os
CODE = {code!r}
def hook(event, args):
    if event == "os.scandir" and str(args[0] if args else "").startswith(CODE):
        os.write(2, b"LISTED " + str(args[0]).encode() + b"\\n")
sys.addaudithook(hook)
"""


def test_a_warm_call_walks_no_folder_of_the_code(code: Path, ws: Path) -> None:
    started(code, ws)
    read_hello(code, ws)  # (this call tells the daemon these settings: the next takes the fast path)
    r = run(code, "tool", "read_file", "--root", str(ws), "--args", json.dumps({"file_path": "hello.txt"}),
            prelude=AUDIT.format(code=str(code)))
    assert r.returncode == 0 and "hello" in r.json["output"], r.stderr
    assert "LISTED" not in r.stderr, r.stderr
