"""Search tools: find_files (glob) and search_in_files (ripgrep, or the same search in Python)."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path

from pydantic import BaseModel, Field

from ..errors import ToolFailure
from ..grep import Query, StaleSelection, render, search
from ..registry import tool
from ..result import ToolResult
from ..semantic.walkcache import Selection, kept_walks
from ..semantic.walkstamps import stamped_walks
from ..toolcontext import ToolContext
from ..walk import compile_glob, iter_file_names, iter_files, link_leaves
from ..workspace import Workspace

MAX_FOUND_FILES = 1000


class FindFilesInput(BaseModel):
    pattern: str = Field(
        min_length=1,
        description="Glob such as '**/*.py', 'src/**/test_*.ts' or '*.{js,jsx}'. A pattern without '/' matches "
        "file names at any depth.",
    )
    path: str = Field(".", description="Folder to search in, relative to the workspace root.")


def _start(ws: Workspace, path: str) -> Path:
    real = ws.resolve(path)
    if not real.exists():
        raise ToolFailure(f"{ws.display(real)}: no such file or folder")
    return real


def _selected(ws: Workspace, start: Path, glob: str | None) -> list[Path]:
    try:
        match = compile_glob(glob) if glob else None
    except ValueError as exc:
        raise ToolFailure(str(exc)) from exc
    if match is None:
        return list(iter_files(ws.root, start))
    base = start if start.is_dir() else start.parent
    return [f for f in iter_files(ws.root, start) if match(f.relative_to(base).as_posix())]


def _selected_names(ws: Workspace, start: Path, glob: str | None, folders: list[str] | None = None,
                    links: list[str] | None = None, links_out: list[str] | None = None,
                    depends: list[str] | None = None, rule_files: list[str] | None = None,
                    listed: dict[str, list[os.DirEntry[str]]] | None = None) -> list[tuple[str, str]]:
    """`_selected` as (absolute path, workspace-relative name) strings, without Path objects."""
    try:
        match = compile_glob(glob) if glob else None
    except ValueError as exc:
        raise ToolFailure(str(exc)) from exc
    found = list(iter_file_names(ws.root, start, folders=folders, links=links, links_out=links_out, depends=depends,
                                 rule_files=rule_files, listed=listed))
    if match is None:
        return found
    base = start if start.is_dir() else start.parent
    cut = 0 if base == ws.root else len(base.relative_to(ws.root).as_posix()) + 1
    return [(a, rel) for a, rel in found if match(rel[cut:])]


@tool(name="find_files", model=FindFilesInput)
def find_files(ctx: ToolContext, args: FindFilesInput) -> ToolResult:
    """Find files by glob pattern (paths relative to `path`), sorted. Leaves out .git,
    node_modules, virtualenvs and gitignored files."""
    ws = ctx.workspace
    start = _start(ws, args.path)
    found = sorted(ws.display(f) for f in _selected(ws, start, args.pattern))
    shown = found[:MAX_FOUND_FILES]
    if not found:
        return ToolResult.ok(f"no files match {args.pattern!r} in {ws.display(start)}", files=[], total=0)
    out = "\n".join(shown)
    if len(found) > len(shown):
        out += (f"\n[... {len(found) - len(shown)} more files not shown ({len(found)} in all); "
                "use a narrower pattern or path ...]")
    return ToolResult.ok(out, files=shown, total=len(found), truncated=len(found) > len(shown))


class SearchInFilesInput(BaseModel):
    pattern: str = Field(min_length=1, description="What to search for: a regular expression, or plain text with regex=false.")
    path: str = Field(".", description="File or folder to search, relative to the workspace root.")
    regex: bool = Field(True, description="Treat the pattern as a regular expression (false: literal text).")
    case_sensitive: bool = Field(True, description="Match case exactly (false: ignore case).")
    glob: str | None = Field(None, description="Only search files matching this glob, e.g. '*.py' or 'src/**/*.ts'.")
    context_lines: int = Field(0, ge=0, le=20, description="Lines of context to show before and after each match.")
    max_results: int = Field(200, ge=1, le=5000, description="Most matching lines to show.")


@tool(name="search_in_files", model=SearchInFilesInput)
def search_in_files(ctx: ToolContext, args: SearchInFilesInput) -> ToolResult:
    """Search file contents for a regular expression or literal text, line by line; results as
    `path:line: text` (context lines as `path-line- text`), sorted by path. Gitignore-aware;
    binary files and files over the read limit are skipped."""
    ws = ctx.workspace
    start = _start(ws, args.path)
    limit = ctx.settings.workspace.max_read_bytes
    query = Query(args.pattern, args.regex, args.case_sensitive, args.context_lines, args.max_results)
    selection, reused, recheck = _selection(ctx, start, args.glob)
    try:
        outcome = search(selection.files, query, engine=ctx.settings.workspace.search_engine,
                         root=ctx.workspace.root, timeout=ctx.settings.workspace.search_timeout, recheck=recheck)
    except StaleSelection:  # a file's size changed since the kept walk: walk again
        selection, reused, keep = _selection(ctx, start, args.glob, fresh=True)
        outcome = search(selection.files, query, engine=ctx.settings.workspace.search_engine,
                         root=ctx.workspace.root, timeout=ctx.settings.workspace.search_timeout, recheck=keep)
    too_big = list(selection.too_big)
    text = render(outcome, query, ws.display(start))
    if too_big:
        text += f"\n({len(too_big)} files over the {limit}-byte read limit not searched: {', '.join(too_big[:5])})"
    if outcome.note:
        text += f"\n({outcome.note})"
    matches = [{"path": h.path, "line": h.line, "column": h.column, "text": h.text}
               for h in outcome.hits if h.column is not None]
    return ToolResult.ok(
        text, matches=matches, total_matches=outcome.total, files_with_matches=outcome.files_with_matches,
        files_searched=outcome.files_searched, truncated=outcome.shown < outcome.total,
        timed_out=outcome.timed_out, skipped_large=too_big, engine=outcome.engine,
        **({"walk_reused": True} if reused else {}),
    )


def _selection(ctx: ToolContext, start: Path, glob: str | None,
               fresh: bool = False) -> tuple[Selection, bool, Callable[[], bool] | None]:
    """The files to search and those over the read limit; True when a kept walk was reused (the
    daemon keeps them while its folder watch reports no change: agent/semantic/walkcache.py; a
    process without one while a stat of what the walk depends on shows none: walkstamps.py,
    whose last check, of the files' sizes, is returned for `search` to make). `fresh`: walk.
    A fresh walk of such a process returns its stamping instead, which `search` makes while
    ripgrep runs (a check that always passes: the list is the walk's own)."""
    ws, limit = ctx.workspace, ctx.settings.workspace.max_read_bytes
    walks = kept_walks(ctx) if start.is_dir() else None
    stamped = stamped_walks(ctx) if walks is None and start.is_dir() else None
    key = f"{start}\0{glob}\0{ctx.settings.workspace.model_dump_json()}"
    root_s = str(ws.root)
    if walks is not None and not fresh:
        hit = walks.get(key)
        if hit is not None:
            return hit, True, None
    elif stamped is not None and not fresh:
        kept = stamped.get(key, lambda link: link_leaves(link, root_s))
        if kept is not None:
            return kept[0], True, kept[1]
    token, started = walks.token() if walks is not None else None, time.time_ns()
    # (after the token: the watch's first listings, if handed over, are the folders as they are now)
    listed = walks.listings() if walks is not None and token is not None else None
    folders: list[str] = []
    links: list[str] = []
    links_out: list[str] = []
    depends: list[str] = []
    rule_files: list[str] = []
    named = sorted(_selected_names(ws, start, glob, folders, links, links_out, depends, rule_files, listed),
                   key=lambda item: item[1])
    files: list[tuple[str, str]] = []
    too_big: list[str] = []
    sized: list[tuple[str, int]] = []
    for f, name in named:
        try:
            size = os.stat(f).st_size
        except OSError:
            continue
        sized.append((f, size))
        if size > limit:
            too_big.append(name)
        else:
            files.append((f, name))
    selection = Selection(tuple(files), tuple(too_big))
    if walks is not None and token is not None:
        # links (in and out: an out-link retargeted inside joins the selection) and depends are
        # stat-checked on each reuse; the watch does not see outside the workspace
        walks.put(key, token, selection, folders, [*links, *links_out, *depends], started)
    elif stamped is not None:
        above = _above(ws.root, start)
        rule_files += [g for g in (os.path.join(f, ".gitignore") for f in above) if os.path.isfile(g)]
        met = [(link, False) for link in links] + [(link, True) for link in links_out]

        def keep() -> bool:  # (stamps taken after the walk are as good: its racy rule looks back from `started`)
            stamped.put(key, selection, sized, [*above, *folders], depends, met, started, rule_files)
            return True

        return selection, False, keep
    return selection, False, None


def _above(root: Path, start: Path) -> list[str]:
    """The folders from the root down to `start`'s parent: their .gitignore rules apply below."""
    return [str(p) for p in reversed(start.parents) if p == root or p.is_relative_to(root)] if start != root else []
