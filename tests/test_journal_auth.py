"""Undo never trusts a journal entry blindly: entries carry an HMAC-SHA256 made with a per-user
key kept outside every workspace. A forged entry (what a sandboxed command or a cloned repository
could drop into .codeagent/journal/) is refused by `codeagent undo` and `undo --run`, nothing
written; a genuine one still never restores set-uid bits nor a path outside the workspace or
inside .git/ or .codeagent/."""

from __future__ import annotations

import base64
import json
import os
import stat
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from clikit import Cli

from agent.errors import JournalError, OutsideWorkspaceError, ProtectedPathError, UnauthenticatedEntryError
from agent.journal import JournalEntry, JournalFile
from agent.result import FileEdit, content_hash
from agent.workspace import Workspace

Snapshot = Callable[[Path], dict[str, Any]]


@pytest.fixture(autouse=True)
def journal_key(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    key = tmp_path / "keys" / "journal.key"
    monkeypatch.setenv("CODEAGENT_JOURNAL_KEY", str(key))
    return key


@pytest.fixture
def ws_root(tmp_path: Path) -> Path:
    """A workspace with one genuine entry of run `run-1` (a.txt rewritten)."""
    root = (tmp_path / "ws").resolve()
    root.mkdir()
    (root / "a.txt").write_text("a\n")
    Workspace(root).apply([FileEdit("a.txt", "A\n", check_old=False)], operation="edit", run_id="run-1")
    return root


def _forged(run_id: str | None = "run-1") -> dict[str, Any]:
    """An entry as an attacker writes it: restore a set-uid root shell and a git hook."""
    payload = base64.b64encode(b"#!/bin/sh\nid > /tmp/pwned\n").decode()
    return {"id": "99999999999999999999-abcdef", "operation": "edit", "run_id": run_id, "created": 0.0,
            "files": [{"path": "evil.sh", "old": payload, "new_hash": None, "mode": 0o4755},
                      {"path": ".git/hooks/pre-commit", "old": payload, "new_hash": None, "mode": 0o755}],
            "created_dirs": []}


def _drop(root: Path, text: str, entry_id: str = "99999999999999999999-abcdef") -> Path:
    path = root / ".codeagent" / "journal" / f"{entry_id}.json"
    path.write_text(text)
    return path


def _without_lock(snap: dict[str, Any]) -> dict[str, Any]:
    """The lock file (and the .gitignore beside it) undo creates to hold the lock."""
    return {k: v for k, v in snap.items() if not k.endswith((".lock", ".codeagent/.gitignore"))}


def _assert_refused(r: Cli) -> None:
    assert r.returncode == 1, (r.stdout, r.stderr)
    assert "unauthenticated" in r.stderr and "never replays it" in r.stderr, r.stderr
    assert "Traceback" not in r.stderr


@pytest.mark.parametrize("how", ["no mac (the format before signing)", "a made-up mac", "a genuine mac, edited body"])
def test_forged_entry_is_refused_by_undo_and_undo_run(
        ws_root: Path, cli: Callable[..., Cli], snapshot: Snapshot, how: str) -> None:
    genuine = next((ws_root / ".codeagent" / "journal").glob("*.json"))
    if how.startswith("no mac"):
        text = json.dumps(_forged())
    elif how == "a made-up mac":
        text = '{"mac":"' + "0" * 64 + '","entry":' + json.dumps(_forged(), sort_keys=True, separators=(",", ":")) + "}"
    else:  # a real entry's signature kept, its body changed to write elsewhere
        text = genuine.read_text().replace('"path":"a.txt"', '"path":"b.txt"')
        assert '"path":"b.txt"' in text
    _drop(ws_root, text)
    before = snapshot(ws_root)
    _assert_refused(cli("undo", "--root", str(ws_root)))
    _assert_refused(cli("undo", "--run", "run-1", "--root", str(ws_root)))
    _assert_refused(cli("undo", "--run", "run-1", "--force", "--root", str(ws_root)))
    assert snapshot(ws_root) == before  # nothing written: not evil.sh, not the hook, not even a.txt
    listed = cli("undo", "--list", "--json", "--root", str(ws_root))
    assert [e["status"] for e in listed.json["entries"]] == ["ok", "unauthenticated"]


def test_a_forged_entry_of_another_run_does_not_block_this_run(ws_root: Path, cli: Callable[..., Cli]) -> None:
    _drop(ws_root, json.dumps(_forged(run_id="someone-else")))
    r = cli("undo", "--run", "run-1", "--root", str(ws_root))
    assert r.returncode == 0, r.stderr
    assert (ws_root / "a.txt").read_text() == "a\n" and not (ws_root / "evil.sh").exists()


def test_an_entry_is_bound_to_its_workspace_and_its_id(ws_root: Path, tmp_path: Path, snapshot: Snapshot) -> None:
    """A genuine entry copied into another workspace (a repository shipping one), or renamed to
    another id, no longer verifies."""
    genuine = next((ws_root / ".codeagent" / "journal").glob("*.json"))
    other = (tmp_path / "other").resolve()
    (other / ".codeagent" / "journal").mkdir(parents=True)
    (other / "a.txt").write_text("A\n")
    (other / ".codeagent" / "journal" / genuine.name).write_bytes(genuine.read_bytes())
    before = snapshot(other)
    with pytest.raises(UnauthenticatedEntryError, match="signature does not match"):
        Workspace(other).undo()
    assert _without_lock(snapshot(other)) == before
    renamed = genuine.with_name("99999999999999999999-abcdef.json")
    renamed.write_bytes(genuine.read_bytes())
    with pytest.raises(UnauthenticatedEntryError, match="signature does not match"):
        Workspace(ws_root).undo()
    assert (ws_root / "a.txt").read_text() == "A\n"


@pytest.mark.parametrize("change", ["rewrite", "delete"])
def test_undo_never_restores_setuid_bits(root: Path, change: str) -> None:
    tool = root / "tool.sh"
    tool.write_text("#!/bin/sh\n")
    os.chmod(tool, 0o4755 | stat.S_ISGID | stat.S_ISVTX)
    ws = Workspace(root)
    ws.apply([FileEdit("tool.sh", None if change == "delete" else "#!/bin/sh\necho\n", check_old=False)],
             operation=change)
    ws.undo()
    assert tool.read_text() == "#!/bin/sh\n"
    assert stat.S_IMODE(tool.stat().st_mode) == 0o755


@pytest.mark.parametrize("bad", ["../outside/pwned.txt", ".git/hooks/pre-commit", ".codeagent/journal/x.json",
                                 "sub/.git/config"])
def test_a_signed_entry_naming_a_forbidden_path_is_refused(
        root: Path, cli: Callable[..., Cli], snapshot: Snapshot, bad: str) -> None:
    """Even an authenticated entry is re-validated path by path, and every entry of an undo before
    anything is written (here signed through the public API, as a bug or an older policy could
    have written it; a later, harmless entry of the same run is not undone either)."""
    (root / ".git" / "hooks").mkdir(parents=True)
    (root / "sub" / ".git").mkdir(parents=True)
    (root.parent / "outside").mkdir(exist_ok=True)
    (root / "ok.txt").write_text("now\n")
    ws = Workspace(root)
    entry = JournalEntry.new(operation="t", run_id="r")
    entry.files = [JournalFile("ok.txt", b"before\n", content_hash(b"now\n"), 0o644),
                   JournalFile(bad, b"#!/bin/sh\n", None, 0o755)]
    ws.journal.record(entry)
    ws.apply([FileEdit("later.txt", "x\n", check_old=False)], operation="later", run_id="r")
    before = snapshot(root.parent)
    r = cli("undo", "--run", "r", "--force", "--root", str(root))
    assert r.returncode == 1 and ("outside the workspace" in r.stderr or "never write" in r.stderr), r.stderr
    assert snapshot(root.parent) == before
    with pytest.raises((OutsideWorkspaceError, ProtectedPathError)):
        ws.undo(entry.id, force=True)
    assert snapshot(root.parent) == before


def test_the_key_is_made_0600_outside_the_workspace(root: Path, journal_key: Path) -> None:
    Workspace(root).apply([FileEdit("a.txt", "a\n", check_old=False)], operation="t")
    assert stat.S_IMODE(journal_key.stat().st_mode) == 0o600
    assert len(bytes.fromhex(journal_key.read_text().strip())) == 32


def test_a_key_inside_the_workspace_or_readable_by_others_is_refused(
        root: Path, monkeypatch: pytest.MonkeyPatch, journal_key: Path, snapshot: Snapshot) -> None:
    monkeypatch.setenv("CODEAGENT_JOURNAL_KEY", str(root / "shipped.key"))
    (root / "shipped.key").write_text("ab" * 32 + "\n")
    os.chmod(root / "shipped.key", 0o600)
    before = snapshot(root)
    with pytest.raises(JournalError, match="inside the workspace"):
        Workspace(root).apply([FileEdit("a.txt", "a\n", check_old=False)], operation="t")
    assert not (root / "a.txt").exists()
    monkeypatch.setenv("CODEAGENT_JOURNAL_KEY", str(journal_key))
    journal_key.parent.mkdir(parents=True)
    journal_key.write_text("cd" * 32 + "\n")
    os.chmod(journal_key, 0o644)
    with pytest.raises(JournalError, match="chmod 600"):
        Workspace(root).apply([FileEdit("a.txt", "a\n", check_old=False)], operation="t")
    assert {k: v for k, v in snapshot(root).items() if not k.startswith(".codeagent")} == before
    assert not list((root / ".codeagent" / "journal").glob("*.progress"))  # the refused operation left nothing


def test_list_says_unauthenticated_and_how_to_restore_by_hand(ws_root: Path, cli: Callable[..., Cli]) -> None:
    _drop(ws_root, json.dumps(_forged()))
    r = cli("undo", "--list", "--root", str(ws_root))
    assert r.returncode == 0, r.stderr
    lines = r.stdout.strip().splitlines()
    assert "[run run-1] edit: 1 file(s)" in lines[0]
    assert "UNAUTHENTICATED" in lines[1] and "restore by hand" in lines[1] and "delete it" in lines[1]


def test_files_planted_in_the_journal_folder_are_never_followed(
        ws_root: Path, tmp_path: Path, cli: Callable[..., Cli]) -> None:
    """A symlink planted as a genuine entry's progress file is not appended through; a FIFO
    planted as an entry does not hang undo; both say what they are."""
    folder = ws_root / ".codeagent" / "journal"
    genuine = next(folder.glob("*.json"))
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    (folder / f"{genuine.stem}.progress").symlink_to(victim)
    fifo = folder / "99999999999999999999-abcdef.json"
    os.mkfifo(fifo)
    listed = cli("undo", "--list", "--json", "--root", str(ws_root), timeout=60)
    assert listed.returncode == 0, listed.stderr
    assert [e["status"] for e in listed.json["entries"]] == ["ok", "unauthenticated"]
    assert "not a regular file" in listed.json["entries"][1]["problem"]
    r = cli("undo", "--root", str(ws_root), timeout=60)  # the newest "entry" is the FIFO: refused
    assert r.returncode == 1 and "not a regular file" in r.stderr, r.stderr
    fifo.unlink()
    r = cli("undo", "--root", str(ws_root), timeout=60)
    assert r.returncode == 0, r.stderr
    assert (ws_root / "a.txt").read_text() == "a\n"
    assert victim.read_text() == "precious\n"
