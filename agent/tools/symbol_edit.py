"""Symbol edits: replace_symbol, insert_before_symbol, insert_after_symbol. A definition is found
by name path in the syntax index (like find_symbol) and edited as whole lines, decorators
included; the new text is re-indented to the definition's level. Every edit goes through the one
commit path (journaled, undoable, syntax guard, diagnostics delta)."""

from __future__ import annotations

from pydantic import BaseModel, Field

from ..commit import commit
from ..errors import ToolFailure
from ..registry import tool
from ..result import ToolResult
from ..semantic.target import Target, resolve_target
from ..syntax import outline
from ..syntax.definition_span import Span, blank_lines, defined_names, find_nested, reindent, span_of
from ..syntax.symbols import Symbol
from ..toolcontext import ToolContext

NAME_PATH = Field(min_length=1, description="Name path of the definition, e.g. `Registry.describe` or `main`.")
FILE_PATH = Field(None, description="File to look in (relative to the workspace root); needed when the name "
                  "path is defined in several files.")


class ReplaceSymbolInput(BaseModel):
    name_path: str = NAME_PATH
    file_path: str | None = FILE_PATH
    new_text: str = Field(description="The whole new definition (decorators, signature, body), any indentation. "
                          "It must define the same name.")


class InsertSymbolInput(BaseModel):
    name_path: str = NAME_PATH
    file_path: str | None = FILE_PATH
    text: str = Field(description="The definition(s) to insert, any indentation.")


def _locate(ctx: ToolContext, name_path: str, file_path: str | None) -> tuple[Target, Symbol, Span, list[str]]:
    target = resolve_target(ctx, file_path, None, None, name_path)
    found = find_nested(outline(target.doc.text, target.language), target.pos.line + 1, target.name_start + 1)
    if found is None:
        raise ToolFailure(f"{name_path}: the syntax index points at {target.location}, but no definition "
                          "starts there now; run find_symbol again")
    sym, depth = found
    lines = target.doc.text.split("\n")
    try:
        span = span_of(lines, sym, depth)
    except ValueError as exc:
        raise ToolFailure(f"{exc}; edit it with replace_in_file") from exc
    return target, sym, span, lines


def _write(ctx: ToolContext, target: Target, lines: list[str], operation: str, summary: str) -> ToolResult:
    edit = ctx.workspace.edit_for(target.doc, "\n".join(lines))
    return commit(ctx, [edit], operation=operation, summary=summary)


@tool(name="replace_symbol", model=ReplaceSymbolInput, toolset="semantic", mutating=True)
def replace_symbol(ctx: ToolContext, args: ReplaceSymbolInput) -> ToolResult:
    """Replace one whole definition (function, method, class; decorators through its end) found by
    name path, without re-sending the file; re-indented to fit. Prefer it over replace_in_file
    to rewrite a whole function. Refused if the text defines another name or breaks the syntax."""
    target, sym, span, lines = _locate(ctx, args.name_path, args.file_path)
    names, errors = defined_names(args.new_text, target.language, member=span.depth > 0)
    if errors:
        raise ToolFailure(f"new_text has {errors} syntax error(s) on its own; nothing was written")
    if names != [sym.name]:
        got = ", ".join(names) if names else "no definition"
        raise ToolFailure(f"new_text defines {got}, not {sym.name!r}: replace_symbol swaps {sym.name_path} for a "
                          f"new version of it. To add a definition use insert_after_symbol; to rename, "
                          "rename_symbol. Nothing was written.")
    rows = reindent(args.new_text, span.indent)
    new = lines[:span.start] + rows + lines[span.end + 1:]
    return _write(ctx, target, new, "replace_symbol",
                  f"replaced {sym.name_path} ({target.path}:{span.start + 1}-{span.end + 1}, now "
                  f"{len(rows)} line(s))")


def _insert(ctx: ToolContext, args: InsertSymbolInput, after: bool) -> ToolResult:
    target, sym, span, lines = _locate(ctx, args.name_path, args.file_path)
    names, errors = defined_names(args.text, target.language, member=span.depth > 0)
    if errors or not names:
        why = f"{errors} syntax error(s)" if errors else "no definition"
        raise ToolFailure(f"text has {why} on its own; insert a whole definition. Nothing was written.")
    rows = reindent(args.text, span.indent)
    gap = [""] * blank_lines(target.doc.text, target.language, span.depth)
    if after:
        rest = lines[span.end + 1:]
        follow = gap if rest and rest[0].strip() else []
        new = lines[:span.end + 1] + gap + rows + follow + rest
        where = f"after {sym.name_path} (line {span.end + 1})"
    else:
        before = lines[:span.start]
        lead = gap if before and before[-1].strip() and not before[-1].rstrip().endswith((":", "{")) else []
        new = before + lead + rows + gap + lines[span.start:]
        where = f"before {sym.name_path} (line {span.start + 1})"
    return _write(ctx, target, new, "insert_after_symbol" if after else "insert_before_symbol",
                  f"inserted {', '.join(names)} {where} in {target.path}")


@tool(name="insert_after_symbol", model=InsertSymbolInput, toolset="semantic", mutating=True)
def insert_after_symbol(ctx: ToolContext, args: InsertSymbolInput) -> ToolResult:
    """Insert a definition right after one found by name path, at its indentation and with the
    blank lines the file uses. Prefer it over replace_in_file to add a function or method."""
    return _insert(ctx, args, after=True)


@tool(name="insert_before_symbol", model=InsertSymbolInput, toolset="semantic", mutating=True)
def insert_before_symbol(ctx: ToolContext, args: InsertSymbolInput) -> ToolResult:
    """Insert a definition right before one (above its decorators) found by name path, at its
    indentation and with the blank lines the file uses."""
    return _insert(ctx, args, after=False)
