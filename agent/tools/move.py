"""The move_symbol tool: move a top-level function, class or module-level variable to another
module and rewrite every import and qualified use (one undo)."""

from __future__ import annotations

from pydantic import Field

from ..refactor.move import move_symbol as _move_symbol
from ..registry import tool
from ..result import ToolResult
from ..semantic.target import resolve_target
from ..toolcontext import ToolContext
from .position_input import PositionInput


class MoveSymbolInput(PositionInput):
    dest: str = Field(description="Destination file, relative to the workspace root; created when missing "
                      "(its folder must exist).")
    dry_run: bool = Field(False, description="Only show the diff; write nothing.")
    keep_alias: bool = Field(False, description="Leave a re-export at the old place (API compatibility).")
    check_diagnostics: bool = Field(
        True, description="After writing, report the errors the language server finds that the move introduced.")


@tool(name="move_symbol", model=MoveSymbolInput, toolset="semantic", mutating=True)
def move_symbol(ctx: ToolContext, args: MoveSymbolInput) -> ToolResult:
    """Move a top-level function, class or module-level variable (at its definition) to another
    module: the definition moves with the imports it needs (and private helpers only it uses);
    every import and qualified use in the workspace, `__all__`, package re-exports and the `.pyi`
    stub follow; code left behind imports it from DEST. Refused (nothing written) when it would
    create an import cycle or DEST already defines the name. All files change together (one undo)."""
    target = resolve_target(ctx, args.file_path, args.line, args.column, args.symbol)
    return _move_symbol(ctx, target, args.dest, dry_run=args.dry_run, keep_alias=args.keep_alias,
                        check_diagnostics=args.check_diagnostics)
