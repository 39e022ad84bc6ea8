"""The workspace sandbox: path refusals, atomic writes (kill -9), the journal and undo."""

from __future__ import annotations

import os
import signal
import stat
import subprocess
import sys
import textwrap
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from agent.errors import (
    FileTooLargeError,
    JournalError,
    NotAFileError,
    OutsideWorkspaceError,
    ProtectedPathError,
    StaleFileError,
)
from agent.result import FileEdit, ToolResult, content_hash
from agent.workspace import TEMP_SUFFIX, Workspace

Snapshot = Callable[[Path], dict[str, Any]]


@pytest.fixture
def jail(tmp_path: Path) -> tuple[Path, Path]:
    """A workspace `ws` with traps around it: a sibling `ws_evil` sharing its name as a prefix,
    an `outside` folder, and symlinks (file and folder) from inside pointing out."""
    base = tmp_path.resolve()
    root = base / "ws"
    (root / "src").mkdir(parents=True)
    (root / "src" / "ok.txt").write_text("inside\n")
    outside = base / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("secret\n")
    evil = base / "ws_evil"
    evil.mkdir()
    (evil / "f.txt").write_text("evil\n")
    (root / "link_file.txt").symlink_to(outside / "secret.txt")
    (root / "link_dir").symlink_to(outside)
    (root / "dangling").symlink_to(outside / "not_there.txt")
    (root / ".git").mkdir()
    (root / ".git" / "config").write_text("[core]\n")
    return root, base


def _escapes(base: Path) -> list[str]:
    return [
        "../outside/secret.txt",
        "src/../../outside/secret.txt",
        str(base / "outside" / "secret.txt"),
        str(base / "ws_evil" / "f.txt"),
        "../ws_evil/f.txt",
        "link_file.txt",
        "link_dir/secret.txt",
        "link_dir/new.txt",
        "dangling",
        f"/proc/self/root{base}/outside/secret.txt",
        "/proc/self/root/etc/hostname",
        "/etc/passwd",
        "~/secret.txt",
        "~",
        "src/ok.txt\x00.png",
    ]


@pytest.mark.parametrize("index", range(15))
def test_every_escape_is_refused_for_reads_and_writes(jail: tuple[Path, Path], snapshot: Snapshot, index: int) -> None:
    root, base = jail
    path = _escapes(base)[index]
    ws = Workspace(root)
    before = snapshot(base)
    with pytest.raises(OutsideWorkspaceError) as info:
        ws.resolve(path)
    assert repr(path)[1:-1][:20] in str(info.value) or path[:20] in str(info.value)
    with pytest.raises(OutsideWorkspaceError):
        ws.read(path)
    with pytest.raises(OutsideWorkspaceError):
        ws.apply([FileEdit(path, "pwned\n", check_old=False)], operation="attack")
    with pytest.raises(OutsideWorkspaceError):
        ws.apply([FileEdit("src/ok.txt", "changed\n", check_old=False), FileEdit(path, None, check_old=False)],
                 operation="attack")
    assert snapshot(base) == before


def test_git_and_tool_folder_are_never_written(jail: tuple[Path, Path], snapshot: Snapshot) -> None:
    root, base = jail
    (root / "sub" / ".git").mkdir(parents=True)
    ws = Workspace(root)
    before = snapshot(base)
    for path in (".git/config", ".git/hooks/pre-commit", "sub/.git/HEAD", ".codeagent/journal/x.json", ".git"):
        with pytest.raises(ProtectedPathError, match=r"\.git|\.codeagent"):
            ws.apply([FileEdit(path, "x", check_old=False)], operation="attack")
    assert snapshot(base) == before
    assert ws.read(".git/config").text == "[core]\n"  # reading is fine


def test_inside_paths_resolve_including_symlinks_within(jail: tuple[Path, Path]) -> None:
    root, _ = jail
    (root / "alias.txt").symlink_to(root / "src" / "ok.txt")
    ws = Workspace(root)
    assert ws.resolve("src/ok.txt") == root / "src" / "ok.txt"
    assert ws.resolve(str(root / "src" / "ok.txt")) == root / "src" / "ok.txt"
    assert ws.resolve("./src/../src/ok.txt") == root / "src" / "ok.txt"
    assert ws.resolve("") == root and ws.rel(".") == "."
    assert ws.read("alias.txt").text == "inside\n"
    # a file literally named with a tilde inside is fine; only a leading ~ is refused
    assert ws.rel("src/~backup") == "src/~backup"


def test_root_given_through_a_symlink_is_resolved(tmp_path: Path) -> None:
    real = tmp_path / "real"
    real.mkdir()
    (tmp_path / "alias").symlink_to(real)
    ws = Workspace(tmp_path / "alias")
    assert ws.root == real.resolve()
    ws.apply([FileEdit("a.txt", "a\n", check_old=False)], operation="t")
    assert (real / "a.txt").read_text() == "a\n"
    with pytest.raises(NotAFileError):
        Workspace(tmp_path / "missing")


