"""The rename engine: start from the language server's answer and complete it.

    plan_rename(server, workspace, path, position, new_name) -> EditPlan

For Python the server's answer is completed with: the stub/implementation counterparts of the
declaration (and everything typed through them), the method family (base declarations and
overrides, in tests too), parameters of those counterparts (keyword arguments follow), `__all__`
and `__slots__` entries, attribute names spelled as strings on the owning class, attribute
accesses the server types as the owning class, and import aliases renamed as the local names they
are. Every site carries its reason; occurrences no rule confirmed go to the review list. Other
languages get the server's answer plus the review list.
"""

from __future__ import annotations

import time
from pathlib import Path

from lsp_bridge.errors import BridgeError
from lsp_bridge.types import FileEdits, Position, Range

from ...errors import ToolFailure
from ...languages import suffixes_of
from ...syntax import language_for
from ...workspace import Workspace
from ..plan import EditPlan, location_of
from .collector import Collector
from .limits import RenameLimits
from .python_rename import PythonRename
from .review import review_items
from .server import SemanticServer, references_as_edits, refuse_outside
from .shorthands import fix_shorthands
from .sources import Sources

PY_SUFFIXES = suffixes_of(server="python")
ECMA_SUFFIXES = suffixes_of(server="typescript")


def plan_rename(server: SemanticServer, ws: Workspace, path: Path, pos: Position, new_name: str, *,
                initial: list[FileEdits] | None = None, limits: RenameLimits | None = None) -> EditPlan:
    """Every site a rename of the identifier at `pos` must change, with reasons, plus the review
    list. `initial` is the server's rename answer when the caller already has it. Raises
    RenameRefused (from the server) when the symbol cannot be renamed, ToolFailure for a bad target."""
    limits = limits or RenameLimits()
    real = ws.resolve(path)
    language = language_for(real) or ""
    suffixes = PY_SUFFIXES if language == "python" else ECMA_SUFFIXES
    sources = Sources(ws, suffixes=suffixes if real.suffix in suffixes else (real.suffix,),
                      max_files=limits.max_files)
    text = sources.text(real)
    if text is None:
        raise ToolFailure(f"{ws.rel(real)}: not a readable source file of the workspace")
    old = _identifier_at(text, pos)
    if old is None:
        raise ToolFailure(f"{ws.rel(real)}:{pos.line + 1}:{pos.character + 1}: no identifier there")
    rel = ws.display(real)
    plan = EditPlan("rename", old, new_name, language,
                    target=location_of(rel, Range(pos, Position(pos.line, pos.character + len(old)))))
    coll = Collector(new_name, old_name=old, rel=sources.rel)
    started = time.monotonic()
    _send_decoded(server, sources, old, plan.notes, limits.opened_files)
    review_only: Path | None = None
    embedded: list[tuple[Path, Position]] = []
    if language == "python":
        runner = PythonRename(server, sources, plan, coll, limits)
        runner.run(real, pos, initial)
        review_only, embedded = runner.review_only, runner.embedded_review
    else:
        if new_name == old:  # references mode
            answer = references_as_edits(server, real, pos, old)
        else:
            answer = initial if initial is not None else server.rename(real, pos, new_name)
            refuse_outside(sources, answer, old)
        coll.add_file_edits(answer, "lsp")
        if new_name != old:
            fix_shorthands(sources, coll, real, pos, old, new_name)
    _finish(plan, coll, sources, limits, review_only, embedded)
    plan.notes.append(f"planned in {time.monotonic() - started:.2f} s")
    return plan


def complete_references(server: SemanticServer, ws: Workspace, path: Path, pos: Position, *,
                        limits: RenameLimits | None = None) -> EditPlan:
    """Every reference to the symbol at `pos` that a rename would change, each with its reason
    (`lsp` = the server's own references), plus the review list: `find_references`, completed.
    Nothing in the returned plan changes text (each edit's new_text is the current name)."""
    text = ws.read(ws.resolve(path)).text
    old = _identifier_at(text, pos)
    if old is None:
        raise ToolFailure(f"{ws.rel(path)}:{pos.line + 1}:{pos.character + 1}: no identifier there")
    return plan_rename(server, ws, path, pos, old, limits=limits)


def _send_decoded(server: SemanticServer, sources: Sources, name: str, notes: list[str], limit: int) -> None:
    """A server reads the files it was not sent from disk as UTF-8: in a GBK or Latin-1 file it sees
    replacement characters (a broken parse, other columns than ours) and misses the uses there. Send
    it every such file that holds the name (at most `limit`), as the workspace decodes it, before it
    answers."""
    other = [path for path in sources.files_containing(name) if not sources.is_utf8(path)]
    for path in other[:limit]:
        try:
            server.sync(path)
        except BridgeError as exc:
            notes.append(f"could not send {sources.rel(path)} to the server: {exc}")
    if len(other) > limit:
        notes.append(f"{len(other) - limit} more non-UTF-8 file(s) holding {name!r} were not sent to the server; "
                     "it may miss uses there (the review list shows them)")


def _identifier_at(text: str, pos: Position) -> str | None:
    lines = text.split("\n")
    if not 0 <= pos.line < len(lines):
        return None
    line = lines[pos.line]
    start = end = pos.character
    if not 0 <= start < len(line) or not (line[start].isidentifier() or line[start].isdigit() or line[start] == "$"):
        return None
    while start > 0 and (line[start - 1] == "$" or ("a" + line[start - 1]).isidentifier()):
        start -= 1
    while end < len(line) and (line[end] == "$" or ("a" + line[end]).isidentifier()):
        end += 1
    return line[start:end] or None


def _finish(plan: EditPlan, coll: Collector, sources: Sources, limits: RenameLimits,
            review_only: Path | None, embedded: list[tuple[Path, Position]]) -> None:
    dropped = coll.drop(sources.in_workspace)
    if dropped:
        files = sorted({str(path) for path in dropped})
        plan.notes.append(f"left {len(dropped)} site(s) outside the workspace untouched: {', '.join(files[:5])}"
                          + (" ..." if len(files) > 5 else ""))
    outside_ops = [op for op in coll.file_ops if not sources.in_workspace(op.path)]
    if outside_ops:
        plan.notes.append(f"ignored {len(outside_ops)} file operation(s) outside the workspace")
    plan.file_ops = [op for op in coll.file_ops if sources.in_workspace(op.path)]
    plan.notes.extend(coll.conflicts[:10])
    plan.sites = coll.sites()
    # the hash each file had when the server (or, for the engine's own sites, the engine) read it
    hashes = {sources.rel(path): seen for path, seen in coll.seen_hashes.items()}
    for path in coll.by_path:
        entry = sources.read(path) if coll.by_path[path] else None
        if entry is not None:
            hashes.setdefault(sources.rel(path), entry[1])
    plan.hashes = hashes
    plan.review, plan.review_total = review_items(sources, coll, plan.old_name, plan.language,
                                                  limit=limits.review_items, only=review_only, embedded=embedded)
    if sources.truncated:
        plan.notes.append(f"the workspace has more than {limits.max_files} source files; only the first "
                          f"{limits.max_files} were scanned for completions and review")
