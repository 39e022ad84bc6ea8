"""The file a query points at is read once while it is unchanged (agent/semantic/target_docs.py):
a repeated query reuses the decoded text, and any write (in place with its mtime set back, a
replacement by rename, a write just now, a deletion) gives the text on disk, never a kept one."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from agent.bootstrap import open_context
from agent.errors import CodeagentError
from agent.semantic.target import resolve_target
from agent.semantic.target_docs import TargetDocs

OLD = 1_600_000_000  # seconds: long before now (past the racy window)
TEXT = "def greet(name):\n    return name\n"


def _write(path: Path, text: str, *, old: bool = True) -> None:
    path.write_text(text, encoding="utf-8")
    if old:
        os.utime(path, (OLD, OLD))


def _docs(ctx: object) -> TargetDocs:
    return ctx.service("semantic.target_docs", TargetDocs)  # type: ignore[attr-defined, no-any-return]


def test_an_unchanged_target_file_is_read_once_and_every_write_is_seen(tmp_path: Path) -> None:
    app = tmp_path / "app.py"
    _write(app, TEXT)
    time.sleep(2.1)  # past the racy window of the last change (its ctime: now)
    with open_context(tmp_path) as ctx:
        first = resolve_target(ctx, "app.py", 1, 5, None)
        again = resolve_target(ctx, "app.py", 1, 5, None)
        assert again.doc is first.doc and _docs(ctx).reused == 1
        assert resolve_target(ctx, "app.py", 1, 5, None).doc is first.doc and _docs(ctx).reused == 2
        assert (again.name, again.line_text()) == ("greet", "def greet(name):")

        # the same size, the old mtime put back: only the ctime tells (it cannot be set back)
        _write(app, TEXT.replace("greet", "hello"))
        assert app.stat().st_mtime_ns == OLD * 1_000_000_000 and app.stat().st_size == len(TEXT)
        edited = resolve_target(ctx, "app.py", 1, 5, None)
        assert edited.name == "hello" and edited.doc.hash != first.doc.hash

        # replaced by a rename (another inode), the old mtime kept
        new = tmp_path / "new.tmp"
        _write(new, TEXT.replace("greet", "salut"))
        new.replace(app)
        assert resolve_target(ctx, "app.py", 1, 5, None).name == "salut"

        # written just now: read afresh each time until it is older than the racy window
        reused = _docs(ctx).reused
        _write(app, TEXT.replace("greet", "howdy"), old=False)
        assert resolve_target(ctx, "app.py", 1, 5, None).name == "howdy"
        assert resolve_target(ctx, "app.py", 1, 5, None).name == "howdy"
        assert _docs(ctx).reused == reused

        app.unlink()
        with pytest.raises(CodeagentError, match="no such file"):
            resolve_target(ctx, "app.py", 1, 5, None)

