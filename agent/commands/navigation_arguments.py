"""The grammar of `codeagent type|calls|impls|hierarchy|fix PATH:LINE:COL`, declared once: their
arguments and the tool call each makes. navigation.py builds the full parsers from it,
via_daemon.py reads the same tables (a warm daemon answers before any heavy import). Nothing
imported at load but arguments.py (see there why)."""

from __future__ import annotations

import os

from .arguments import file_arg, position_parts
from .output import UsageError

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    from typing import Any

    _Arg = tuple[tuple[str, ...], dict[str, Any]]

TOOLS = {"type": "type_info", "calls": "call_hierarchy", "impls": "find_implementations",
         "hierarchy": "type_hierarchy", "fix": "code_actions"}
HELP = {"type": "the type or signature at a position, its kind, qualified name and doc summary",
        "calls": "callers (or --outgoing: callees) of a function as a tree",
        "impls": "implementations, overrides and subclasses of the symbol at a position",
        "hierarchy": "the class tree above (--up, the default) or below (--down) a class",
        "fix": "the server's quick fixes at a position; --apply TITLE applies one (undo: codeagent undo)"}
POSITION_HELP = "PATH:LINE:COL (1-based, columns in characters)"
_TARGET: _Arg = (("target",), {"help": POSITION_HELP})
ARGUMENTS: dict[str, tuple[_Arg, ...]] = {
    "type": (_TARGET,),
    "calls": (_TARGET,
              (("--outgoing",), {"action": "store_true", "help": "callees instead of callers"}),
              (("--depth",), {"type": int, "default": 1, "choices": range(1, 6), "metavar": "N",
                              "help": "levels to follow (1-5, default 1)"})),
    "impls": (_TARGET,),
    "hierarchy": (_TARGET,
                  (("--up",), {"action": "store_true", "help": "supertypes (the default)"}),
                  (("--down",), {"action": "store_true", "help": "subtypes"})),
    "fix": (_TARGET,
            (("--apply",), {"metavar": "TITLE", "help": "apply the action with this title (a unique prefix works)"})),
}
EXCLUSIVE = {"hierarchy": ("--up", "--down")}  # at most one of these flags


def position(raw: str, root: str | os.PathLike[str]) -> dict[str, Any]:
    parts = position_parts(raw.strip())
    if parts is None:
        raise UsageError(f"{raw!r}: expected {POSITION_HELP}")
    line, col = int(parts[1]), int(parts[2])
    if line < 1 or col < 1:
        raise UsageError(f"{raw!r}: LINE and COL are 1-based")
    return {"file_path": file_arg(parts[0], root), "line": line, "column": col}


def tool_args(command: str, args: argparse.Namespace, root: str | os.PathLike[str]) -> tuple[str, dict[str, Any]]:
    """(tool name, its arguments) for a parsed navigation command."""
    out = position(args.target, root)
    name = TOOLS[command]
    if command == "calls":
        out.update(direction="outgoing" if args.outgoing else "incoming", depth=args.depth)
    elif command == "hierarchy":
        if args.up and args.down:
            raise UsageError("give --up or --down, not both")
        out["direction"] = "subtypes" if args.down else "supertypes"
    elif command == "fix" and args.apply:
        name = "apply_code_action"
        out["title"] = args.apply
    return name, out
