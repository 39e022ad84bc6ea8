"""The daemon never answers with old code, though the CLI no longer walks the code per call
(agent/daemon/codewatch.py): its own watch sees edits, replaced and deleted modules and new
folders, ignores bytecode and editor files, and falls back to comparing the code's stamp."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from agent.daemon.codewatch import CodeWatch


@pytest.fixture
def code(tmp_path: Path) -> Path:
    top = tmp_path / "pkg"
    (top / "sub").mkdir(parents=True)
    (top / "__init__.py").write_text("")
    (top / "sub" / "mod.py").write_text("X = 1\n")
    (top / "sub" / "q.scm").write_text("(x)\n")
    return top


@pytest.mark.parametrize("inotify", [True, False])
def test_ignores_bytecode_and_editor_files(code: Path, inotify: bool) -> None:
    watch = CodeWatch([code], inotify=inotify)
    assert watch.watching is inotify
    (code / "sub" / "__pycache__").mkdir()
    (code / "sub" / "__pycache__" / "mod.cpython-311.pyc").write_bytes(b"\0")
    (code / "sub" / ".mod.py.swp").write_text("swap")
    (code / "sub" / "mod.py~").write_text("backup")
    (code / "notes.txt").write_text("not code")
    assert not watch.changed()
    watch.close()


CHANGES = {
    "edit": lambda c: (c / "sub" / "mod.py").write_text("X = 2\n"),
    "query": lambda c: (c / "sub" / "q.scm").write_text("(y)\n"),
    "new module": lambda c: (c / "sub" / "new.py").write_text(""),
    "deleted module": lambda c: (c / "sub" / "mod.py").unlink(),
    "deleted folder": lambda c: shutil.rmtree(c / "sub"),
    "new folder": lambda c: (c / "other").mkdir(),
    # as `cp -p`, `tar x` or `rsync -t` leave it: the newest mtime of the code does not move
    "replaced by an older file": lambda c: (_older(c / "old.py"), os.replace(c / "old.py", c / "sub" / "mod.py")),
}


def _older(path: Path) -> None:
    path.write_text("X = 3\n")
    os.utime(path, ns=(1_000_000_000, 1_000_000_000))


@pytest.mark.parametrize("change", sorted(CHANGES))
def test_sees_every_change_of_code(code: Path, change: str) -> None:
    watch = CodeWatch([code])
    assert watch.watching and not watch.changed()
    CHANGES[change](code)
    assert watch.changed(), change
    assert watch.changed()  # (sticky: a daemon that saw a change never serves again)
    watch.close()


@pytest.mark.parametrize("change", ["edit", "new module", "query"])
def test_without_inotify_the_stamp_is_compared(code: Path, change: str) -> None:
    for path in code.rglob("*"):  # the stamp is the newest mtime: make it one of the past
        os.utime(path, ns=(2_000_000_000, 2_000_000_000))
    watch = CodeWatch([code], inotify=False)
    assert not watch.changed()
    CHANGES[change](code)
    assert watch.changed(), change
