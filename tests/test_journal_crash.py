"""Edits survive crashes and races, and undo works after one: a real process is SIGKILLed in the
middle of a multi-file operation (from the progress seam `on_file_written`, and from an audit hook
just before a rename, while a temp file exists), then the real `codeagent undo` restores exactly
the files that were written, without --force, and leaves no temp file; a concurrent writer between
planning and writing makes the whole operation refused and rolled back."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from clikit import Cli, killed_cli_command

from agent.errors import JournalError, StaleFileError
from agent.result import FileEdit
from agent.workspace import TEMP_SUFFIX, Workspace

FILES = 50


@pytest.fixture(autouse=True)
def journal_key(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A key of this test's own, shared by this process and every subprocess it starts."""
    key = tmp_path / "keys" / "journal.key"
    monkeypatch.setenv("CODEAGENT_JOURNAL_KEY", str(key))
    return key


def _name(i: int) -> str:
    return f"pkg/m{i:02d}.py" if i % 2 else f"m{i:02d}.py"  # two folders: the temp sweep covers both


def _populate(root: Path, n: int = FILES) -> dict[str, bytes]:
    (root / "pkg").mkdir(exist_ok=True)
    out = {}
    for i in range(1, n + 1):
        data = f"# original {i}\nvalue = {i}\n".encode()
        (root / _name(i)).write_bytes(data)
        out[_name(i)] = data
    return out


def _new(i: int) -> str:
    return f"# rewritten {i}\nvalue = {i * 100}\n"


def _temps(root: Path) -> list[Path]:
    return [p for p in root.rglob("*") if p.name.endswith(TEMP_SUFFIX)]


def _journal_files(root: Path) -> list[str]:
    folder = root / ".codeagent" / "journal"
    return sorted(p.name for p in folder.iterdir() if p.name != ".lock") if folder.is_dir() else []


# A 50-file edit in a real process that SIGKILLs itself: from the progress seam after file N is in
# place ("callback"), or from an audit hook just before file N's temp file is renamed over it
# ("rename"; the temp file is then left behind, as a crash at that moment leaves it).
KILLED_APPLY = textwrap.dedent("""
    import os, signal, sys
    from agent.result import FileEdit
    from agent.workspace import Workspace
    root, n, seam, count = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4])
    names = [f"pkg/m{i:02d}.py" if i % 2 else f"m{i:02d}.py" for i in range(1, count + 1)]
    edits = [FileEdit(name, f"# rewritten {i}\\nvalue = {i * 100}\\n", check_old=False)
             for i, name in enumerate(names, 1)]
    edits.append(FileEdit("new/folder/made.py", "made = True\\n", check_old=False))  # created last
    def on_file_written(path, written):
        if seam == "callback" and written == n:
            os.kill(os.getpid(), signal.SIGKILL)
    renames = 0
    def hook(event, args):
        global renames
        if seam == "rename" and event == "os.rename" and "/.codeagent/" not in str(args[1]):
            renames += 1
            if renames == n:
                os.kill(os.getpid(), signal.SIGKILL)
    sys.addaudithook(hook)
    Workspace(root).apply(edits, operation="big patch", on_file_written=on_file_written)
    print("not killed")
""")


