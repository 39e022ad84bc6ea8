"""`codeagent index` with nothing changed answers from the cache's walk snapshot without loading
tree-sitter (agent/commands/index_fast.py); any change to what a walk would find runs the full
refresh. Each command is a real `codeagent` process; each says whether tree-sitter was loaded."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from agent.commands.index_fast import GRAMMAR_MODULES, RACY_NS
from agent.syntax import index as index_module
from agent.syntax.languages import LANGUAGES

_RUN = """
import json, sys
from agent.cli import main
code = main(sys.argv[1:])
sys.stdout.flush()
print(json.dumps({"code": code, "tree_sitter": "tree_sitter" in sys.modules}), file=sys.stderr)
"""
OLD = time.time() - 10_000  # far from any walk's clock: no timestamp is "racy"


def index(root: Path, *extra: str, env: dict[str, str] | None = None) -> tuple[dict[str, object], bool]:
    """The JSON summary of `codeagent index --root ROOT --json`, and whether tree-sitter loaded."""
    done = subprocess.run([sys.executable, "-c", _RUN, "index", "--root", str(root), "--json", *extra],
                          capture_output=True, text=True, timeout=120, env=env)
    status = json.loads(done.stderr.strip().splitlines()[-1])
    assert status["code"] == 0, done.stderr
    return json.loads(done.stdout), status["tree_sitter"]


def age(root: Path) -> None:
    """Every file and folder's mtime set long ago (deepest first: a folder's own mtime last),
    and their ctimes (which a utime sets to now, and nothing can set back) let age past the
    racy window: the walk's stamps hold both (agent/treestamps.py)."""
    for folder, dirs, files in os.walk(root, topdown=False):
        for name in files + dirs:
            os.utime(os.path.join(folder, name), (OLD, OLD), follow_symlinks=False)
    os.utime(root, (OLD, OLD))
    time.sleep(RACY_NS / 1e9 + 0.1)


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    (root / "pkg").mkdir(parents=True)
    (root / "a.py").write_text("def alpha():\n    return 1\n")
    (root / "pkg" / "b.py").write_text("class Beta:\n    def run(self):\n        pass\n")
    (root / "pkg" / "c.js").write_text("function gamma() { return 3; }\n")
    (root / ".gitignore").write_text("build/\n")
    (root / ".codeagent").mkdir()  # (made by the first index otherwise: the root's mtime would be new)
    age(root)
    first, loaded = index(root)
    assert (first["files"], first["parsed"], loaded) == (3, 3, True)
    return root


def test_a_warm_index_does_not_load_tree_sitter(tree: Path) -> None:
    warm, loaded = index(tree)
    assert not loaded
    assert (warm["files"], warm["parsed"], warm["removed"], warm["problem"]) == (3, 0, 0, None)
    assert warm["cache"] == str(tree / ".codeagent" / "index" / "symbols.sqlite")
    text = subprocess.run([sys.executable, "-m", "agent.cli", "index", "--root", str(tree)],
                          capture_output=True, text=True, timeout=120)
    assert text.returncode == 0 and text.stdout.startswith("indexed 3 source files (0 parsed, 0 removed, 1 process)")


def test_a_changed_file_is_parsed_again(tree: Path) -> None:
    target = tree / "pkg" / "b.py"
    target.write_text("class Beta:\n    def run(self):\n        return 2\n")
    os.utime(target, (OLD + 5, OLD + 5))  # changed, and not racy: only the stat shows it
    changed, loaded = index(tree)
    assert loaded and (changed["files"], changed["parsed"]) == (3, 1)
    again, loaded = index(tree)
    assert not loaded and (again["files"], again["parsed"]) == (3, 0)


def test_a_created_file_is_indexed(tree: Path) -> None:
    (tree / "pkg" / "d.py").write_text("def delta():\n    pass\n")
    for path in (tree / "pkg" / "d.py", tree / "pkg"):  # not racy: only the folder's new mtime shows it
        os.utime(path, (OLD + 5, OLD + 5))
    created, loaded = index(tree)
    assert loaded and (created["files"], created["parsed"]) == (4, 1)


def test_a_deleted_file_is_removed(tree: Path) -> None:
    (tree / "pkg" / "c.js").unlink()
    os.utime(tree / "pkg", (OLD + 5, OLD + 5))
    deleted, loaded = index(tree)
    assert loaded and (deleted["files"], deleted["removed"]) == (2, 1)


def test_a_changed_gitignore_is_obeyed(tree: Path) -> None:
    ignore = tree / ".gitignore"
    ignore.write_text("build/\npkg/\n")
    os.utime(ignore, (OLD + 5, OLD + 5))
    after, loaded = index(tree)
    assert loaded and (after["files"], after["removed"]) == (1, 2)


def test_other_settings_or_a_racy_timestamp_take_the_full_path(tree: Path) -> None:
    env = {**os.environ, "CODEAGENT_SYNTAX__MAX_FILE_BYTES": "10"}  # a variable that feeds the settings
    other, loaded = index(tree, env=env)
    assert loaded and other["files"] == 3
    fresh = tree / "a.py"
    fresh.write_text("def alpha():\n    return 2\n")  # mtime now: too close to a check to trust
    os.utime(tree, (OLD, OLD))  # (so only the file's own timestamp can send it to the full path)
    racy, loaded = index(tree)
    assert loaded and racy["files"] == 3


def test_the_fast_path_knows_every_grammar() -> None:
    assert set(GRAMMAR_MODULES) == {spec.module for spec in LANGUAGES.values()} | {"tree_sitter"}
    assert RACY_NS == index_module.RACY_NS


