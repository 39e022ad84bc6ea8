"""The Operations page's data and its one write: undo.

Entries come from the workspace's edit journal (`Journal.entries()`, `for_run()`, `get()`); undo goes
through `Workspace.undo_many`, the call `codeagent undo` makes, so it refuses what the CLI refuses
(a file changed since, an entry the journal will not vouch for) with the same message. The view
offers no `--force`: overriding a refusal stays a deliberate command-line act."""

from __future__ import annotations

import datetime as dt
import threading
from dataclasses import dataclass

from ..errors import CodeagentError
from ..journal import JournalEntry
from ..workspace import Workspace
from .diffs import Diff, entry_diff, parse

MAX_OPERATIONS = 200  # newest entries listed (the journal itself keeps at most 500)
_UNDO_LOCK = threading.Lock()  # one undo at a time, whatever the number of open tabs


@dataclass(slots=True)
class Operation:
    entry: JournalEntry
    diff: Diff
    unavailable: list[str]  # files whose written bytes are gone (changed since)

    @property
    def when(self) -> str:
        return dt.datetime.fromtimestamp(self.entry.created).strftime("%Y-%m-%d %H:%M:%S")

    @property
    def paths(self) -> list[str]:
        return [f.path for f in self.entry.files]


def operations(ws: Workspace, *, run_id: str | None = None, limit: int = MAX_OPERATIONS) -> tuple[list[Operation], int]:
    """Newest first, each with its diff; and how many entries there are in all."""
    entries = ws.journal.entries()
    total = len(entries)
    out: list[Operation] = []
    for i in range(len(entries) - 1, -1, -1):
        entry = entries[i]
        if run_id is not None and entry.run_id != run_id:
            continue
        if len(out) >= limit:
            break
        text, unknown = entry_diff(ws, entry, entries[i + 1:])
        out.append(Operation(entry, parse(text), unknown))
    return out, total


def operation(ws: Workspace, entry_id: str) -> Operation:
    entry = ws.journal.get(entry_id)  # raises JournalError for an id that is not one
    entries = ws.journal.entries()
    later = [e for e in entries if e.id > entry.id]
    text, unknown = entry_diff(ws, entry, later)
    return Operation(entry, parse(text), unknown)


@dataclass(slots=True)
class UndoOutcome:
    ok: bool
    message: str
    files: list[str]


def undo(ws: Workspace, *, entry_id: str | None = None, run_id: str | None = None) -> UndoOutcome:
    """Undo one operation or every operation of a run, as `codeagent undo [--run]` does."""
    with _UNDO_LOCK:
        try:
            if run_id is not None:
                entries = ws.journal.for_run(run_id)
                if not entries:
                    return UndoOutcome(False, f"nothing to undo for run {run_id!r}", [])
            elif entry_id is not None:
                entries = [ws.journal.get(entry_id)]
            else:
                return UndoOutcome(False, "say which operation or run to undo", [])
            ws.undo_many(entries)
        except (CodeagentError, OSError) as exc:
            return UndoOutcome(False, f"undo refused: {exc}", [])
    files = sorted({f.path for e in entries for f in e.files})
    what = "; ".join(f"{e.operation}" for e in entries)
    return UndoOutcome(True, f"undid {what}: {', '.join(files)}", files)
