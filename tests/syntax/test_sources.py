"""The index's fast file walk lists exactly the supported files `agent.walk.iter_files` would:
gitignore (nested, negated), always-skipped folders, virtualenvs, symlinks, temp files; and
never a fifo, which would block the parser's read."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from agent.syntax.languages import language_for
from agent.syntax.sources import source_files
from agent.walk import iter_files
from agent.workspace import TEMP_SUFFIX


def make_tree(root: Path) -> None:
    files = ["a.py", "b.txt", "pkg/c.ts", "pkg/d.tsx", "pkg/ignored.py", "pkg/sub/kept.py", "pkg/sub/e.js",
             "node_modules/m.js", "env/lib/site.py", ".venv/x.py", "build/out.py", "deep/er/f.go",
             f"g.py{TEMP_SUFFIX}", "noext", ".hidden.py", "UPPER.PY"]
    for rel in files:
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text("x = 1\n")
    (root / "env" / "pyvenv.cfg").write_text("home = /usr\n")
    (root / ".gitignore").write_text("build/\n*.py\n!/a.py\n!kept.py\n!.hidden.py\n!UPPER.PY\n!inner.py\n!leaves.py\n")
    (root / "pkg" / ".gitignore").write_text("!c.ts\n")
    (root / "inner.py").symlink_to(root / "a.py")
    outside = root.parent / f"{root.name}-outside.py"
    outside.write_text("y = 2\n")
    (root / "leaves.py").symlink_to(outside)
    (root / "linked_dir").symlink_to(root / "pkg", target_is_directory=True)


def test_source_files_agrees_with_the_workspace_walk(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    make_tree(root)
    real = os.path.realpath(root)
    listed = [rel for _abs, rel, _st in source_files(real)]
    expected = sorted(p.relative_to(real).as_posix() for p in iter_files(Path(real)) if language_for(p.name))
    assert sorted(listed) == expected
    assert "a.py" in listed and "inner.py" in listed and "pkg/sub/kept.py" in listed and ".hidden.py" in listed
    assert not {"pkg/ignored.py", "env/lib/site.py", "leaves.py", "build/out.py"} & set(listed)
    under = [rel for _abs, rel, _st in source_files(real, os.path.join(real, "pkg"))]
    assert sorted(under) == [r for r in expected if r.startswith("pkg/")]


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no fifos here")
def test_a_fifo_with_a_source_name_is_not_listed(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe.py")
    (tmp_path / "real.py").write_text("def f():\n    pass\n")
    assert [rel for _abs, rel, _st in source_files(str(tmp_path))] == ["real.py"]
