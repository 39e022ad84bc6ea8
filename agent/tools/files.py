"""File tools: read_file, write_file."""

from __future__ import annotations

from pydantic import BaseModel, Field

from ..changes import commit
from ..errors import ToolFailure
from ..registry import tool
from ..result import FileEdit, ToolResult
from ..toolcontext import ToolContext

READ_HEAD_LINES = 400
READ_TAIL_LINES = 100


class ReadFileInput(BaseModel):
    file_path: str = Field(description="Path of the file, relative to the workspace root (or absolute inside it).")
    start_line: int | None = Field(None, ge=1, description="First line to show (1-based).")
    end_line: int | None = Field(None, ge=1, description="Last line to show (1-based, inclusive).")


def _numbered(lines: list[str], first: int) -> str:
    width = len(str(first + len(lines)))
    return "\n".join(f"{first + i:>{width}}  {line}" for i, line in enumerate(lines))


@tool(name="read_file", model=ReadFileInput)
def read_file(ctx: ToolContext, args: ReadFileInput) -> ToolResult:
    """Read a text file with numbered lines. A large file is shown as head and tail; ask for
    the rest with start_line/end_line."""
    doc = ctx.workspace.read(args.file_path)
    lines = doc.text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    total = len(lines)
    start = args.start_line or 1
    end = min(args.end_line or total, total)
    if args.start_line is not None and start > max(total, 1):
        raise ToolFailure(f"{doc.path}: start_line {start} is past the end of the file ({total} lines)")
    if end < start and total:
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
    existed = real.exists()
    edit = FileEdit(args.file_path, args.content, check_old=False)
    rel = ws.rel(real) if existed else real.relative_to(ws.root).as_posix()
    verb = "overwrote" if existed else "created"
    return commit(ctx, [edit], operation=f"write_file {rel}", summary=f"{verb} {rel} ({len(args.content)} chars)",
                  force=args.force)
