"""Hits shaped for a model: grouped by file, then by the definition enclosing them
(`in Registry.describe`; at module level the module, `in module shapes.registry`), each with its
line's text, within a token budget; what did not fit is stated exactly (how many hits, in which
files), never silently dropped. find_references renders its pages with `group_label` too."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .outlines import MODULE, Outlines

TOKEN_BUDGET = 3000  # per answer; a token is taken as 4 characters (English code text averages ~3.5-4)
CHARS_PER_TOKEN = 4
MAX_FILES_NAMED = 10


@dataclass(frozen=True, slots=True)
class Hit:
    """One place in a file: 0-based line and column; `note` says what it is (e.g. "override")."""

    path: str  # workspace-relative, or absolute for a file outside the workspace
    line0: int
    col0: int
    note: str = ""
    extra: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)


@dataclass(slots=True)
class Grouped:
    files: list[dict[str, Any]]  # for data: [{path, groups: [{in, kind, hits: [{line, column, text, ...}]}]}]
    lines: list[str]  # for output
    shown: int
    left_out: int
    left_out_files: dict[str, int]  # path -> hits not shown

    def statement(self) -> str:
        """What was left out, exactly; "" when nothing was."""
        if not self.left_out:
            return ""
        named = sorted(self.left_out_files.items())
        listed = ", ".join(f"{p} ({n})" for p, n in named[:MAX_FILES_NAMED])
        more = f", and {len(named) - MAX_FILES_NAMED} more file(s)" if len(named) > MAX_FILES_NAMED else ""
        return (f"[left out to stay within ~{TOKEN_BUDGET} tokens: {self.left_out} hit(s) in "
                f"{len(named)} file(s): {listed}{more}]")


def group_hits(outlines: Outlines, hits: list[Hit], *, budget: int = TOKEN_BUDGET) -> Grouped:
    by_file: dict[str, list[Hit]] = {}
    for hit in sorted(set(hits), key=lambda h: (h.path, h.line0, h.col0)):
        by_file.setdefault(hit.path, []).append(hit)
    out = Grouped([], [], 0, 0, {})
    left = budget * CHARS_PER_TOKEN
    for rel, file_hits in sorted(by_file.items()):
        external = Path(rel).is_absolute()
        groups: list[dict[str, Any]] = []
        file_lines = [rel + (" (outside the workspace)" if external else "")]
        left -= len(file_lines[0]) + 1
        for index, hit in enumerate(file_hits):
            where, kind = ("", MODULE) if external else outlines.where(rel, hit.line0, hit.col0)
            text = "" if external else outlines.lines.line(rel, hit.line0)
            row = f"    {hit.line0 + 1}:{hit.col0 + 1}  {text}" + (f"  [{hit.note}]" if hit.note else "")
            header = not groups or groups[-1]["in"] != where
            label = group_label(where, kind)
            cost = len(row) + 1 + (len(label) + 1 if header and not external else 0)
            if cost > left:
                rest = len(file_hits) - index
                out.left_out += rest
                out.left_out_files[rel] = rest
                break
            left -= cost
            if header:
                groups.append({"in": where, "kind": kind, "hits": []})
                if not external:
                    file_lines.append(label)
            entry = {"line": hit.line0 + 1, "column": hit.col0 + 1, "text": text, **hit.extra}
            if hit.note:
                entry["note"] = hit.note
            groups[-1]["hits"].append(entry)
            file_lines.append(row)
            out.shown += 1
        if groups:
            out.files.append({"path": rel, "groups": groups})
            out.lines.extend(file_lines)
    return out


def group_label(where: str, kind: str) -> str:
    """The header line of one group of hits: `  in Registry.describe`, `  in module shapes.registry`."""
    return f"  in module {where}" if kind == MODULE else f"  in {where}"
