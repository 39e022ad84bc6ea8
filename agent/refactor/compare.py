"""`codeagent rename --compare`: what a word-boundary text replacement (`sed 's/\\bOLD\\b/NEW/g'`
over every source file) would change, set beside the semantic rename's own sites (the plan's, as
Locations): the places text replacement would wrongly touch, and the ones it would miss. Sites are
compared by where they start (path, line, column)."""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from ..languages import server_language, syntax_language
from ..result import Location
from ..toolcontext import ToolContext
from ..walk import iter_files

MAX_FILES = 20_000
MAX_LISTED = 200

Start = tuple[str, int, int]  # (path, 1-based line, 1-based column): where a site starts


def _start(loc: Location) -> Start:
    return (loc.path, loc.line, loc.column)


def text_sites(ctx: ToolContext, name: str, family: str | None) -> list[Location]:
    """Every word-boundary match of `name` in the workspace's source files of one server family."""
    rx = re.compile(rf"\b{re.escape(name)}\b")
    root = ctx.workspace.root
    out: list[Location] = []
    for count, path in enumerate(iter_files(root, root)):
        if count >= MAX_FILES:
            break
        if server_language(path) != family:
            continue
        try:
            text = ctx.workspace.read(path).text
        except Exception:  # unreadable or binary: text replacement would skip it too
            continue
        if name not in text:
            continue
        rel = Path(path).resolve().relative_to(root).as_posix()
        for lineno, line in enumerate(text.split("\n"), 1):
            if name in line:
                out.extend(Location(rel, lineno, m.start() + 1, lineno, m.end() + 1) for m in rx.finditer(line))
    return out


def _in_code(ctx: ToolContext, sites: Iterable[Start], name: str) -> set[Start]:
    """The subset of `sites` that the syntax layer sees as identifiers in code."""
    try:
        from ..syntax import code_occurrences
    except ImportError:
        return set(sites)
    by_file: dict[str, list[Start]] = {}
    for site in sites:
        by_file.setdefault(site[0], []).append(site)
    found: set[Start] = set()
    for path, file_sites in by_file.items():
        language = syntax_language(path)
        if language is None:
            continue
        try:
            text = ctx.workspace.read(path).text
            occurrences = {(ln + 1, col + 1) for ln, col in code_occurrences(text, language, name)}
        except Exception:
            continue
        found.update(s for s in file_sites if (s[1], s[2]) in occurrences)
    return found


def compare_rename(ctx: ToolContext, old_name: str, family: str | None,
                   planned: Iterable[Location]) -> dict[str, Any]:
    """Side-by-side data: sites both change, text-only (with why they are wrong), semantic-only."""
    semantic = {_start(loc) for loc in planned}
    text = {_start(loc) for loc in text_sites(ctx, old_name, family)}
    only_text = sorted(text - semantic)
    only_semantic = sorted(semantic - text)
    code = _in_code(ctx, only_text, old_name)
    wrongly = [{"path": s[0], "line": s[1], "column": s[2],
                "why": "another symbol with the same name" if s in code else "in a string or comment"}
               for s in only_text]
    missed = [{"path": s[0], "line": s[1], "column": s[2]} for s in only_semantic]
    return {
        "both": len(text & semantic),
        "text_would_wrongly_change": wrongly[:MAX_LISTED],
        "text_would_wrongly_change_count": len(wrongly),
        "text_would_miss": missed[:MAX_LISTED],
        "text_would_miss_count": len(missed),
    }


def compare_plan(ctx: ToolContext, data: dict[str, Any]) -> dict[str, Any]:
    """The comparison for a dry-run `rename_symbol` result's data: what `rename --compare` prints
    and the web view's Compare page draws."""
    planned = [Location(s["path"], s["line"], s["column"], s["end_line"], s["end_column"])
               for s in data.get("sites", [])]
    family = server_language(str(data["target"]).rsplit(":", 2)[0])
    compared = compare_rename(ctx, data["old_name"], family, planned)
    if data.get("site_count", 0) > len(planned):
        compared["note"] = f"only the first {len(planned)} of {data['site_count']} semantic sites were compared"
    return compared


def format_compare(ctx: ToolContext, data: dict[str, Any], old: str, new: str, width: int = 100) -> str:
    """Two columns per differing site: what text replacement does, what the semantic rename does."""
    half = (width - 3) // 2
    lines = [
        f"rename {old} -> {new}: {data['both']} site(s) changed by both; "
        f"text replacement would wrongly change {data['text_would_wrongly_change_count']} "
        f"and miss {data['text_would_miss_count']}.",
    ]
    rows: list[tuple[str, int, int, str, str]] = []
    for item in data["text_would_wrongly_change"]:
        rows.append((item["path"], item["line"], item["column"], f"changed ({item['why']})", "left alone"))
    for item in data["text_would_miss"]:
        rows.append((item["path"], item["line"], item["column"], "missed", "renamed"))
    if rows:
        lines.append("")
        lines.append(f"{'word-boundary text replacement':<{half}} | semantic rename")
        lines.append(f"{'-' * half}-+-{'-' * half}")
        cache: dict[str, list[str]] = {}
        for path, ln, col, text_says, sem_says in sorted(rows):
            if path not in cache:
                try:
                    cache[path] = ctx.workspace.read(path).text.split("\n")
                except Exception:
                    cache[path] = []
            code = cache[path][ln - 1].strip() if ln - 1 < len(cache[path]) else ""
            where = f"{path}:{ln}:{col}"
            lines.append(f"{where}  {code[: max(20, width - len(where) - 2)]}")
            lines.append(f"{'  ' + text_says:<{half}} | {sem_says}")
    shown = len(data["text_would_wrongly_change"]) + len(data["text_would_miss"])
    total = data["text_would_wrongly_change_count"] + data["text_would_miss_count"]
    if shown < total:
        lines.append(f"[... {total - shown} more differing sites not listed ...]")
    return "\n".join(lines)
