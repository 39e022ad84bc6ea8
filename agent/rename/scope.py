"""Whole-workspace scope for a checker that the project configured narrower.

A project's `[tool.pyright]` / `[tool.basedpyright]` (pyproject.toml) or `pyrightconfig.json` may
`include` only some folders or `exclude` others (click includes only `src/click` and
`tests/typing`); the server then never searches the rest, tests included. A rename must cover the
whole workspace, so the files outside that configuration that mention the name are opened in the
server (open documents are always part of its program) before it is asked.
"""

from __future__ import annotations

import json
import tomllib
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import pathspec


def _pyright_config(root: Path) -> dict[str, Any] | None:
    cfg = root / "pyrightconfig.json"
    if cfg.is_file():
        try:
            data = json.loads(cfg.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None  # pyright accepts JSON with comments; an unreadable one is left to it
        return data if isinstance(data, dict) else None
    pyproject = root / "pyproject.toml"
    if pyproject.is_file():
        try:
            tool = tomllib.loads(pyproject.read_text(encoding="utf-8")).get("tool", {})
        except (OSError, ValueError):
            return None
        for key in ("basedpyright", "pyright"):
            section = tool.get(key) if isinstance(tool, dict) else None
            if isinstance(section, dict):
                return section
    return None


def _spec(entries: object) -> pathspec.PathSpec | None:
    if not isinstance(entries, list) or not entries:
        return None
    lines = [str(e).strip().removeprefix("./").rstrip("/") for e in entries if isinstance(e, str) and e.strip()]
    lines = ["/" if line in ("", ".") else line for line in lines]
    if "/" in lines:
        return pathspec.PathSpec.from_lines("gitignore", ["*"])
    return pathspec.PathSpec.from_lines("gitignore", [f"/{line}" for line in lines])


def outside_checker_scope(root: Path, files: Callable[[], Iterable[Path]]) -> list[Path]:
    """The files (of those `files()` lists, called only when a config narrows the scope) that the
    project's pyright configuration leaves out of the server's program."""
    config = _pyright_config(root)
    if not config:
        return []
    include = _spec(config.get("include"))
    exclude = _spec(config.get("exclude"))
    if include is None and exclude is None:
        return []
    out: list[Path] = []
    for path in files():
        try:
            rel = path.relative_to(root).as_posix()
        except ValueError:
            continue
        left_out = include is not None and not include.match_file(rel)
        if left_out or (exclude is not None and exclude.match_file(rel)):
            out.append(path)
    return out
