"""Navigation tools (a language server behind each): type_info, call_hierarchy,
find_implementations, type_hierarchy, code_actions, apply_code_action. Positions are 1-based
lines and columns counted in characters."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from ..refactor.code_action import apply_code_action as _apply_code_action
from ..registry import tool
from ..result import ToolResult
from ..semantic.calls import call_hierarchy as _call_hierarchy
from ..semantic.code_actions import list_code_actions
from ..semantic.implementations import find_implementations as _find_implementations
from ..semantic.target import resolve_target
from ..semantic.type_info import type_info as _type_info
from ..semantic.type_tree import type_hierarchy as _type_hierarchy
from ..toolcontext import ToolContext


class AtPosition(BaseModel):
    file_path: str = Field(description="File, relative to the workspace root.")
    line: int = Field(ge=1, description="1-based line.")
    column: int = Field(ge=1, description="1-based column (characters) on the name.")


@tool(name="type_info", model=AtPosition, toolset="semantic")
def type_info(ctx: ToolContext, args: AtPosition) -> ToolResult:
    """Type or signature of the name at a position (inferred, through generics), its kind,
    qualified name and doc summary. Use instead of reading files to learn what a value is."""
    return _type_info(ctx, resolve_target(ctx, args.file_path, args.line, args.column, None))


class CallHierarchyInput(AtPosition):
    direction: Literal["incoming", "outgoing"] = Field("incoming", description="incoming: callers; outgoing: callees.")
    depth: int = Field(1, ge=1, le=5, description="Levels to follow.")


@tool(name="call_hierarchy", model=CallHierarchyInput, toolset="semantic")
def call_hierarchy(ctx: ToolContext, args: CallHierarchyInput) -> ToolResult:
    """Callers or callees of a function/method as a tree, with each call line. Unlike
    search_in_files it finds calls through instances and aliases, and no same-named others."""
    target = resolve_target(ctx, args.file_path, args.line, args.column, None)
    return _call_hierarchy(ctx, target, args.direction, args.depth)


@tool(name="find_implementations", model=AtPosition, toolset="semantic")
def find_implementations(ctx: ToolContext, args: AtPosition) -> ToolResult:
    """Implementations of an interface/protocol/abstract method, overrides of a method,
    subclasses of a class, grouped by file with line text. Better than searching for the name."""
    return _find_implementations(ctx, resolve_target(ctx, args.file_path, args.line, args.column, None))


class TypeHierarchyInput(AtPosition):
    direction: Literal["supertypes", "subtypes"] = Field("supertypes", description="Up (bases) or down.")


@tool(name="type_hierarchy", model=TypeHierarchyInput, toolset="semantic")
def type_hierarchy(ctx: ToolContext, args: TypeHierarchyInput) -> ToolResult:
    """The class tree above (supertypes) or below (subtypes) a class or interface."""
    target = resolve_target(ctx, args.file_path, args.line, args.column, None)
    return _type_hierarchy(ctx, target, args.direction)


class CodeActionsInput(BaseModel):
    file_path: str = Field(description="File, relative to the workspace root.")
    line: int = Field(ge=1, description="1-based line.")
    column: int = Field(ge=1, description="1-based column (characters).")
    end_line: int | None = Field(None, ge=1, description="End of a range (default: the position).")
    end_column: int | None = Field(None, ge=1, description="End column of the range.")


@tool(name="code_actions", model=CodeActionsInput, toolset="semantic")
def code_actions(ctx: ToolContext, args: CodeActionsInput) -> ToolResult:
    """The server's quick fixes and refactorings at a position or range (add a missing import,
    remove an unused one, ...), numbered, each with the change it would make."""
    return list_code_actions(ctx, args.file_path, args.line, args.column, args.end_line, args.end_column)


class ApplyCodeActionInput(CodeActionsInput):
    title: str = Field(min_length=1, description="The action's title as code_actions lists it (a unique prefix works).")


@tool(name="apply_code_action", model=ApplyCodeActionInput, toolset="semantic", mutating=True)
def apply_code_action(ctx: ToolContext, args: ApplyCodeActionInput) -> ToolResult:
    """Apply the code action with this title as one undoable edit; returns the diff and the
    diagnostics it fixed or introduced."""
    return _apply_code_action(ctx, args.file_path, args.line, args.column, args.end_line, args.end_column,
                              args.title)
