"""Recognising an operation a crash interrupted (kill -9, power loss) and shrinking its journal
entry to what was really written, so that a plain `undo` restores exactly those files.

Runs under the journal lock, before every apply and undo: holding the lock proves no other
process is mid-operation, so every progress file left is a crash's. A progress file lists the
files renamed into place (`w`), those a rollback restored (`r`), and whether an undo had begun
(`u`). The one file that may have been renamed without being marked (the crash came between the
rename and the mark) is recognised by its hash. Only the temp files atomic_write may have made
for the entry's own files are removed: the journal knows those names; a tree-wide sweep for
`*.codeagent-tmp` would walk the whole repository and could delete files that are not ours.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from pathlib import Path

from .atomic import disk_hash, remove_empty, remove_temp_files
from .errors import WorkspaceError
from .journal import Journal, JournalEntry, JournalFile, Progress
from .result import content_hash

Resolve = Callable[[str], Path]


def recover(journal: Journal, resolve: Resolve) -> list[str]:
    """Settle every interrupted operation; returns one note per entry touched. Call with the lock held."""
    notes: list[str] = []
    for tmp in journal.leftover_temps():  # an entry being written when the crash came
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()
    for entry_id in journal.interrupted():
        if not journal.exists(entry_id):  # crashed before the entry was written, or after it was dropped
            journal.drop(entry_id)
            continue
        status = journal.status(entry_id)
        progress = journal.progress(entry_id)
        if status.entry is None or progress is None:
            continue  # unauthenticated: left alone (undo refuses it and says so); never rewritten by us
        entry = status.entry
        try:
            targets = {jf.path: resolve(jf.path) for jf in entry.files}
            dirs = [resolve(d) for d in entry.created_dirs]
        except WorkspaceError as exc:
            notes.append(f"interrupted operation {entry_id} left as it is: {exc}")
            continue
        remove_temp_files(targets.values())
        if progress.undoing:  # an undo was cut short: the next undo finishes it (restored files are skipped)
            journal.finish(entry_id)
            notes.append(f"an undo of {entry_id} ({entry.operation}) was interrupted; undoing it again skips "
                         "the files it had already restored")
            continue
        kept = _written(entry, progress, targets)
        remove_empty(dirs)
        if not kept:
            journal.drop(entry_id)
            notes.append(f"interrupted operation {entry_id} ({entry.operation}) had written no file; entry removed")
            continue
        total = len(entry.files)
        entry.files = kept
        journal.record(entry)
        journal.finish(entry_id)
        notes.append(f"interrupted operation {entry_id} ({entry.operation}) wrote {len(kept)} of {total} files; "
                     "its entry now holds those")
    return notes


def _written(entry: JournalEntry, progress: Progress, targets: dict[str, Path]) -> list[JournalFile]:
    """The entry's files the operation really replaced and that are not back to their old bytes."""
    marked = set(progress.written)
    positions = [i for i, jf in enumerate(entry.files) if jf.path in marked]
    in_flight = (positions[-1] + 1) if positions else 0  # files are written in order
    kept: list[JournalFile] = []
    for i, jf in enumerate(entry.files):
        current = disk_hash(targets[jf.path])
        old_hash = None if jf.old is None else content_hash(jf.old)
        if jf.path in marked and jf.path not in progress.restored:
            wrote = True
        else:
            wrote = i == in_flight and jf.path not in marked and current == jf.new_hash
        if wrote and current != old_hash:
            kept.append(jf)
    return kept