def test_read_cap_and_errors(root: Path) -> None:
    (root / "big.txt").write_bytes(b"x" * 5000)
    (root / "dir").mkdir()
    ws = Workspace(root, max_read_bytes=4096)
    with pytest.raises(FileTooLargeError, match="5000 bytes is over the read limit of 4096"):
        ws.read("big.txt")
    with pytest.raises(NotAFileError):
        ws.read("dir")


def test_tool_folder_symlinked_out_is_refused(tmp_path: Path, snapshot: Snapshot) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    outside = tmp_path / "outside"
    outside.mkdir()
    (root / ".codeagent").symlink_to(outside)
    ws = Workspace(root)
    before = snapshot(outside)
    with pytest.raises(JournalError, match="symlink"):
        ws.apply([FileEdit("a.txt", "a\n", check_old=False)], operation="t")
    assert snapshot(outside) == before
    assert not (root / "a.txt").exists()


# ----------------------------------------------------------------- atomic writes


def test_write_keeps_mode_and_creates_with_umask(root: Path) -> None:
    script = root / "run.sh"
    script.write_text("#!/bin/sh\necho hi\n")
    script.chmod(0o751)
    ws = Workspace(root)
    ws.apply([FileEdit("run.sh", "#!/bin/sh\necho bye\n", check_old=False)], operation="t")
    assert stat.S_IMODE(script.stat().st_mode) == 0o751
    old = os.umask(0o027)
    try:
        ws.apply([FileEdit("new.txt", "n\n", check_old=False)], operation="t")
    finally:
        os.umask(old)
    assert stat.S_IMODE((root / "new.txt").stat().st_mode) == 0o640
    assert not [p for p in root.iterdir() if p.name.endswith(TEMP_SUFFIX)]


WRITER = textwrap.dedent("""
    import sys
    from agent.workspace import Workspace
    from agent.result import FileEdit
    ws = Workspace(sys.argv[1])
    names = [f"f{i}.bin" for i in range(4)]
    k = 0
    while True:
        k += 1
        edits = [FileEdit(n, chr(65 + k % 26) * (1_000_000 + 4096 * (k % 7)), check_old=False) for n in names]
        ws.apply(edits, operation=f"round {k}")
        print(k, flush=True)
""")


def test_kill_9_mid_write_leaves_no_torn_file(root: Path) -> None:
    """A real process rewrites 4 files of ~1 MB in a loop; SIGKILL at several moments; every
    file must be whole: one letter repeated, with one of the lengths the writer uses."""
    lengths = {1_000_000 + 4096 * r for r in range(7)}
    for attempt in range(4):
        proc = subprocess.Popen([sys.executable, "-c", WRITER, str(root)], stdout=subprocess.PIPE, text=True)
        assert proc.stdout is not None
        rounds = 0
        while rounds < 2 + attempt:  # let it get going, at a different point each time
            line = proc.stdout.readline()
            assert line, "the writer died on its own"
            rounds = int(line)
        time.sleep(0.013 * attempt)
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=60)
        proc.stdout.close()
        for i in range(4):
            data = (root / f"f{i}.bin").read_bytes()
            assert len(data) in lengths, f"attempt {attempt}: f{i}.bin has a torn length {len(data)}"
            assert data == data[:1] * len(data), f"attempt {attempt}: f{i}.bin mixes contents"


# ----------------------------------------------------------------- apply, journal, undo


def test_apply_is_all_or_nothing_when_an_edit_is_stale(root: Path, snapshot: Snapshot) -> None:
    (root / "a.txt").write_text("a\n")
    (root / "b.txt").write_text("b\n")
    ws = Workspace(root)
    a, b = ws.read("a.txt"), ws.read("b.txt")
    (root / "b.txt").write_text("changed behind our back\n")
    before = snapshot(root)
    with pytest.raises(StaleFileError, match="b.txt: the file changed since it was read"):
        ws.apply([ws.edit_for(a, "A\n"), ws.edit_for(b, "B\n")], operation="t")
    assert snapshot(root) == before
    with pytest.raises(StaleFileError, match="was created"):
        ws.apply([FileEdit("a.txt", "x", old_hash=None)], operation="t")


ROLLBACK = textwrap.dedent("""
    import resource, signal, sys
    from agent.workspace import Workspace
    from agent.result import FileEdit
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # an over-size write then fails with EFBIG
    resource.setrlimit(resource.RLIMIT_FSIZE, (100_000, 100_000))
    ws = Workspace(sys.argv[1])
    edits = [FileEdit("a.txt", "A\\n", check_old=False), FileEdit("new/d.txt", "d\\n", check_old=False),
             FileEdit("c.txt", "C" * 200_000, check_old=False)]
    try:
        ws.apply(edits, operation="t")
    except OSError as exc:
        print("failed:", exc.strerror)
""")


