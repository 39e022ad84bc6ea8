"""A full disk (a real, small tmpfs filled to the last byte) gives a clear result, never a
traceback, and leaves no per-call folder behind: run through the real `codeagent tool` CLI."""

from __future__ import annotations

import errno
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agent.shell.sandbox import probe_bwrap

CODEAGENT = shutil.which("codeagent", path=str(Path(sys.executable).parent)) or "codeagent"


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A 4 MiB tmpfs mounted for the test (root only), unmounted afterwards."""
    if os.geteuid() != 0:
        pytest.skip("mounting a small tmpfs needs root")
    if probe_bwrap(shutil.which("bwrap")) is not None:
        pytest.skip("needs bubblewrap")
    mount = tmp_path / "small"
    mount.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", str(mount)], capture_output=True,
                          text=True)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.strip()}")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


def fill(folder: Path, *, leave_pages: int = 0) -> None:
    """Write until the file system has no byte left, then free `leave_pages` pages."""
    with open(folder / "filler", "wb", buffering=0) as fh:
        chunk = b"\0" * 65536
        while True:
            try:
                fh.write(chunk)
            except OSError as exc:
                assert exc.errno == errno.ENOSPC
                break
    for size in (4096, 1):
        with open(folder / f"filler-{size}", "wb", buffering=0) as fh:
            try:
                while True:
                    fh.write(b"\0" * size)
            except OSError:
                pass
    if leave_pages:
        filler = folder / "filler"
        os.truncate(filler, filler.stat().st_size - leave_pages * 4096)


def tool(root: Path, command: str, *, tmpdir: Path) -> tuple[int, dict[str, Any], str]:
    proc = subprocess.run([CODEAGENT, "tool", "run_shell_command", "--root", str(root), "--args",
                           json.dumps({"command": command})], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "TMPDIR": str(tmpdir), "CODEAGENT_CONFIG": os.devnull,
                               "CODEAGENT_SANDBOX": "bwrap"})
    return proc.returncode, json.loads(proc.stdout), proc.stderr


def call_dirs(tmpdir: Path) -> list[str]:
    return sorted(p.name for p in tmpdir.glob("codeagent-call-*"))


def test_full_tmpdir_is_a_clear_error_and_leaves_no_call_folder(small_disk: Path, tmp_path: Path) -> None:
    """One page is left free: Python's tempfile takes TMPDIR only when it can write a few bytes
    there (else it silently falls back to /tmp), and the call's spec (a long command) needs more."""
    root = tmp_path / "ws"
    root.mkdir()
    fill(small_disk, leave_pages=1)
    code, result, stderr = tool(root, "echo RAN # " + "x" * 20000, tmpdir=small_disk)
    assert code != 0 and result["success"] is False, result
    assert "cannot prepare the command: No space left on device" in result["error"], result
    assert "Traceback" not in stderr and "traceback" not in result.get("data", {})
    assert call_dirs(small_disk) == []


def test_full_workspace_keeps_the_result_and_leaves_no_call_folder(small_disk: Path, tmp_path: Path) -> None:
    """The output log cannot be written (the command's output is cut, so it would be kept): the
    command's own result still comes back, saying the log could not be saved."""
    root = small_disk / "ws"
    root.mkdir()
    (root / ".codeagent" / "shell").mkdir(parents=True)
    tmpdir = tmp_path / "tmp"
    tmpdir.mkdir()
    fill(small_disk)
    code, result, stderr = tool(root, "seq 1 400000; echo THE-END", tmpdir=tmpdir)
    assert "Traceback" not in stderr, stderr
    assert call_dirs(tmpdir) == []
    assert code == 0 and result["success"] is True, result
    assert "THE-END" in result["output"] and result["data"]["truncated"] is True
    assert "[the full output could not be saved: No space left on device]" in result["output"], result["output"]
    assert result["data"]["output_file"] is None
    assert call_dirs(tmpdir) == []
    assert list((root / ".codeagent" / "shell").glob("*.log")) == []
