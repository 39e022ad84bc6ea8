"""kill -9 in the middle of `codeagent rename` (a real language server's rename across files),
then a plain `codeagent undo` restores exactly the files written, with no --force."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
from pathlib import Path

import pytest
from clikit import killed_cli_command
from semantic_helpers import copy_fixture, run_cli, tree

from agent.workspace import TEMP_SUFFIX


def test_kill_9_while_codeagent_rename_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CODEAGENT_JOURNAL_KEY", str(tmp_path / "journal.key"))
    root = copy_fixture("pyproj", tmp_path)
    before = tree(root)
    target = ["shapes/geometry.py:30:5", "compute_area", "--no-daemon", "--root", str(root), "--json"]
    planned = run_cli("rename", *target, "--dry-run")
    assert planned.returncode == 0, planned.stderr
    files = planned.json["data"]["files"]
    assert len(files) >= 3, files
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1", "CODEAGENT_CONFIG": os.devnull}
    # its own session: the language server it started goes with it
    proc = subprocess.Popen(killed_cli_command(2, "rename", *target), env=env, start_new_session=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        out, err = proc.communicate(timeout=300)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
    assert proc.returncode == -signal.SIGKILL, out.decode() + err.decode()
    changed = [p for p, data in tree(root).items() if before.get(p) != data and not p.endswith(TEMP_SUFFIX)]
    assert changed == [files[0]]  # the first file renamed into place, the second still a temp file
    assert any(p.endswith(TEMP_SUFFIX) for p in tree(root))

    r = run_cli("undo", "--root", str(root))
    assert r.returncode == 0, r.stderr
    assert f"wrote 1 of {len(files)} files" in r.stderr
    assert tree(root) == before  # every file as it was, and no temp file left