def test_apply_rolls_back_files_already_written_when_a_write_fails(root: Path, snapshot: Snapshot) -> None:
    """The third write fails for real (a file-size limit in the writing process, which even
    root cannot pass): the first two files are restored, the new folder and the entry removed."""
    (root / "a.txt").write_text("a\n")
    (root / "c.txt").write_text("c\n")
    before = snapshot(root)
    proc = subprocess.run([sys.executable, "-c", ROLLBACK, str(root)], capture_output=True, text=True, timeout=120)
    assert "failed: File too large" in proc.stdout, proc.stdout + proc.stderr
    after = snapshot(root)
    assert {k: v[0] for k, v in after.items() if not k.startswith(".codeagent")} == {
        k: v[0] for k, v in before.items()}
    assert not (root / "new").exists()
    assert not list((root / ".codeagent" / "journal").glob("*.json"))


def test_undo_single_and_multi_file(root: Path) -> None:
    (root / "a.txt").write_bytes(b"a\r\n")
    ws = Workspace(root)
    first = ws.apply([FileEdit("a.txt", "A\n", check_old=False)], operation="one")
    assert (root / "a.txt").read_bytes() == b"A\r\n"
    second = ws.apply([FileEdit("a.txt", "AA\n", check_old=False), FileEdit("n/e/w.txt", "w\n", check_old=False),
                       ], operation="two")
    assert first.entry_id < second.entry_id
    entry = ws.undo()
    assert entry.operation == "two"
    assert (root / "a.txt").read_bytes() == b"A\r\n"
    assert not (root / "n").exists()  # the folders the operation created went with it
    ws.undo()
    assert (root / "a.txt").read_bytes() == b"a\r\n"
    with pytest.raises(JournalError, match="nothing to undo"):
        ws.undo()


def test_undo_restores_deleted_file_with_mode(root: Path) -> None:
    f = root / "tool.sh"
    f.write_text("#!/bin/sh\n")
    f.chmod(0o700)
    ws = Workspace(root)
    ws.apply([FileEdit("tool.sh", None, check_old=False)], operation="delete")
    assert not f.exists()
    ws.undo()
    assert f.read_text() == "#!/bin/sh\n" and stat.S_IMODE(f.stat().st_mode) == 0o700


def test_undo_refuses_when_a_file_changed_since_and_force_overrides(root: Path, snapshot: Snapshot) -> None:
    (root / "a.txt").write_text("a\n")
    (root / "b.txt").write_text("b\n")
    ws = Workspace(root)
    ws.apply([FileEdit("a.txt", "A\n", check_old=False), FileEdit("b.txt", "B\n", check_old=False)], operation="p")
    (root / "b.txt").write_text("user's later work\n")
    before = snapshot(root)
    with pytest.raises(StaleFileError, match="b.txt: changed since operation"):
        ws.undo()
    assert snapshot(root) == before  # a.txt not restored either: an operation is undone whole or not at all
    ws.undo(force=True)
    assert (root / "a.txt").read_text() == "a\n" and (root / "b.txt").read_text() == "b\n"


def test_undo_many_checks_the_chain(root: Path) -> None:
    (root / "a.txt").write_text("0\n")
    ws = Workspace(root)
    for k in (1, 2, 3):
        ws.apply([FileEdit("a.txt", f"{k}\n", check_old=False)], operation=f"e{k}", run_id="run-1")
    ws.apply([FileEdit("other.txt", "x\n", check_old=False)], operation="other", run_id="run-2")
    entries = ws.journal.for_run("run-1")
    assert [e.operation for e in entries] == ["e3", "e2", "e1"]
    ws.undo_many(entries)
    assert (root / "a.txt").read_text() == "0\n"
    assert (root / "other.txt").exists()


def test_journal_records_old_bytes_and_hashes(root: Path) -> None:
    (root / "a.txt").write_bytes(b"\xef\xbb\xbfold\n")
    ws = Workspace(root)
    applied = ws.apply([FileEdit("a.txt", "new\n", check_old=False)], operation="op", run_id="r")
    entry = ws.journal.get(applied.entry_id)
    assert entry.operation == "op" and entry.run_id == "r"
    assert entry.files[0].old == b"\xef\xbb\xbfold\n"
    assert entry.files[0].new_hash == content_hash((root / "a.txt").read_bytes())
    assert (root / ".codeagent" / ".gitignore").read_text().strip().endswith("*")
    with pytest.raises(JournalError):
        ws.journal.get("../../etc/passwd")


def test_tool_result_helpers() -> None:
    ok = ToolResult.ok("out", files=["a"])
    assert ok.to_dict() == {"success": True, "output": "out", "error": None, "data": {"files": ["a"]}}
    bad = ToolResult.fail("why", hint=1)
    assert bad.to_dict() == {"success": False, "output": "", "error": "why", "data": {"hint": 1}}