def test_a_renamed_file_is_indexed_under_its_new_name(tree: Path) -> None:
    (tree / "pkg" / "b.py").rename(tree / "pkg" / "renamed.py")
    os.utime(tree / "pkg", (OLD + 5, OLD + 5))  # the file keeps its old stat: only the folder shows it
    time.sleep(RACY_NS / 1e9 + 0.1)  # (so that the full command's walk may leave a snapshot)
    renamed, loaded = index(tree)
    assert loaded and (renamed["files"], renamed["parsed"], renamed["removed"]) == (3, 1, 1)
    again, loaded = index(tree)
    assert not loaded and (again["files"], again["parsed"]) == (3, 0)


def test_a_file_replaced_with_the_same_size_and_mtime_is_parsed_again(tree: Path) -> None:
    target, other = tree / "a.py", tree / "other.txt"
    other.write_text("def omega():\n    return 1\n")  # as long as a.py's text
    os.utime(other, (OLD, OLD))
    other.replace(target)  # same size and mtime, another inode; the folder's mtime set back
    os.utime(tree, (OLD, OLD))
    replaced, loaded = index(tree)
    assert loaded and (replaced["files"], replaced["parsed"]) == (3, 1)


def test_the_console_script_answers_a_warm_index_without_the_cli_or_the_daemon_client(tree: Path) -> None:
    """The `codeagent` script (agent/entry.py) sends `index` to the fast path before anything
    else loads: neither agent.cli, nor the daemon client, nor tree-sitter is imported."""
    done = subprocess.run([sys.executable, "-X", "importtime", "-m", "agent.entry", "index", "--root", str(tree),
                           "--json"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    warm = json.loads(done.stdout)
    assert (warm["files"], warm["parsed"], warm["removed"]) == (3, 0, 0)
    imported = {line.rsplit("|", 1)[-1].strip() for line in done.stderr.splitlines() if "|" in line}
    assert "agent.commands.index_fast" in imported
    assert not {"agent.cli", "agent.commands.via_daemon", "tree_sitter"} & imported
    (tree / "a.py").write_text("def alpha():\n    return 22\n")  # changed (and racy): the full command runs
    done = subprocess.run([sys.executable, "-m", "agent.entry", "index", "--root", str(tree), "--json"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and json.loads(done.stdout)["parsed"] == 1, done.stderr


# The walk's stamps (agent/treestamps.py) hold each folder's and rule file's ctime, which no tool
# can set back: each change below leaves every mtime, size and inode the snapshot knew as it was.
def test_an_entry_added_with_its_folder_mtime_set_back_is_indexed(tree: Path) -> None:
    st = os.stat(tree / "pkg")
    (tree / "pkg" / "d.py").write_text("def delta():\n    pass\n")
    os.utime(tree / "pkg" / "d.py", (OLD, OLD))
    os.utime(tree / "pkg", ns=(st.st_atime_ns, st.st_mtime_ns))  # as tar, rsync -t or cp -p leave a folder
    created, loaded = index(tree)
    assert loaded and (created["files"], created["parsed"]) == (4, 1)


def test_a_gitignore_rewritten_to_the_same_size_and_mtime_is_obeyed(tree: Path) -> None:
    ignore = tree / ".gitignore"
    assert ignore.read_text() == "build/\n"
    ignore.write_text("pkg/\n#\n")  # as long, in place (the same inode); pkg/ is ignored now
    os.utime(ignore, (OLD, OLD))
    after, loaded = index(tree)
    assert loaded and (after["files"], after["removed"]) == (1, 2)


def test_a_virtualenv_marker_whose_target_outside_goes_away_is_walked_again(tmp_path: Path) -> None:
    root, outside = tmp_path / "proj", tmp_path / "outside"
    (root / "env2").mkdir(parents=True)
    outside.mkdir()
    (root / "a.py").write_text("def alpha():\n    return 1\n")
    (root / "env2" / "site.py").write_text("def in_venv():\n    pass\n")
    (outside / "venv.cfg").write_text("home = /usr\n")
    (root / "env2" / "pyvenv.cfg").symlink_to(outside / "venv.cfg")  # env2 is a virtualenv: not indexed
    (root / ".codeagent").mkdir()
    age(root)
    first, _ = index(root)
    warm, loaded = index(root)
    assert first["files"] == warm["files"] == 1 and not loaded  # (the snapshot is there)
    (outside / "venv.cfg").unlink()  # no folder of the tree changes: only the marker's stamp shows it
    after, loaded = index(root)
    assert loaded and (after["files"], after["parsed"]) == (2, 1)


def test_a_snapshot_in_the_older_layout_takes_the_full_path_and_is_replaced(tree: Path) -> None:
    """An index left by an older codeagent: its rows stay, its snapshot (folder mtimes) is not
    trusted, and the full command writes the stamps' layout (its key holds the build id anyway)."""
    cache = tree / ".codeagent" / "index" / "symbols.sqlite"
    db = sqlite3.connect(cache, isolation_level=None)
    data = json.loads(db.execute("SELECT data FROM walk_snapshot").fetchone()[0])
    old = {"folders": [[rel, stamp[1], stamp[3]] for rel, stamp in data["walk"]], "ignore_files": [],
           "files": data["files"]}
    db.execute("UPDATE walk_snapshot SET data = ?", (json.dumps(old),))
    db.close()
    full, loaded = index(tree)
    assert loaded and (full["files"], full["parsed"], full["removed"]) == (3, 0, 0)
    warm, loaded = index(tree)
    assert not loaded and warm["files"] == 3
