"""Structural refactoring tools beyond rename: change_signature and safe_delete (a real language
server finds every use; the syntax tree rewrites them; one plan, one undo)."""

from __future__ import annotations

from pydantic import Field

from ..refactor.delete import safe_delete as _safe_delete
from ..refactor.signature import change_signature as _change_signature
from ..registry import tool
from ..result import ToolResult
from ..semantic.target import resolve_target
from ..toolcontext import ToolContext
from .position_input import PositionInput


class ChangeSignatureInput(PositionInput):
    new_params: str = Field(description="The new parameter list in the language's syntax, parenthesized, e.g. "
                            "\"(self, path, *, encoding='utf-8')\"; parameters are matched to the old ones by name.")
    values: dict[str, str] = Field(default_factory=dict, description="For each new parameter without a default: "
                                   "the expression (source text) every call site passes, e.g. {\"fill\": \"''\"}.")
    dry_run: bool = Field(False, description="Only show the diff; write nothing.")
    check_diagnostics: bool = Field(True, description="After writing, report the errors the change introduced.")


@tool(name="change_signature", model=ChangeSignatureInput, toolset="semantic", mutating=True)
def change_signature(ctx: ToolContext, args: ChangeSignatureInput) -> ToolResult:
    """Change a function's or method's parameters and follow the change at every call site and
    override: removed parameters are dropped, new ones get their value, reordered positional
    arguments follow, keyword-only parameters get keywords. Refused (naming the site) when a call
    cannot be rewritten safely (`*args`, `**kwargs`, a reference that is not a call) or the body
    still uses a removed parameter. One undo."""
    target = resolve_target(ctx, args.file_path, args.line, args.column, args.symbol)
    return _change_signature(ctx, target, args.new_params, args.values, dry_run=args.dry_run,
                             check_diagnostics=args.check_diagnostics)


class SafeDeleteInput(PositionInput):
    dry_run: bool = Field(False, description="Only show the diff; write nothing.")
    check_diagnostics: bool = Field(True, description="After writing, report the errors the delete introduced.")


@tool(name="safe_delete", model=SafeDeleteInput, toolset="semantic", mutating=True)
def safe_delete(ctx: ToolContext, args: SafeDeleteInput) -> ToolResult:
    """Delete a definition (with its decorators, docstring or JSDoc, `__all__` entry, the package or
    barrel re-export that only exports it, and imports only it used; Python, TypeScript, JavaScript)
    when nothing references it; otherwise refuse, listing every reference. One undo."""
    target = resolve_target(ctx, args.file_path, args.line, args.column, args.symbol)
    return _safe_delete(ctx, target, dry_run=args.dry_run, check_diagnostics=args.check_diagnostics)
