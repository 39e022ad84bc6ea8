"""The sandbox view is built from the user's environment, never from workspace content: a hostile
project virtualenv (bin linked to an outside folder, pyvenv.cfg naming an outside interpreter
home) shows nothing new, and the result says what was left out and how to allow it."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path

from shellkit import VENV_BIN

from agent.bootstrap import load_all_tools, open_context
from agent.config import Settings, ShellSettings
from agent.shell.runner import CommandResult

Run = Callable[..., CommandResult]


def hostile_venv(tmp_path: Path) -> tuple[Path, Path, Path]:
    """A workspace whose .venv/bin links to an outside folder holding a secret, and whose
    pyvenv.cfg names as interpreter home a bin folder beside another secret."""
    root = (tmp_path / "ws").resolve()
    outside_bin = tmp_path / "outside" / "bin"
    outside_bin.mkdir(parents=True)
    (outside_bin / "secret.txt").write_text("SECRET-IN-LINKED-BIN")
    (tmp_path / "outside" / "secret.txt").write_text("SECRET-BESIDE-LINKED-BIN")
    interp = tmp_path / "interp"
    (interp / "bin").mkdir(parents=True)
    (interp / "secret.txt").write_text("SECRET-IN-INTERPRETER-HOME")
    (interp / "bin" / "python3").write_text("#!/bin/sh\necho fake\n")
    venv = root / ".venv"
    venv.mkdir(parents=True)
    (venv / "bin").symlink_to(outside_bin)
    (venv / "pyvenv.cfg").write_text(f"home = {interp / 'bin'}\nversion = 3.11.0\n")
    return root, outside_bin, interp


def test_a_hostile_venv_shows_nothing_outside(tmp_path: Path, backend: str, run_in: Run) -> None:
    root, outside_bin, interp = hostile_venv(tmp_path)
    res = run_in(root, backend, f"cat {outside_bin}/secret.txt {outside_bin.parent}/secret.txt {interp}/secret.txt "
                                f".venv/bin/secret.txt; ls {interp} {outside_bin}; echo end")
    assert "end" in res.output
    assert "SECRET" not in res.output and "python3" not in res.output, res.output
    notes = "\n".join(res.notes)
    assert f"the workspace PATH folder .venv/bin leads to {outside_bin}" in notes, res.notes
    assert f"the workspace .venv names interpreter home {interp / 'bin'}, outside the visible toolchains" in notes
    assert "add it to shell.read_only_paths in your user config" in notes


def test_the_way_out_is_the_users_read_only_paths(tmp_path: Path, backend: str, run_in: Run) -> None:
    root, _outside_bin, interp = hostile_venv(tmp_path)
    res = run_in(root, backend, f"cat {interp}/secret.txt; echo end", read_only_paths=[str(interp)])
    assert "SECRET-IN-INTERPRETER-HOME" in res.output, res.output
    assert not any("interpreter home" in n for n in res.notes)


def test_a_venv_made_from_the_paths_python_still_works(tmp_path: Path, backend: str, run_in: Run) -> None:
    root = (tmp_path / "ws").resolve()
    root.mkdir()
    subprocess.run([str(Path(VENV_BIN) / "python3"), "-m", "venv", "--without-pip", str(root / ".venv")], check=True)
    res = run_in(root, backend, "python -c 'import sys, json; print(sys.prefix)'; .venv/bin/python -c 'print(6*7)'")
    assert res.exit_code == 0, res.output
    assert res.output.splitlines() == [str(root / ".venv"), "42"]
    assert res.notes == []


def test_the_tool_result_says_what_was_left_out(tmp_path: Path, backend: str) -> None:
    root, _outside_bin, interp = hostile_venv(tmp_path)
    ctx = open_context(root, settings=Settings(shell=ShellSettings(sandbox=backend)))  # type: ignore[arg-type]
    try:
        res = load_all_tools().call(ctx, "run_shell_command", {"command": f"cat {interp}/secret.txt; echo end"})
    finally:
        ctx.close()
    assert "SECRET" not in res.output and "end" in res.output
    assert f"[the workspace .venv names interpreter home {interp / 'bin'}" in res.output
