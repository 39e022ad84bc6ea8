"""The document store's change scan: with inotify folder watches only the files whose folder
reported an event are stat'ed, files and folders created later are found, and lost events fall
back to a full walk; without watches every known file is stat'ed (the old way, still correct for
edits)."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from lsp_bridge.documents import DocumentStore
from lsp_bridge.watch import FolderWatch

SUFFIXES = {".py": "python", ".pyi": "python"}

pytestmark = pytest.mark.skipif(FolderWatch.create() is None, reason="no inotify here")


def _tree(root: Path) -> None:
    for rel in ("pkg/__init__.py", "pkg/a.py", "pkg/sub/b.py", "tests/test_a.py", "README.md"):
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"# {rel}\n")


def _store(root: Path, watch: bool = True) -> DocumentStore:
    store = DocumentStore(watch=watch)
    store.take_snapshot(root, SUFFIXES, 1000)
    assert store.watching is watch
    return store


@pytest.fixture
def store(tmp_path: Path) -> Iterator[DocumentStore]:
    """A watched store over `_tree`, closed after the test."""
    _tree(tmp_path)
    watched = _store(tmp_path)
    yield watched
    watched.close()


def _bump(path: Path, text: str) -> None:
    path.write_text(text)
    st = path.stat()  # same-second writes: make the stat signature differ for sure
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000))


def test_edits_creations_and_deletions_are_found(tmp_path: Path, store: DocumentStore) -> None:
    assert store.scan() == {}
    _bump(tmp_path / "pkg/a.py", "x = 1\n")
    (tmp_path / "pkg/new.py").write_text("y = 2\n")
    (tmp_path / "tests/test_a.py").unlink()
    (tmp_path / "README.md").write_text("not a source file\n")
    found = store.scan()
    assert set(found) == {tmp_path / "pkg/a.py", tmp_path / "pkg/new.py", tmp_path / "tests/test_a.py"}
    assert found[tmp_path / "tests/test_a.py"] is None
    changed, deleted, created = store.apply_scan(found)
    assert (changed, deleted, created) == ([tmp_path / "pkg/a.py"], [tmp_path / "tests/test_a.py"],
                                           [tmp_path / "pkg/new.py"])
    assert store.scan() == {}  # recorded: nothing new


def test_new_folders_renames_and_removed_folders(tmp_path: Path, store: DocumentStore) -> None:
    (tmp_path / "pkg/deep/er").mkdir(parents=True)
    (tmp_path / "pkg/deep/er/c.py").write_text("c = 3\n")  # written before the scan watches the folder
    found = store.scan()
    assert set(found) == {tmp_path / "pkg/deep/er/c.py"}
    store.apply_scan(found)
    (tmp_path / "pkg/deep/er/d.py").write_text("d = 4\n")  # the new folder is watched now
    found = store.scan()
    assert set(found) == {tmp_path / "pkg/deep/er/d.py"}
    store.apply_scan(found)
    os.rename(tmp_path / "pkg/a.py", tmp_path / "pkg/a2.py")
    shutil.rmtree(tmp_path / "pkg/sub")
    (tmp_path / ".hidden").mkdir()
    (tmp_path / ".hidden/x.py").write_text("skipped\n")
    found = store.scan()
    assert {p for p, st in found.items() if st is None} == {tmp_path / "pkg/a.py", tmp_path / "pkg/sub/b.py"}
    assert {p for p, st in found.items() if st is not None} >= {tmp_path / "pkg/a2.py"}
    assert tmp_path / ".hidden/x.py" not in found


def test_unapplied_changes_are_reported_by_every_scan_until_recorded(tmp_path: Path, store: DocumentStore) -> None:
    """Two requests scanning at once: the second must not miss what the first drained."""
    _bump(tmp_path / "pkg/a.py", "x = 1\n")
    first = store.scan()
    second = store.scan()
    assert set(first) == set(second) == {tmp_path / "pkg/a.py"}
    store.apply_scan(first)
    assert store.scan() == {}


def test_lost_events_fall_back_to_a_full_walk(tmp_path: Path, store: DocumentStore) -> None:
    assert store._watch is not None
    store._watch.broken = True  # as after a queue overflow
    _bump(tmp_path / "pkg/sub/b.py", "b = 2\n")
    (tmp_path / "tests/test_new.py").write_text("t = 1\n")
    found = store.scan()
    assert set(found) == {tmp_path / "pkg/sub/b.py", tmp_path / "tests/test_new.py"}
    assert store.watching  # rebuilt
    changed, _deleted, created = store.apply_scan(found)
    assert changed == [tmp_path / "pkg/sub/b.py"] and created == [tmp_path / "tests/test_new.py"]
    _bump(tmp_path / "pkg/__init__.py", "z = 0\n")
    assert set(store.scan()) == {tmp_path / "pkg/__init__.py"}


def test_a_real_queue_overflow_is_survived(tmp_path: Path, store: DocumentStore) -> None:
    limit = int(Path("/proc/sys/fs/inotify/max_queued_events").read_text())
    if limit > 20_000:
        pytest.skip(f"queue limit {limit}: too many events to overflow in a test")
    target = tmp_path / "pkg/a.py"
    for i in range(limit + 100):
        os.utime(target, ns=(i, i))
    _bump(tmp_path / "pkg/sub/b.py", "b = 9\n")
    found = store.scan()
    assert tmp_path / "pkg/sub/b.py" in found and tmp_path / "pkg/a.py" in found


def test_without_watches_edits_are_still_found(tmp_path: Path) -> None:
    _tree(tmp_path)
    store = _store(tmp_path, watch=False)
    _bump(tmp_path / "pkg/a.py", "x = 1\n")
    (tmp_path / "tests/test_a.py").unlink()
    assert set(store.scan()) == {tmp_path / "pkg/a.py", tmp_path / "tests/test_a.py"}
