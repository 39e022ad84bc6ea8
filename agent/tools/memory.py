"""The project memory: the `remember` tool (toolset "agent", offered in every run) and
`read_memory` for the system prompt.

The project memory lives in `.codeagent/memory.md`. Tools never write under `.codeagent/` through
the workspace (it is protected from them); `remember` appends through this module's own path,
which only ever appends one bounded line to that one file.
"""

from __future__ import annotations

import threading
import time

from pydantic import BaseModel, Field

from ..errors import ToolFailure
from ..registry import tool
from ..result import ToolResult
from ..toolcontext import ToolContext
from ..workspace import Workspace, atomic_write

MEMORY_FILE = "memory.md"
MAX_NOTE_CHARS = 1000
MAX_MEMORY_BYTES = 32 * 1024
PROMPT_MEMORY_CHARS = 4000  # the part of the memory put in the system prompt (the newest notes)
_memory_lock = threading.Lock()


class RememberInput(BaseModel):
    note: str = Field(description="One lasting fact about this project worth knowing in later runs "
                                  "(a convention, how to run its tests, a pitfall). One or two sentences.")


@tool(name="remember", model=RememberInput, toolset="agent")
def remember(ctx: ToolContext, args: RememberInput) -> ToolResult:
    """Append a note to the project memory (.codeagent/memory.md), which is shown at the start of
    every later run. For durable project facts only, not for progress notes of this task."""
    note = " ".join(args.note.split())
    if not note:
        raise ToolFailure("remember: the note is empty")
    if len(note) > MAX_NOTE_CHARS:
        raise ToolFailure(f"remember: the note has {len(note)} characters; keep it under {MAX_NOTE_CHARS}")
    path = ctx.workspace.tool_dir / MEMORY_FILE
    with _memory_lock:
        old = path.read_bytes() if path.is_file() else b"# Project memory (codeagent)\n\n"
        line = f"- {note} ({time.strftime('%Y-%m-%d')})\n".encode()
        if len(old) + len(line) > MAX_MEMORY_BYTES:
            raise ToolFailure(f"remember: the memory file is full ({MAX_MEMORY_BYTES} bytes); "
                              f"the user can prune {path}")
        if old and not old.endswith(b"\n"):
            old += b"\n"
        atomic_write(path, old + line)
    return ToolResult.ok(f"noted in .codeagent/{MEMORY_FILE}: {note}")


def read_memory(ws: Workspace, limit: int = PROMPT_MEMORY_CHARS) -> str:
    """The newest part of the project memory ('' when there is none)."""
    path = ws.tool_dir / MEMORY_FILE
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""
    if len(text) <= limit:
        return text
    cut = text[-limit:]
    return f"[... {len(text) - limit} older characters of the memory left out ...]\n" + cut[cut.find("\n") + 1:]
