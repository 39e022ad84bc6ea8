"""File tools: read_file, write_file, list_directory."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, Field

from ..commit import commit
from ..errors import ToolFailure
from ..registry import tool
from ..result import FileEdit, ToolResult
from ..toolcontext import ToolContext

if TYPE_CHECKING:  # (list_directory imports it: the walk's rules, pathspec, are not read_file's)
    from ..walk import IgnoreRules

READ_HEAD_LINES = 400
READ_TAIL_LINES = 100
MAX_LINE_CHARS = 2000  # a minified line is cut, so one line never floods the output
MAX_LIST_ENTRIES = 500


class ReadFileInput(BaseModel):
    file_path: str = Field(description="Path of the file, relative to the workspace root (or absolute inside it).")
    start_line: int | None = Field(None, ge=1, description="First line to show (1-based).")
    end_line: int | None = Field(None, ge=1, description="Last line to show (1-based, inclusive).")


def _numbered(lines: list[str], first: int) -> str:
    width = len(str(first + len(lines) - 1))
    return "\n".join(f"{first + i:>{width}}  {_cut_line(line)}" for i, line in enumerate(lines))


def _cut_line(line: str) -> str:
    if len(line) <= MAX_LINE_CHARS:
        return line
    return f"{line[:MAX_LINE_CHARS]}[... {len(line) - MAX_LINE_CHARS} more characters on this line]"


@tool(name="read_file", model=ReadFileInput)
def read_file(ctx: ToolContext, args: ReadFileInput) -> ToolResult:
    """Read a text file with numbered lines. A large file is shown as head and tail; ask for
    the rest with start_line/end_line."""
    result = _read_file(ctx, args)
    data = result.data  # the loop keeps the latest state of a file the model has read
    whole = not data.get("truncated") and data.get("start_line") == 1 and data.get("end_line") == data.get("total_lines")
    result.viewed = (data["path"], bool(whole))
    return result


def _read_file(ctx: ToolContext, args: ReadFileInput) -> ToolResult:
    doc = ctx.workspace.read(args.file_path)
    lines = doc.text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    total = len(lines)
    if total == 0:
        return ToolResult.ok(f"{doc.path} is empty (0 lines)", path=doc.path, total_lines=0,
                             encoding=doc.fmt.encoding, start_line=0, end_line=0, truncated=False)
    start = args.start_line or 1
    end = min(args.end_line or total, total)
    if start > total:
        raise ToolFailure(f"{doc.path}: start_line {start} is past the end of the file ({total} lines)")
    if end < start:
        raise ToolFailure(f"{doc.path}: end_line {end} is before start_line {start}")
    data = {"path": doc.path, "total_lines": total, "encoding": doc.fmt.encoding, "start_line": start, "end_line": end}
    if args.start_line is None and args.end_line is None and total > READ_HEAD_LINES + READ_TAIL_LINES:
        head = _numbered(lines[:READ_HEAD_LINES], 1)
        tail_first = total - READ_TAIL_LINES + 1
        tail = _numbered(lines[-READ_TAIL_LINES:], tail_first)
        cut = total - READ_HEAD_LINES - READ_TAIL_LINES
        note = (f"[... {cut} lines left out (lines {READ_HEAD_LINES + 1}-{tail_first - 1}); "
                f"read them with start_line={READ_HEAD_LINES + 1}, end_line={tail_first - 1} ...]")
        return ToolResult.ok(f"{head}\n{note}\n{tail}", **data, truncated=True)
    shown = lines[start - 1:end]
    max_chars = ctx.settings.workspace.max_output_chars
    body = _numbered(shown, start)
    if len(body) > max_chars:
        body = body[:max_chars]
        cut_at = body.count("\n") + start
        body += f"\n[... output cut at {max_chars} characters; continue with start_line={cut_at} ...]"
        return ToolResult.ok(body, **data, truncated=True)
    return ToolResult.ok(body, **data, truncated=False)


class WriteFileInput(BaseModel):
    file_path: str = Field(description="Path of the file to create or overwrite; parent folders are created.")
    content: str = Field(description="The complete new content of the file.")
    force: bool = Field(False, description="Keep the write even if it adds syntax errors.")


@tool(name="write_file", model=WriteFileInput, mutating=True)
def write_file(ctx: ToolContext, args: WriteFileInput) -> ToolResult:
    """Create a file or overwrite it with new content. An existing file keeps its encoding,
    BOM and line endings."""
    ws = ctx.workspace
    real = ws.resolve(args.file_path, for_write=True)
    edit = FileEdit(args.file_path, args.content, check_old=False)
    rel = ws.display(real)
    verb = "overwrote" if real.exists() else "created"
    return commit(ctx, [edit], operation=f"write_file {rel}", summary=f"{verb} {rel} ({len(args.content)} chars)",
                  force=args.force)


class ListDirectoryInput(BaseModel):
    path: str = Field(".", description="Folder to list, relative to the workspace root.")
    depth: int = Field(1, ge=1, le=10, description="How many levels of subfolders to show (1: the folder's own entries).")


@dataclass(slots=True)
class _Listing:
    rules: IgnoreRules
    root: Path
    lines: list[str]
    entries: list[dict[str, Any]]
    left_out: int = 0
    skipped: list[str] = field(default_factory=list)


def _size(n: int) -> str:
    if n < 1024:
        return f"{n} B"
    value = float(n)
    for unit in ("KB", "MB", "GB"):
        value /= 1024
        if value < 1024 or unit == "GB":
            break
    return f"{value:.1f} {unit}"


def _list(listing: _Listing, folder: Path, depth: int, indent: str) -> None:
    from ..walk import skip_dir, skip_file

    try:
        children = sorted(os.scandir(folder), key=lambda e: e.name)
    except OSError as exc:
        listing.lines.append(f"{indent}[cannot list: {exc.strerror}]")
        return
    dirs = [e for e in children if e.is_dir(follow_symlinks=False)]
    files = [e for e in children if not e.is_dir(follow_symlinks=False)]
    for entry in dirs + files:
        path = Path(entry.path)
        is_dir = entry.is_dir(follow_symlinks=False)
        if (is_dir and skip_dir(path, listing.rules)) or (
            not is_dir and not entry.is_symlink() and skip_file(path, listing.root, listing.rules)
        ):
            listing.skipped.append(path.relative_to(listing.root).as_posix() + ("/" if is_dir else ""))
            continue
        if len(listing.entries) >= MAX_LIST_ENTRIES:
            listing.left_out += 1
            if is_dir and depth > 1:
                _list(listing, path, depth - 1, indent)
            continue
        rel = path.relative_to(listing.root).as_posix()
        if entry.is_symlink():
            target = os.path.realpath(path)
            inside = target == str(listing.root) or target.startswith(str(listing.root) + os.sep)
            shown = Path(target).relative_to(listing.root).as_posix() if inside else "(outside the workspace)"
            listing.lines.append(f"{indent}{entry.name} -> {shown}")
            listing.entries.append({"path": rel, "type": "symlink", "target": shown if inside else None})
        elif is_dir:
            note = ""
            if depth == 1:
                try:
                    note = f"  ({sum(1 for _ in os.scandir(path))} entries)"
                except OSError:
                    note = ""
            listing.lines.append(f"{indent}{entry.name}/{note}")
            listing.entries.append({"path": rel, "type": "dir"})
            if depth > 1:
                _list(listing, path, depth - 1, indent + "  ")
        else:
            try:
                size = entry.stat(follow_symlinks=False).st_size
            except OSError:
                size = 0
            listing.lines.append(f"{indent}{entry.name}  {_size(size)}")
            listing.entries.append({"path": rel, "type": "file", "size": size})


@tool(name="list_directory", model=ListDirectoryInput)
def list_directory(ctx: ToolContext, args: ListDirectoryInput) -> ToolResult:
    """List a folder's files (with sizes) and subfolders, down to `depth` levels. Leaves out
    .git, node_modules, __pycache__, virtualenvs and what .gitignore ignores."""
    ws = ctx.workspace
    real = ws.resolve(args.path)
    name = ws.display(real)
    if not real.exists():
        raise ToolFailure(f"{name}: no such folder")
    if not real.is_dir():
        raise ToolFailure(f"{name} is a file, not a folder; read it with read_file")
    from ..walk import IgnoreRules

    listing = _Listing(IgnoreRules(ws.root), ws.root, [], [])
    _list(listing, real, args.depth, "")
    out = [f"{name}/" if name != "." else "./"]
    out.extend("  " + line for line in listing.lines)
    if not listing.lines:
        out.append("  (empty)")
    if listing.left_out:
        out.append(f"[... {listing.left_out} more entries not shown (limit {MAX_LIST_ENTRIES}); "
                   "list a subfolder or use a smaller depth ...]")
    if listing.skipped:
        shown = ", ".join(listing.skipped[:8]) + (f" and {len(listing.skipped) - 8} more" if len(listing.skipped) > 8 else "")
        out.append(f"(not listed: {shown} — vcs, dependency, cache and gitignored paths)")
    return ToolResult.ok("\n".join(out), path=name, entries=listing.entries,
                         left_out=listing.left_out, skipped=listing.skipped[:100])