def _run_killed(root: Path, n: int, seam: str, count: int = FILES) -> None:
    proc = subprocess.run([sys.executable, "-c", KILLED_APPLY, str(root), str(n), seam, str(count)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == -signal.SIGKILL, proc.stdout + proc.stderr


@pytest.mark.parametrize(("seam", "n", "written"), [("callback", 17, 17), ("callback", 1, 1),
                                                     ("rename", 23, 22), ("callback", FILES, FILES)])
def test_kill_9_mid_patch_then_plain_undo_restores_exactly_what_was_written(
        root: Path, cli: Callable[..., Cli], seam: str, n: int, written: int) -> None:
    original = _populate(root)
    _run_killed(root, n, seam)
    # the crash left files 1..written rewritten, the rest as they were, each file whole
    for i in range(1, FILES + 1):
        expect = _new(i).encode() if i <= written else original[_name(i)]
        assert (root / _name(i)).read_bytes() == expect, _name(i)
    assert not (root / "new").exists() or not any((root / "new").rglob("*.py"))
    if seam == "rename":
        assert [p.name for p in _temps(root)], "the kill before the rename should have left a temp file"

    r = cli("undo", "--root", str(root))
    assert r.returncode == 0, r.stderr
    assert f"wrote {written} of {FILES + 1} files" in r.stderr  # the recovery says what it found
    for name, data in original.items():
        assert (root / name).read_bytes() == data, name
    assert _temps(root) == []
    assert not (root / "new").exists()  # the folders made for the unwritten file went too
    assert _journal_files(root) == []
    assert cli("undo", "--root", str(root)).returncode == 1  # nothing left to undo


def test_kill_before_the_first_file_leaves_nothing_to_undo(root: Path, cli: Callable[..., Cli]) -> None:
    original = _populate(root, 5)
    _run_killed(root, 1, "rename", count=5)
    assert len(_temps(root)) == 1
    r = cli("undo", "--root", str(root))
    assert r.returncode == 1 and "nothing to undo" in r.stderr, r.stderr
    assert {n: (root / n).read_bytes() for n in original} == original
    assert _temps(root) == [] and _journal_files(root) == []


def test_the_next_apply_recovers_an_interrupted_operation(root: Path) -> None:
    """Recovery also runs before the next write, not only before undo: the later edit stacks on the
    shrunk entry, and two undos walk back to the original."""
    original = _populate(root, 6)
    _run_killed(root, 4, "rename", count=6)
    ws = Workspace(root)
    ws.apply([FileEdit(_name(1), "later\n", check_old=False)], operation="later")
    assert any("wrote 3 of 7 files" in note for note in ws.recovered)
    assert _temps(root) == []
    assert ws.undo().operation == "later"
    assert ws.undo().operation == "big patch"
    assert {n: (root / n).read_bytes() for n in original} == original


def test_a_concurrent_writer_between_planning_and_writing_refuses_the_whole_operation(root: Path) -> None:
    original = _populate(root, 10)
    ws = Workspace(root)
    theirs = b"# the user's editor saved this meanwhile\n"

    def concurrent_writer(path: str, written: int) -> None:
        if written == 4:
            (root / _name(5)).write_bytes(theirs)  # the next file, after it was planned

    edits = [FileEdit(_name(i), _new(i), check_old=False) for i in range(1, 11)]
    with pytest.raises(StaleFileError, match=rf"{_name(5)}: changed by someone else"):
        ws.apply(edits, operation="patch", on_file_written=concurrent_writer)
    for i in range(1, 11):
        assert (root / _name(i)).read_bytes() == (theirs if i == 5 else original[_name(i)]), _name(i)
    assert _journal_files(root) == []  # no entry, no progress file
    with pytest.raises(JournalError, match="nothing to undo"):
        ws.undo()


def test_a_file_changed_after_being_written_is_kept_by_the_rollback(root: Path) -> None:
    """A rollback does not overwrite someone's change either: it names the file and leaves it."""
    original = _populate(root, 4)
    ws = Workspace(root)

    def writer(path: str, written: int) -> None:
        if written == 2:
            (root / _name(1)).write_bytes(b"edited after we wrote it\n")  # already written by us
            (root / _name(3)).write_bytes(b"edited before we wrote it\n")

    edits = [FileEdit(_name(i), _new(i), check_old=False) for i in range(1, 5)]
    with pytest.raises(StaleFileError, match=rf"{_name(3)}: changed.*kept as they are: {_name(1)}"):
        ws.apply(edits, operation="patch", on_file_written=writer)
    assert (root / _name(1)).read_bytes() == b"edited after we wrote it\n"
    assert (root / _name(2)).read_bytes() == original[_name(2)]
    assert (root / _name(4)).read_bytes() == original[_name(4)]


HOLD_LOCK = textwrap.dedent("""
    import sys, time
    from agent.workspace import Workspace
    ws = Workspace(sys.argv[1])
    with ws.journal.locked():
        print("locked", flush=True)
        time.sleep(float(sys.argv[2]))
""")


def test_two_processes_never_interleave(root: Path) -> None:
    """While another process holds the workspace's journal lock, a write waits for it (and a
    bounded wait fails with a clear message instead of hanging)."""
    (root / "a.txt").write_text("a\n")
    proc = subprocess.Popen([sys.executable, "-c", HOLD_LOCK, str(root), "1.5"], stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None and proc.stdout.readline().strip() == "locked"
    ws = Workspace(root)
    with pytest.raises(JournalError, match="another process holds the edit journal's lock"), \
            ws.journal.locked(timeout=0.2):
        pass
    started = time.monotonic()
    ws.apply([FileEdit("a.txt", "A\n", check_old=False)], operation="t")
    assert time.monotonic() - started > 0.5  # it waited for the other process
    assert proc.wait(timeout=30) == 0
    proc.stdout.close()
    assert (root / "a.txt").read_text() == "A\n"


def _hooked_cli(kill_at: int, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1", "CODEAGENT_CONFIG": os.devnull}
    return subprocess.run(killed_cli_command(kill_at, *args), capture_output=True, text=True, timeout=180, env=env)


def _patch(names: list[str]) -> str:
    parts = []
    for i, name in enumerate(names, 1):
        parts.append(f"--- a/{name}\n+++ b/{name}\n@@ -1,2 +1,2 @@\n # original {i}\n-value = {i}\n"
                     f"+value = {i * 100}\n")
    return "".join(parts)


def test_kill_9_while_codeagent_tool_apply_patch_runs(root: Path, tmp_path: Path, cli: Callable[..., Cli]) -> None:
    original = _populate(root, 12)
    args = tmp_path / "patch.json"
    args.write_text(json.dumps({"patch": _patch([_name(i) for i in range(1, 13)])}))
    proc = _hooked_cli(7, "tool", "apply_patch", "--root", str(root), "--args", f"@{args}")
    assert proc.returncode == -signal.SIGKILL, proc.stdout + proc.stderr
    changed = [n for n in original if (root / n).read_bytes() != original[n]]
    assert len(changed) == 6 and len(_temps(root)) == 1  # six renamed into place, the seventh in a temp file
    r = cli("undo", "--root", str(root))
    assert r.returncode == 0, r.stderr
    assert "wrote 6 of 12 files" in r.stderr
    assert {n: (root / n).read_bytes() for n in original} == original
    assert _temps(root) == [] and _journal_files(root) == []


def test_kill_9_during_undo_then_undo_again_finishes(root: Path, cli: Callable[..., Cli]) -> None:
    original = _populate(root, 8)
    Workspace(root).apply([FileEdit(_name(i), _new(i), check_old=False) for i in range(1, 9)], operation="patch")
    proc = _hooked_cli(4, "undo", "--root", str(root))
    assert proc.returncode == -signal.SIGKILL, proc.stdout + proc.stderr
    assert sum((root / n).read_bytes() == original[n] for n in original) == 3  # three restored when killed
    r = cli("undo", "--root", str(root))
    assert r.returncode == 0, r.stderr
    assert "undo of" in r.stderr and "was interrupted" in r.stderr
    assert {n: (root / n).read_bytes() for n in original} == original
    assert _temps(root) == [] and _journal_files(root) == []
