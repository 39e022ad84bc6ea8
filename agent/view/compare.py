"""The Compare page's data: a rename's semantic plan beside a word-boundary text replacement.

The plan is the `rename_symbol` tool run through the registry as a dry run (nothing is written),
the comparison `agent.refactor.compare.compare_plan`, the function `codeagent rename --compare`
prints: the same numbers, drawn as rows of code with what each approach does at each site."""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass, field
from typing import Any

from markupsafe import Markup, escape

from ..errors import CodeagentError
from ..refactor.compare import compare_plan
from ..registry import Registry
from ..toolcontext import ToolContext
from .diffs import Diff, parse

_LOCK = threading.Lock()  # the tool context's language servers serve one request at a time here


@dataclass(slots=True)
class SiteRow:
    path: str
    line: int
    column: int
    code: Markup  # the line as it is, the site marked
    text_result: Markup  # the line after the text replacement
    semantic_result: Markup  # the line after the semantic rename
    text_says: str
    semantic_says: str
    wrong: bool  # text replacement gets this one wrong


@dataclass(slots=True)
class Comparison:
    old_name: str
    new_name: str
    target: str
    method: str
    both: int
    wrongly: int
    missed: int
    rows: list[SiteRow]
    reasons: dict[str, int]
    sites: list[dict[str, Any]]  # the semantic sites, each with its reason
    diff: Diff
    notes: list[str] = field(default_factory=list)


def request_args(form: dict[str, str]) -> dict[str, Any]:
    """The Compare form → rename_symbol's arguments (PATH + LINE + COLUMN, or a symbol name path)."""
    args: dict[str, Any] = {"new_name": form.get("new_name", "").strip(), "dry_run": True,
                            "allow_syntactic": False, "check_diagnostics": False}
    path, symbol = form.get("file_path", "").strip(), form.get("symbol", "").strip()
    if path:
        args["file_path"] = path
    if symbol:
        args["symbol"] = symbol
    for key in ("line", "column"):
        raw = form.get(key, "").strip()
        if raw:
            if not raw.isdigit():
                raise ValueError(f"{key} must be a whole number (1-based)")
            args[key] = int(raw)
    return args


def run_compare(ctx: ToolContext, registry: Registry, args: dict[str, Any]) -> Comparison:
    """Plan the rename (dry run) and compare it; a tool failure raises ValueError with its message."""
    with _LOCK:
        result = registry.call(ctx, "rename_symbol", args)
        if not result.success:
            raise ValueError(result.error or "the rename could not be planned")
        data = dict(result.data)
        data["compare"] = compare_plan(ctx, data)
    return build(ctx, data)


def build(ctx: ToolContext, data: dict[str, Any]) -> Comparison:
    """The page's rows from a dry-run rename_symbol result's data with its "compare" part."""
    compared = data["compare"]
    old, new = str(data["old_name"]), str(data["new_name"])
    sites = [s for s in data.get("sites", []) if isinstance(s, dict)]
    by_line: dict[tuple[str, int], list[int]] = {}
    for s in sites:
        by_line.setdefault((str(s["path"]), int(s["line"])), []).append(int(s["column"]))
    texts: dict[str, list[str]] = {}
    rows: list[SiteRow] = []
    items = [(w, True) for w in compared.get("text_would_wrongly_change", [])]
    items += [(m, False) for m in compared.get("text_would_miss", [])]
    for item, wrongly in sorted(items, key=lambda x: (x[0]["path"], x[0]["line"], x[0]["column"])):
        path, ln, col = str(item["path"]), int(item["line"]), int(item["column"])
        if path not in texts:
            try:
                texts[path] = ctx.workspace.read(path).text.split("\n")
            except (CodeagentError, OSError):
                texts[path] = []
        line = texts[path][ln - 1] if 0 < ln <= len(texts[path]) else ""
        semantic_cols = by_line.get((path, ln), [])
        rows.append(SiteRow(
            path, ln, col, _mark(line, {col}, len(old)),
            _word_replaced(line, old, new),
            _replaced_at(line, semantic_cols, len(old), new),
            f"changed ({item.get('why')})" if wrongly else "missed",
            "left alone" if wrongly else "renamed", wrongly))
    notes = [str(compared["note"])] if compared.get("note") else []
    return Comparison(old, new, str(data.get("target", "")), str(data.get("method", "")), int(compared["both"]),
                      int(compared["text_would_wrongly_change_count"]), int(compared["text_would_miss_count"]),
                      rows, dict(data.get("reasons") or {}), sites, parse(str(data.get("diff") or ""), sites), notes)


def _mark(line: str, cols: set[int], width: int) -> Markup:
    """The line escaped, with the identifier at each 1-based column in <mark>."""
    out: list[str] = []
    pos = 0
    for col in sorted(cols):
        start = col - 1
        if start < pos or start > len(line):
            continue
        out.append(str(escape(line[pos:start])))
        out.append(f"<mark>{escape(line[start:start + width])}</mark>")
        pos = start + width
    out.append(str(escape(line[pos:])))
    return Markup("".join(out))  # noqa: S704 (every piece escaped above)


def _word_replaced(line: str, old: str, new: str) -> Markup:
    rx = re.compile(rf"\b{re.escape(old)}\b")
    out: list[str] = []
    pos = 0
    for m in rx.finditer(line):
        out.append(str(escape(line[pos:m.start()])))
        out.append(f"<ins>{escape(new)}</ins>")
        pos = m.end()
    out.append(str(escape(line[pos:])))
    return Markup("".join(out))  # noqa: S704


def _replaced_at(line: str, cols: list[int], width: int, new: str) -> Markup:
    out: list[str] = []
    pos = 0
    for col in sorted(set(cols)):
        start = col - 1
        if start < pos or start > len(line):
            continue
        out.append(str(escape(line[pos:start])))
        out.append(f"<ins>{escape(new)}</ins>")
        pos = start + width
    out.append(str(escape(line[pos:])))
    return Markup("".join(out))  # noqa: S704
