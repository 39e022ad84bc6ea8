"""`--compare` for move, signature and delete: the text route's result (routes.py, signature.py)
beside the semantic plan's dry run (its unified diff applied to the same files), as data and as
text. The only part of the package that reads the workspace."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ...languages import server_language
from ...toolcontext import ToolContext
from ...walk import iter_files
from .blocks import block, is_python
from .diff import apply_unified, compare_texts
from .routes import text_delete, text_move
from .signature import text_signature

MAX_FILES = 20_000
MAX_LISTED = 100
MAX_LINES = 6  # of one side of one site in the text form
ROUTE = {"move": "cut/paste the block + single-line import rewrites",
         "signature": "replace the parameter list + regex NAME( call rewriting",
         "delete": "remove the block"}


def read_family(ctx: ToolContext, family: str | None) -> tuple[dict[str, str], int]:
    """{rel: text} of the workspace's files of one server family, and how many were left out."""
    root = ctx.workspace.root
    files: dict[str, str] = {}
    skipped = 0
    for count, path in enumerate(iter_files(root, root)):
        if server_language(path) != family:
            continue
        if count >= MAX_FILES:
            skipped += 1
            continue
        try:
            files[Path(path).resolve().relative_to(root).as_posix()] = ctx.workspace.read(path).text
        except Exception:  # unreadable or binary: a text tool skips it too
            continue
    return files, skipped


def _target(data: dict[str, Any]) -> tuple[str, int]:
    path, line, _col = str(data["target"]).rsplit(":", 2)
    return path, int(line) - 1


def compare_op(ctx: ToolContext, op: str, data: dict[str, Any], *, dest: str = "", new_params: str = "",
               values: dict[str, str] | None = None) -> dict[str, Any]:
    """The comparison data for a dry-run (or refused) result of move_symbol / change_signature /
    safe_delete: the sites the text route misses, changes wrongly, or changes differently."""
    path, line = _target(data)
    name = str(data["name"])
    files, skipped = read_family(ctx, server_language(path))
    if path not in files:
        return {"error": f"{path}: not readable as source"}
    if op == "move":
        text_after = text_move(files, path, dest, name)
    elif op == "signature":
        text_after = text_signature(files, path, line, name, new_params, values or {})
    else:
        text_after = text_delete(files, path, name)
    semantic_after = apply_unified(str(data.get("diff") or ""), files)
    compared = compare_texts(files, text_after, semantic_after)
    out: dict[str, Any] = {"route": ROUTE[op], "semantic_refused": bool(data.get("conflicts")) or not data.get("diff")}
    for kind, items in compared.items():
        out[kind] = items[:MAX_LISTED]
        out[f"{kind}_count"] = len(items)
    if op == "delete":
        out["text_deletes_referenced"] = bool(data.get("conflicts")) and block(files[path], name, is_python(path)) \
            is not None
        out["references"] = list(data.get("conflicts") or [])[:MAX_LISTED]
    if skipped:
        out["note"] = f"{skipped} source file(s) past the first {MAX_FILES} were not compared"
    return out


def _side(lines: list[str]) -> list[str]:
    shown = [f"    {line}" for line in lines[:MAX_LINES]] or ["    (removed)"]
    if len(lines) > MAX_LINES:
        shown.append(f"    [... {len(lines) - MAX_LINES} more line(s)]")
    return shown


def format_op_compare(op: str, name: str, compared: dict[str, Any]) -> str:
    if "error" in compared:
        return f"--compare: {compared['error']}"
    head = (f"{op} {name}: the text route ({compared['route']}) misses {compared['missed_count']} site(s), "
            f"changes {compared['wrong_count']} it should not, and does {compared['different_count']} differently")
    lines = [head + (" (codeagent refused the change)" if compared["semantic_refused"] else "") + "."]
    if compared.get("text_deletes_referenced"):
        lines.append(f"The text route would delete {name} although it is still referenced:")
        lines.extend(f"  {ref}" for ref in compared["references"])
    labels = {"missed": "missed by the text route", "wrong": "changed by the text route only (wrong)",
              "different": "changed differently"}
    for kind in ("missed", "wrong", "different"):
        for item in compared[kind]:
            lines.append(f"{item['path']}:{item['line']}: {labels[kind]}")
            if item["old"]:
                lines.append("  was:")
                lines.extend(_side(item["old"]))
            lines.append("  text route:")
            lines.extend(_side(item["text_route"]) if item["text_route"] != item["old"] else ["    (unchanged)"])
            lines.append("  codeagent:")
            lines.extend(_side(item["codeagent"]) if item["codeagent"] != item["old"] else ["    (unchanged)"])
        if compared[f"{kind}_count"] > len(compared[kind]):
            lines.append(f"[... {compared[f'{kind}_count'] - len(compared[kind])} more {labels[kind]} not listed ...]")
    if compared.get("note"):
        lines.append(compared["note"])
    return "\n".join(lines)
