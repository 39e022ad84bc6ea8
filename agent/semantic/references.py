"""find_references and find_definition: the server's answer grouped by file and by the definition
enclosing each reference (reference_page.py), with each line's text, whether it is complete, and
the textual occurrences in code the server did not confirm. Without a server, the syntax layer's
scope-aware occurrences (labelled syntactic, incomplete).

find_references' `data["files"]` is format 2 (`data["format"]`): [{path, groups: [{in, kind,
hits: [{line, column, end_line, end_column, text}]}]}], the shape of the navigation tools' hits;
format 1 (before) was [{path, references: [...]}]."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lsp_bridge import FileLocation
from lsp_bridge.errors import NotReady

from ..commit import bounded
from ..errors import ToolFailure
from ..result import ToolResult
from ..toolcontext import ToolContext
from .hits import CHARS_PER_TOKEN, TOKEN_BUDGET
from .lines import LineCache
from .name_occurrences import NameSearch, unconfirmed_hits
from .outlines import Outlines
from .reference_page import page, whole_page
from .sessions import UNAVAILABLE, server_unavailable, session_for
from .target import Target, display_path, inside_workspace

MAX_UNCONFIRMED = 30
TAIL_RESERVE = 8000  # of the output budget, for the notes, the external and unconfirmed lists
FORMAT = 2  # of data["files"]: see the module docstring


@dataclass
class RefSet:
    """Locations in workspace files (rel path → list of 0-based (line, col, end_line, end_col))."""

    by_file: dict[str, list[tuple[int, int, int, int]]] = field(default_factory=dict)
    external: list[str] = field(default_factory=list)

    def add(self, rel: str, line: int, col: int, end_line: int, end_col: int) -> None:
        self.by_file.setdefault(rel, []).append((line, col, end_line, end_col))

    @property
    def count(self) -> int:
        return sum(len(v) for v in self.by_file.values())

    def starts(self, rel: str) -> set[tuple[int, int]]:
        return {(ln, col) for ln, col, _, _ in self.by_file.get(rel, [])}


def from_locations(ctx: ToolContext, locations: list[FileLocation]) -> RefSet:
    refs = RefSet()
    where: dict[Path, str | None] = {}  # thousands of locations share a few hundred files
    last: Path | None = None
    sites: list[tuple[int, int, int, int]] | None = None  # the current file's, None outside
    for loc in locations:
        if loc.path is not last:  # sorted by path: a file's locations come together (and share it)
            last = loc.path
            if last not in where:
                shown = display_path(ctx, last)
                where[last] = None if os.path.isabs(shown) else shown
            rel = where[last]
            sites = None if rel is None else refs.by_file.setdefault(rel, [])
        start, end = loc.range.start, loc.range.end
        if sites is None:
            refs.external.append(f"{loc.path}:{start.line + 1}:{start.character + 1}")
        else:
            sites.append((start.line, start.character, end.line, end.character))
    for found in refs.by_file.values():
        found.sort()
    return refs


def find_references(ctx: ToolContext, target: Target, include_declaration: bool, *, offset: int = 0,
                    limit: int | None = None) -> ToolResult:
    """The references from `offset` on (at most `limit`, by default lsp.max_results), in file order."""
    limit = limit or ctx.settings.lsp.max_results
    if target.server is None:
        raise ToolFailure(f"{target.path}: no language server handles this kind of file")
    # The name search runs while the server answers: started once the request is out, so its CPU
    # work never delays the request (ripgrep, when used, is already running).
    search = NameSearch(ctx, target.name, target.server)
    notes: list[str] = []
    try:
        session = session_for(ctx, target.server)
        refs = from_locations(ctx, session.references(target.real, target.pos, include_declaration,
                                                      on_sent=search.start))
        source, complete = "lsp", True
    except NotReady as exc:
        raise ToolFailure(f"{exc}; try again when it has finished indexing") from exc
    except UNAVAILABLE as exc:
        refs, why = _syntactic_refs(target, include_declaration)
        source, complete = "syntactic", False
        notes.append(f"{server_unavailable(exc)}\n{why}")
    total = refs.count
    if source == "lsp" and total == 0:
        notes.append("the server found no references here (is this a name the server can resolve?)")
    # Same-file hits of a syntactic answer are its own scope analysis; only other files count.
    confirmed = {rel: {(ln, col) for ln, col, _, _ in sites} for rel, sites in refs.by_file.items()}
    confirmed.setdefault(target.path, set()).add((target.pos.line, target.pos.character))
    scan = unconfirmed_hits(ctx, search, confirmed,
                            exclude=target.path if source == "syntactic" else None)
    extra = scan.hits
    outlines = Outlines(ctx)
    # Plain calls: each reference is asked once (one page pass), and both are cached per file.
    line_of, where = outlines.lines.line, outlines.where
    budget = max(1000, min(TOKEN_BUDGET * CHARS_PER_TOKEN, ctx.settings.workspace.max_output_chars - TAIL_RESERVE))
    listed = page(refs.by_file, line_of, where, offset=offset, limit=limit, budget=budget, whole=True,
                  in_file=outlines.in_file)
    head = (f"{total} reference(s) to {target.name} ({target.location}) in {len(refs.by_file)} file(s)"
            f" [{'complete' if complete else 'INCOMPLETE: ' + source}]")
    more = listed.note(total, offset, f"codeagent refs {target.location}")
    out = [head, *notes, *listed.text, *([more] if more else [])]
    tail: list[str] = []
    if refs.external:
        tail.append(f"outside the workspace: {len(refs.external)} ({', '.join(refs.external[:5])}"
                   f"{', ...' if len(refs.external) > 5 else ''})")
    extra_rows = [{"path": h.path, "line": h.line + 1, "column": h.column + 1,
                   "text": line_of(h.path, h.line)} for h in extra[:MAX_UNCONFIRMED]]
    if extra:
        tail.append(f"same name in code, not confirmed by the {'server' if source == 'lsp' else 'scope analysis'}"
                   f" ({len(extra)}; review for dynamic access or another symbol):")
        tail.extend(f"  {r['path']}:{r['line']}:{r['column']}  {r['text']}" for r in extra_rows)
        if len(extra) > MAX_UNCONFIRMED:
            tail.append(f"  [... {len(extra) - MAX_UNCONFIRMED} more: `--json` / data `unconfirmed_count`; "
                        "the first ones are in data `unconfirmed`]")
    if scan.unchecked:
        tail.append(f"(the name is common: {scan.unchecked} more file(s) containing it were not checked for it)")
    text = bounded("\n".join(out + tail), ctx.settings.workspace.max_output_chars)
    extra_data: dict[str, Any] = {}
    if listed.left_text:  # the page's whole text, for the CLI (which never cuts what was asked)
        whole = whole_page(listed, refs.by_file, offset)
        rest = whole.note(total, offset, f"codeagent refs {target.location}")
        extra_data["full_output"] = "\n".join([head, *notes, *whole.text, *([rest] if rest else []), *tail])
    return ToolResult.ok(
        text, symbol=target.name, target=str(target.location), complete=complete, source=source,
        format=FORMAT, count=total, files=listed.files, offset=offset, listed=listed.listed,
        truncated=total - offset - listed.listed,
        next_offset=offset + listed.listed if offset + listed.listed < total else None,
        external=refs.external[:50], **extra_data,
        unconfirmed=extra_rows, unconfirmed_count=len(extra), unconfirmed_unchecked_files=scan.unchecked,
    )


def _syntactic_refs(target: Target, include_declaration: bool) -> tuple[RefSet, str]:
    from ..syntax import local_occurrences

    occ = local_occurrences(target.doc.text, target.language, target.pos.line, target.pos.character)
    if occ is None:
        raise ToolFailure(f"no language server, and the syntax layer finds no identifier at {target.location}")
    refs = RefSet()
    for o in occ.occurrences:
        if include_declaration or not o.is_definition:
            refs.add(target.path, o.line, o.column, o.line, o.end_column)
    reach = {"local": "a local name: these are all its uses",
             "module": "a module-level name: other files may use it too (see below)",
             "member": "an attribute name: every same-named member in this file, not type-checked"}[occ.scope]
    return refs, f"syntactic fallback ({reach})"


def find_definition(ctx: ToolContext, target: Target) -> ToolResult:
    if target.server is None:
        raise ToolFailure(f"{target.path}: no language server handles this kind of file")
    try:
        session = session_for(ctx, target.server)
        locations = session.definition(target.real, target.pos)
        source = "lsp"
        note = ""
    except NotReady as exc:
        raise ToolFailure(f"{exc}; try again when it has finished indexing") from exc
    except UNAVAILABLE as exc:
        locations, note = _syntactic_definitions(ctx, target), server_unavailable(exc)
        source = "syntactic"
    lines = LineCache(ctx)
    found = []
    for loc in locations:
        inside = inside_workspace(ctx, loc.path)
        rel = display_path(ctx, loc.path)
        found.append({"path": rel, "line": loc.range.start.line + 1, "column": loc.range.start.character + 1,
                      "end_line": loc.range.end.line + 1, "end_column": loc.range.end.character + 1,
                      "external": not inside,
                      "text": lines.line(rel, loc.range.start.line) if inside else ""})
    if not found:
        head = f"no definition found for {target.name} at {target.location}"
    else:
        head = f"definition of {target.name} ({target.location}):"
    out = [head] + ([f"[syntactic: {note}]"] if note else [])
    out += [f"{d['path']}:{d['line']}:{d['column']}  {d['text'] or '(outside the workspace)'}" for d in found]
    return ToolResult.ok("\n".join(out), symbol=target.name, target=str(target.location), source=source,
                         complete=source == "lsp", definitions=found)


def _syntactic_definitions(ctx: ToolContext, target: Target) -> list[FileLocation]:
    from lsp_bridge import Position, Range

    from ..syntax import local_occurrences

    occ = local_occurrences(target.doc.text, target.language, target.pos.line, target.pos.character)
    if occ is not None and occ.defined:
        return [FileLocation(target.real, Range(Position(o.line, o.column), Position(o.line, o.end_column)))
                for o in occ.occurrences if o.is_definition]
    from ..services import get_index

    root = ctx.workspace.root
    out = []
    for m in get_index(ctx).find(target.name, limit=10):
        if m.name == target.name:
            out.append(FileLocation(root / Path(m.path), Range(Position(m.line - 1, m.column - 1),
                                                               Position(m.line - 1, m.column - 1 + len(m.name)))))
    return out
