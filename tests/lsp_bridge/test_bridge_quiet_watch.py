"""A request under a quiet folder watch: no disk scan runs beside it, and the files its answer
names are not stat'ed again while the watch vouches for them (nothing was queued when the
request began and nothing is queued once the answer is in). Links, unknown files and files in
unwatched folders are still stat'ed, and an edit made while the server computes is still seen:
the answer is refused as stale and the request repeated once the server has heard of it."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from bridgekit import copy_fixture, pos_of

from lsp_bridge import LspSession, SessionPool
from lsp_bridge.documents import DocumentStore, OpenDoc, stat_of
from lsp_bridge.positions import TextLines
from lsp_bridge.watch import FolderWatch

SUFFIXES = {".py": "python"}

pytestmark = pytest.mark.skipif(FolderWatch.create() is None, reason="no inotify here")


def _bump(path: Path, text: str) -> None:
    path.write_text(text)
    st = path.stat()  # same-tick writes: make the stat signature differ for sure
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000))


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "root"
    for rel in ("pkg/__init__.py", "pkg/a.py", "pkg/sub/b.py", "node_modules/dep/dep.py"):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(f"# {rel}\n")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "target.py").write_text("# linked to\n")
    (elsewhere / "hard.py").write_text("# hard-linked\n")
    os.symlink(elsewhere / "target.py", root / "pkg/link.py")
    os.link(elsewhere / "hard.py", root / "pkg/hard.py")
    return root


@pytest.fixture
def store(tree: Path) -> Iterator[DocumentStore]:
    store = DocumentStore(watch=True)
    store.take_snapshot(tree, SUFFIXES, 1000)
    assert store.watching
    yield store
    store.close()


def test_a_quiet_watch_needs_no_scan_and_vouches_until_something_changes(tree: Path, store: DocumentStore) -> None:
    assert store.quiet() and store.vouches()
    _bump(tree / "pkg/a.py", "x = 1\n")
    assert not store.vouches()  # the write queued its event: an edit during a request is seen
    assert not store.quiet()  # and the next request scans
    found = store.scan()
    assert set(found) == {tree / "pkg/a.py"}
    assert not store.quiet()  # found but not recorded yet: still a scan's business
    store.apply_scan(found)
    assert store.quiet() and store.vouches()
    # A scan begun after the quiet look may drain events whose changes are not recorded yet.
    store.scan()
    assert not store.vouches()
    assert store.quiet() and store.vouches()
    # An open document in a folder nobody watches is stat'ed by the quiet look, as a scan would.
    dep = tree / "node_modules/dep/dep.py"
    store.open[dep] = _doc(dep)
    assert store.quiet()
    _bump(dep, "changed = True\n")
    assert not store.quiet()
    assert set(store.scan()) == {dep}


def _doc(path: Path) -> OpenDoc:
    st = stat_of(path)
    assert st is not None
    return OpenDoc(path, "python", 1, "", TextLines(path.read_text()), st)


def test_links_unknown_files_and_unwatched_folders_are_not_trusted(tree: Path, store: DocumentStore) -> None:
    assert store.trusted(tree / "pkg/a.py") and store.trusted(tree / "pkg/sub/b.py")
    elsewhere = tree.parent / "elsewhere"
    for path in (tree / "pkg/link.py", tree / "pkg/hard.py", tree / "node_modules/dep/dep.py",
                 elsewhere / "target.py", tree / "pkg/not_there.py"):
        assert not store.trusted(path), path
    # Why: an edit through the other path raises no event in the linked file's folder.
    assert store.quiet()
    _bump(elsewhere / "target.py", "# edited through the target\n")
    _bump(elsewhere / "hard.py", "# edited through the other link\n")
    assert store.vouches()  # (the watch saw nothing: links are never taken on its word)
    # The quiet look and the scan stat the linked files themselves, so the server hears of it.
    assert not store.quiet()
    found = store.scan()
    assert set(found) == {tree / "pkg/link.py", tree / "pkg/hard.py"}
    store.apply_scan(found)
    assert store.quiet()
    # A file the store hears of outside a walk or scan is stat'ed until a scan has looked at it.
    new = tree / "pkg/new.py"
    new.write_text("y = 2\n")
    store.note_unchecked(new, stat_of(new))
    assert not store.trusted(new)
    store.apply_scan(store.scan())
    assert store.trusted(new)
    # A plain file replaced by a link stops being trusted once the scan sees the replacement.
    (tree / "pkg/a.py").unlink()
    os.symlink(elsewhere / "target.py", tree / "pkg/a.py")
    store.apply_scan(store.scan())
    assert not store.trusted(tree / "pkg/a.py")


# -- through a real basedpyright ------------------------------------------------------------------

@pytest.fixture(scope="module")
def quiet_proj(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = copy_fixture("pyproj", tmp_path_factory.mktemp("quiet"))
    build = root / "build"  # skipped by the bridge's walk (no watch there), read by the server
    build.mkdir()
    (build / "uses_area.py").write_text("from shapes.geometry import area_of\n\nBUILT = area_of\n")
    return root


@pytest.fixture(scope="module")
def session(quiet_proj: Path) -> Iterator[LspSession]:
    pool = SessionPool(request_timeout=120, ready_timeout=240)
    session = pool.get(quiet_proj, "python")
    assert session.ready(timeout=240)
    yield session
    pool.close_all()


def test_answered_files_in_watched_folders_are_not_stat_ed_again(session: LspSession, quiet_proj: Path) -> None:
    geometry = quiet_proj / "shapes/geometry.py"
    at = pos_of(geometry, "area_of", "def area_of")
    first = session.references(geometry, at)
    before = session._files.vouched_files
    again = session.references(geometry, at)
    assert again == first
    files = {loc.path for loc in again}
    built = quiet_proj / "build/uses_area.py"
    assert built in files and len(files) >= 5
    # Every answered file but the one in the unwatched build/ folder was taken on the watch's word.
    assert session._files.vouched_files - before == len(files) - 1
    # An unannounced edit before the request: the scan runs, nothing is vouched, the answer is new.
    labels = quiet_proj / "shapes/labels.py"
    original = labels.read_text(encoding="utf-8")
    try:
        _bump(labels, "# one line down\n" + original)
        assert not session._files.quiet()
        lines = {loc.range.start.line for loc in session.references(geometry, at) if loc.path == labels}
        assert lines == {3, 7, 11}
    finally:
        _bump(labels, original)
    assert session.references(geometry, at) == first


def test_an_edit_while_the_server_computes_is_seen(session: LspSession, quiet_proj: Path) -> None:
    """The edit lands after the request is written (on_sent), so the server answers from the old
    text: the queued event makes the bridge stat the answer's files, refuse it as stale, tell the
    server and ask again, on every run."""
    geometry = quiet_proj / "shapes/geometry.py"
    at = pos_of(geometry, "area_of", "def area_of")
    labels = quiet_proj / "shapes/labels.py"
    original = labels.read_text(encoding="utf-8")
    first = session.references(geometry, at)
    for shift in (1, 2, 0):
        assert session._files.quiet()  # the request starts under a quiet watch (no scan)
        edited: list[bool] = []

        def edit(text: str = "# down\n" * shift + original, edited: list[bool] = edited) -> None:
            if not edited:  # the first request only; the repeated one must see it
                edited.append(True)
                _bump(labels, text)
        found = session.references(geometry, at, on_sent=edit)
        assert edited == [True]
        assert {loc.range.start.line for loc in found if loc.path == labels} == {2 + shift, 6 + shift, 10 + shift}
    assert session.references(geometry, at) == first
