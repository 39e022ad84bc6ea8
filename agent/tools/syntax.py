"""Syntax tools (tree-sitter, no language server needed): get_ast, list_symbols, find_symbol."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from ..commit import bounded
from ..errors import ToolFailure
from ..registry import tool
from ..result import ToolResult
from ..services import get_index
from ..syntax import Symbol, language_for, outline, supported_languages
from ..syntax.ast_view import render_ast
from ..syntax.symbols import Entry
from ..toolcontext import ToolContext

FOLDER_DEPTH = 2
MAX_DATA_SYMBOLS = 2000


def _language(path: str) -> str:
    language = language_for(path)
    if language is None:
        raise ToolFailure(
            f"{path}: not a supported source file; get_ast and list_symbols know "
            f"{', '.join(supported_languages())} (.py .pyi .js .mjs .cjs .jsx .ts .mts .cts .tsx .go .rs .java)"
        )
    return language


class GetAstInput(BaseModel):
    file_path: str = Field(description="Source file, relative to the workspace root.")
    line: int | None = Field(None, ge=1, description="1-based line: show the smallest node there and its ancestors.")
    column: int | None = Field(
        None, ge=1, description="1-based column in characters (default: the line's first non-blank character).")
    depth: int = Field(3, ge=0, le=30, description="Levels of children shown below the node (or the file's root).")


@tool(name="get_ast", model=GetAstInput, toolset="semantic")
def get_ast(ctx: ToolContext, args: GetAstInput) -> ToolResult:
    """Show the syntax tree (tree-sitter) of a file: node types, field names, 1-based ranges
    (end exclusive) and the text of leaves. With line (and column), show the smallest node there,
    its chain of ancestors and its subtree. Use it to see how code is structured before an edit."""
    doc = ctx.workspace.read(args.file_path)
    language = _language(doc.path)
    view = render_ast(doc.text, language, line=args.line, column=args.column, depth=args.depth,
                      max_lines=ctx.settings.syntax.max_ast_lines)
    limit = ctx.settings.workspace.max_output_chars
    text = bounded(view.text, limit)
    return ToolResult.ok(text, path=doc.path, language=language, syntax_errors=view.errors, node_type=view.node_type,
                         truncated=view.truncated or len(text) < len(view.text))


class ListSymbolsInput(BaseModel):
    path: str = Field(".", description="A source file (its outline) or a folder (every file's symbols, gitignore-aware).")
    depth: int | None = Field(
        None, ge=1, le=20,
        description=f"Nesting levels shown (1: top level only). Default: all for a file, {FOLDER_DEPTH} for a folder.")
    kinds: list[str] | None = Field(
        None, description="Only these kinds, e.g. [\"class\", \"function\"] (class, function, method, variable, "
        "constant, field, interface, type, enum, enum_member, namespace, struct, trait, impl, module, ...).")


def _line(kind: str, name: str, line: int, column: int, end_line: int, end_column: int, signature: str,
          indent: int) -> str:
    return f"{'  ' * indent}{kind} {name}  {line}:{column}-{end_line}:{end_column}  {signature}"


def _symbol_dict(sym: Symbol, depth: int | None, level: int = 1) -> dict[str, Any]:
    out = sym.to_dict()
    out["children"] = [] if depth is not None and level >= depth else [
        _symbol_dict(c, depth, level + 1) for c in sym.children]
    return out


@tool(name="list_symbols", model=ListSymbolsInput, toolset="semantic")
def list_symbols(ctx: ToolContext, args: ListSymbolsInput) -> ToolResult:
    """List the symbols of a file (its outline: classes, functions, methods, module-level
    constants and variables; TS interfaces, types, enums) with kinds, 1-based ranges and
    one-line signatures, nested by indentation; or of every source file in a folder."""
    ws = ctx.workspace
    real = ws.resolve(args.path)
    kinds = set(args.kinds) if args.kinds else None
    limit = ctx.settings.workspace.max_output_chars
    if real.is_file():
        doc = ws.read(real)
        language = _language(doc.path)
        symbols = outline(doc.text, language)
        lines: list[str] = []

        def add(sym: Symbol, level: int) -> None:
            if args.depth is not None and level >= args.depth:
                return
            if kinds is None or sym.kind in kinds:
                lines.append(_line(sym.kind, sym.name, sym.line, sym.column, sym.end_line, sym.end_column,
                                   sym.signature, level))
            for child in sym.children:
                add(child, level + 1)

        for sym in symbols:
            add(sym, 0)
        header = f"{doc.path} ({language}): {len(lines)} symbols"
        body = "\n".join([header, *lines]) if lines else f"{header} (no definitions found)"
        text = bounded(body, limit, what="characters of the outline")
        data: dict[str, Any] = {"path": doc.path, "language": language, "count": len(lines),
                                "truncated": len(text) < len(body)}
        if len(lines) <= MAX_DATA_SYMBOLS:  # structured copy for programs; the text is what a model reads
            data["symbols"] = [_symbol_dict(s, args.depth) for s in symbols]
        return ToolResult.ok(text, **data)
    if not real.is_dir():
        raise ToolFailure(f"{args.path}: no such file or folder")
    index = get_index(ctx)
    rel = ws.rel(real)
    under = "" if rel == "." else rel
    stats = index.refresh(under)
    depth = args.depth or FOLDER_DEPTH
    out: list[str] = []
    size = 0
    shown_files = total = 0
    files = index.files(under)
    cut_at: str | None = None
    for path in files:
        entries: list[Entry] = [e for e in index.file_entries(path)
                                if e.depth < depth and (kinds is None or e.kind in kinds)]
        if not entries:
            continue
        total += len(entries)
        if cut_at is not None:
            continue
        block = [path] + [_line(e.kind, e.name, e.line, e.column, e.end_line, e.end_column, e.signature, e.depth + 1)
                          for e in entries]
        block_size = sum(len(b) + 1 for b in block)
        if size + block_size > limit and out:
            cut_at = path
            continue
        out.extend(block)
        size += block_size
        shown_files += 1
    files_with = sum(1 for p in files if index.file_entries(p))
    header = f"{rel}: {total} symbols in {files_with} of {len(files)} source files (depth {depth})"
    if cut_at is not None:
        out.append(f"[... output cut at {limit} characters: {shown_files} files shown, the rest from {cut_at} on "
                   "left out; list a subfolder or a file, or use depth=1 or kinds ...]")
    if stats.problem:
        out.append(f"note: {stats.problem}")
    return ToolResult.ok("\n".join([header, *out]), path=rel, files=len(files), symbols=total,
                         truncated=cut_at is not None, parsed=stats.parsed)


class FindSymbolInput(BaseModel):
    name: str = Field(min_length=1, description="A name (`parse_args`) or name path (`Config.load`, "
                      "`utils.slugify`); case, a missing qualifier and small typos are tolerated.")
    kind: str | None = Field(None, description="Only this kind (class, function, method, variable, interface, ...).")
    path: str | None = Field(None, description="Only definitions under this folder or in this file.")
    max_results: int = Field(20, ge=1, le=200, description="Most matches returned.")


@tool(name="find_symbol", model=FindSymbolInput, toolset="semantic")
def find_symbol(ctx: ToolContext, args: FindSymbolInput) -> ToolResult:
    """Find where a symbol is defined, by name or name path, across the workspace (tree-sitter
    index, kept current). Returns file, location of the name, the definition's range, kind and
    signature, best match first; no line or column needed."""
    under = ""
    if args.path:
        rel = ctx.workspace.rel(args.path)
        under = "" if rel == "." else rel
    index = get_index(ctx)
    stats = index.refresh(under or None)
    matches = index.find(args.name, kind=args.kind, under=under, limit=args.max_results, refresh=False)
    notes = [f"note: {stats.problem}"] if stats.problem else []
    if not matches:
        where = f" under {under}" if under else ""
        text = f"No definition matches {args.name!r}{where} ({stats.files} source files indexed)."
        return ToolResult.ok("\n".join([text, *notes]), matches=[], files_indexed=stats.files)
    lines = [f"{len(matches)} definition(s) for {args.name!r}, best first:"]
    for m in matches:
        lines.append(f"{m.path}:{m.line}:{m.column}  {m.kind} {m.name_path}  "
                     f"[{m.start_line}:{m.start_column}-{m.end_line}:{m.end_column}]  {m.signature}"
                     + ("" if m.overloads == 1 else f"  ({m.overloads} overloads)")
                     + ("" if m.origin == "source" else f"  [{m.origin}]")
                     + ("" if m.score >= 1 else f"  (match {m.score:.2f})"))
    text = bounded("\n".join([*lines, *notes]), ctx.settings.workspace.max_output_chars)
    return ToolResult.ok(text, matches=[m.to_dict() for m in matches], files_indexed=stats.files)
