"""The `finish` tool (toolset "agent", offered in every run): it ends the run. The loop knows it
only by its result (`data["finished"]`, see ToolResult)."""

from __future__ import annotations

from pydantic import BaseModel, Field

from ..registry import tool
from ..result import ToolResult
from ..toolcontext import ToolContext


class FinishInput(BaseModel):
    summary: str = Field(description="What was done and how it was verified (or why the task cannot be done).")


@tool(name="finish", model=FinishInput, toolset="agent")
def finish(ctx: ToolContext, args: FinishInput) -> ToolResult:
    """End the run. Call it once the task is done and verified (or cannot be done), with a short
    summary of the changes and how you checked them."""
    return ToolResult.ok(args.summary.strip() or "(no summary)", finished=True)
