"""The sandbox also works when the agent itself runs as an ordinary user (here: nobody).
The other tests cover the agent running as whoever runs pytest (root on CI)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path

import pytest

import agent

NOBODY = 65534
SCRIPT = r"""
import json, sys
from pathlib import Path
from agent.config import ShellSettings
from agent.shell.runner import run_command
from agent.workspace import Workspace

root = Path(sys.argv[1])
out = {}
for backend in ("bwrap", "landlock"):
    res = run_command(ShellSettings(sandbox=backend), Workspace(root), ["sh", "-c",
        "id -u; echo hi > made-" + backend + "; touch /etc/x 2>/dev/null || echo etc-refused; "
        "grep CapEff /proc/self/status; (sleep 30.5151 &); echo end"],
        cwd=root, timeout=30, base_env={"PATH": "/usr/bin:/bin", "HOME": sys.argv[2]}, home=sys.argv[2])
    out[backend] = {"exit": res.exit_code, "output": res.output, "error": res.setup_error}
print(json.dumps(out))
"""


def test_sandbox_works_for_an_unprivileged_agent(tmp_path: Path) -> None:
    if os.geteuid() != 0:
        pytest.skip("already unprivileged: every other test covers this case")
    system_python = shutil.which("python3", path="/usr/bin:/bin")
    if system_python is None or shutil.which("bwrap") is None:
        pytest.skip("needs /usr/bin/python3 and bwrap")
    version = subprocess.run([system_python, "-c", "import sys; print(sys.version_info[:2])"],
                             capture_output=True, text=True).stdout.strip()
    if version != str(tuple(sys.version_info[:2])):
        pytest.skip(f"the system Python {version} cannot load this venv's compiled packages")
    base = Path(tempfile.mkdtemp(prefix="codeagent-nobody-"))
    try:
        root, home = base / "ws", base / "home"
        root.mkdir()
        home.mkdir()
        for path in (base, root, home):
            os.chown(path, NOBODY, NOBODY)
        script = base / "run.py"
        script.write_text(SCRIPT)
        paths = [str(Path(agent.__file__).parent.parent), sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]]
        env = {"PYTHONPATH": os.pathsep.join(paths), "PATH": "/usr/bin:/bin", "HOME": str(home), "LANG": "C.UTF-8"}
        done = subprocess.run([system_python, "-B", str(script), str(root), str(home)],
                              user=NOBODY, group=NOBODY, extra_groups=[], env=env, capture_output=True, text=True,
                              timeout=120, cwd=base)
        if done.returncode != 0 and ("ModuleNotFoundError" in done.stderr or "Permission denied" in done.stderr):
            pytest.skip(f"the checkout is not readable by an unprivileged user: {done.stderr.strip()[-200:]}")
        assert done.returncode == 0, done.stderr
        result = json.loads(done.stdout.strip().splitlines()[-1])
        for backend in ("bwrap", "landlock"):
            got = result[backend]
            assert got["error"] is None and got["exit"] == 0, got
            lines = got["output"].splitlines()
            assert lines[0] == str(NOBODY), got
            assert "etc-refused" in lines and "CapEff:\t0000000000000000" in lines and "end" in lines
            assert (root / f"made-{backend}").read_text() == "hi\n"
    finally:
        shutil.rmtree(base, ignore_errors=True)
