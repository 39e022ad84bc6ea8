"""Semantic tools (a real language server behind each): find_definition, find_references,
rename_symbol, get_diagnostics. Positions are 1-based lines and columns counted in characters;
every position tool also takes `symbol`, a name path such as `Class.method`, instead."""

from __future__ import annotations

import sys
from typing import Any

from pydantic import BaseModel, Field

from ..refactor.rename import rename_symbol as _rename_symbol
from ..registry import tool
from ..result import ToolResult
from ..semantic.diagnostics import diagnostic_dict, format_diagnostic, remember, shown
from ..semantic.references import find_definition as _find_definition
from ..semantic.references import find_references as _find_references
from ..semantic.target import resolve_target
from ..toolcontext import ToolContext
from .position_input import PositionInput as PositionInput

MAX_DIAGNOSTICS = 200


class FindDefinitionInput(PositionInput):
    pass


@tool(name="find_definition", model=FindDefinitionInput, toolset="semantic")
def find_definition(ctx: ToolContext, args: FindDefinitionInput) -> ToolResult:
    """Where the name at a position is defined (through imports, instances and aliases), with the
    defining line's text."""
    target = resolve_target(ctx, args.file_path, args.line, args.column, args.symbol)
    return _find_definition(ctx, target)


class FindReferencesInput(PositionInput):
    include_declaration: bool = Field(True, description="Also list the definition itself.")
    offset: int = Field(0, ge=0, description="Skip this many references (file order): the next page of a long "
                        "answer (the output says which offset to give).")
    limit: int | None = Field(None, ge=0, description="Most references in one answer (default: the session's "
                              "lsp.max_results; 0: all). The text shown stays within the output budget and says "
                              "what it left out.")


@tool(name="find_references", model=FindReferencesInput, toolset="semantic")
def find_references(ctx: ToolContext, args: FindReferencesInput) -> ToolResult:
    """Every reference to the symbol at a position, across the workspace, grouped by file and by
    enclosing definition (`in Class.method`), with each line's text. `complete` is false when the answer is syntactic (no language server).
    Same-named identifiers in code that the server did not confirm are listed for review."""
    target = resolve_target(ctx, args.file_path, args.line, args.column, args.symbol)
    limit = None if args.limit is None else (args.limit or sys.maxsize)
    return _find_references(ctx, target, args.include_declaration, offset=args.offset, limit=limit)


class RenameSymbolInput(PositionInput):
    new_name: str = Field(description="The new identifier (must be valid and not a keyword in the file's language).")
    dry_run: bool = Field(False, description="Only show the diff; write nothing.")
    check_diagnostics: bool = Field(
        True, description="After writing, wait for the language server to re-check the changed files and report "
        "the errors it finds that the rename introduced (a full re-check of each changed file: seconds on big ones). "
        "New errors undo the rename unless `force`.")
    include_strings: bool = Field(
        False, description="Also rename the name where it appears as a whole word in string literals and "
        "docstrings (listed for review otherwise).")
    include_comments: bool = Field(
        False, description="Also rename the name where it appears as a whole word in comments (listed for review "
        "otherwise).")
    force: bool = Field(
        False, description="Write the rename even when the new name conflicts with an existing one (a binding "
        "of the same scope, a class member, an import, a shadowed name: refused otherwise, with the list of "
        "conflicts), and keep it when the check finds errors it introduced (or cannot finish; undone otherwise).")
    allow_syntactic: bool = Field(
        False, description="Without a language server, also rename same-named identifiers in code in other "
        "files (may hit unrelated symbols; review the diff). Without it such a rename is refused.")


@tool(name="rename_symbol", model=RenameSymbolInput, toolset="semantic", mutating=True)
def rename_symbol(ctx: ToolContext, args: RenameSymbolInput) -> ToolResult:
    """Rename a symbol everywhere it is used (definition, imports, calls through instances, keyword
    arguments), from its definition or any use. The name in strings, docstrings and comments is
    listed for review (renamed with include_strings / include_comments). All files change together
    (one undo); returns the diff and the files changed."""
    target = resolve_target(ctx, args.file_path, args.line, args.column, args.symbol)
    return _rename_symbol(ctx, target, args.new_name, dry_run=args.dry_run, allow_syntactic=args.allow_syntactic,
                          check_diagnostics=args.check_diagnostics, force=args.force,
                          include_strings=args.include_strings, include_comments=args.include_comments)


class GetDiagnosticsInput(BaseModel):
    file_path: str = Field(description="File to check, relative to the workspace root.")


@tool(name="get_diagnostics", model=GetDiagnosticsInput, toolset="semantic")
def get_diagnostics(ctx: ToolContext, args: GetDiagnosticsInput) -> ToolResult:
    """Errors and warnings the language server reports for a file (type errors, undefined names,
    bad imports), computed on its current content."""
    from ..semantic.diagnostics import file_diagnostics, project_config_diagnostics

    rel, text, found = file_diagnostics(ctx, args.file_path)
    remember(ctx, ctx.workspace.root / rel, text, found)
    items = [diagnostic_dict(rel, d) for d in shown(found)]
    errors = sum(1 for d in items if d["severity"] == "error")
    head = f"{rel}: {errors} error(s), {len(items) - errors} warning(s)"
    lines = [format_diagnostic(d) for d in items[:MAX_DIAGNOSTICS]]
    if len(items) > MAX_DIAGNOSTICS:
        lines.append(f"[... {len(items) - MAX_DIAGNOSTICS} more ...]")
    data: dict[str, Any] = {}
    config = project_config_diagnostics(ctx, rel)
    if config is not None:  # the server's word on tsconfig.json: a rejected option explains a lot
        note, config_items = config
        data["config_diagnostics"] = config_items
        lines.extend(format_diagnostic(d) for d in config_items)
        if note:
            data["server_note"] = note
            lines.append(f"note: {note}")
    return ToolResult.ok("\n".join([head, *lines]), path=rel, errors=errors, warnings=len(items) - errors,
                         diagnostics=items[:MAX_DIAGNOSTICS], truncated=max(0, len(items) - MAX_DIAGNOSTICS), **data)
