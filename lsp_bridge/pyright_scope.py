"""Files a pyright-family server would leave out because of the project's own include/exclude.

pyright reads `include`/`exclude` from pyrightconfig.json or pyproject.toml ([tool.pyright] or
[tool.basedpyright]) and the config file wins over anything a client sends. Files outside that
scope are not searched by references or rename, so a rename would silently miss them. The session
opens those files (didOpen): an open file is part of the program whatever the config says.
"""

from __future__ import annotations

import json
import re
import tomllib
from collections.abc import Iterable
from pathlib import Path
from typing import Any

_COMMENTS = re.compile(r'("(?:\\.|[^"\\])*")|//[^\n]*|/\*.*?\*/', re.S)


def _config(root: Path) -> dict[str, Any] | None:
    json_config = root / "pyrightconfig.json"
    if json_config.is_file():
        try:  # JSONC: comments allowed
            data = json.loads(_COMMENTS.sub(lambda m: m.group(1) or "", json_config.read_text(encoding="utf-8")))
        except (OSError, ValueError):
            return None
        return data if isinstance(data, dict) else None
    pyproject = root / "pyproject.toml"
    if pyproject.is_file():
        try:
            tool = tomllib.loads(pyproject.read_text(encoding="utf-8")).get("tool", {})
        except (OSError, ValueError):
            return None
        for key in ("basedpyright", "pyright"):
            if isinstance(tool.get(key), dict):
                return tool[key]
    return None


def _pattern(root: Path, spec: str) -> re.Pattern[str]:
    """A pyright path spec (relative to root; `**`, `*`, `?` wildcards) matching the path itself or
    anything below it."""
    out = []
    parts = spec.strip().strip("/").removeprefix("./").split("/")
    for index, part in enumerate(parts):
        if part == "**":
            out.append("(?:[^/]+/)*" if index < len(parts) - 1 else ".*")
            continue
        piece = "".join("[^/]*" if ch == "*" else "[^/]" if ch == "?" else re.escape(ch) for ch in part)
        out.append(piece + ("/" if index < len(parts) - 1 else ""))
    body = "".join(out)
    base = re.escape(root.as_posix().rstrip("/")) + "/"
    if spec.strip() in (".", "./", ""):
        return re.compile(base + ".*")
    return re.compile(base + body + "(?:/.*)?$")


def hidden_by_config(root: Path, files: Iterable[Path]) -> list[Path]:
    """The files (of `files`) the project's pyright config keeps out of the analysed set."""
    config = _config(root)
    if not config or not ({"include", "exclude"} & set(config)):
        return []
    include = [p for p in config.get("include") or ["."] if isinstance(p, str)]
    exclude = [p for p in config.get("exclude") or [] if isinstance(p, str)]
    included = [_pattern(root, p) for p in include]
    excluded = [_pattern(root, p) for p in exclude]
    hidden = []
    for path in files:
        text = path.as_posix()
        if not any(p.match(text) for p in included) or any(p.match(text) for p in excluded):
            hidden.append(path)
    return hidden
