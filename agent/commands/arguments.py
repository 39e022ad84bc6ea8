"""The grammar of `codeagent def|refs|rename|diagnostics`, declared once: their arguments, how a
TARGET is read (`PATH:LINE:COL`, `PATH::NAME_PATH`, `NAME_PATH`) and the tool arguments they make.
code.py builds the full parsers from it, via_daemon.py its quiet ones. Standard library only."""

from __future__ import annotations

import argparse
import re
from pathlib import Path
from typing import Any

from ..languages import SOURCE_SUFFIXES
from .output import UsageError

_POSITION = re.compile(r"^(?P<path>.+):(?P<line>\d+):(?P<col>\d+)$")
_LINE_ONLY = re.compile(r"^(?P<path>.+):(?P<line>\d+)$")
_IN_FILE = re.compile(r"^(?P<path>.+?)::(?P<symbol>.+)$")
POSITION_ONLY, LINE_ONLY = _POSITION, _LINE_ONLY  # `diagnostics PATH:LINE[:COL]` checks the whole file

TOOLS = {"def": "find_definition", "refs": "find_references", "rename": "rename_symbol",
         "diagnostics": "get_diagnostics"}
TARGET_HELP = "PATH:LINE:COL (1-based, columns in characters), PATH::NAME or a name such as Class.method"
COMMAND_HELP = {"def": "where a symbol is defined", "refs": "every reference to a symbol, grouped by file",
                "rename": "rename a symbol everywhere (language server; one undo)",
                "diagnostics": "errors and warnings of a file"}
_Arg = tuple[tuple[str, ...], dict[str, Any]]
_FLAG = "store_true"
ARGUMENTS: dict[str, tuple[_Arg, ...]] = {
    "def": ((("target",), {"help": TARGET_HELP}),),
    "refs": ((("target",), {"help": TARGET_HELP}),
             (("--no-declaration",), {"action": _FLAG, "help": "leave the definition itself out"})),
    "rename": (
        (("target",), {"help": TARGET_HELP}),
        (("new_name",), {"help": "the new identifier"}),
        (("--dry-run",), {"action": _FLAG, "help": "print the diff; write nothing"}),
        (("--compare",), {"action": _FLAG, "help": "dry run, side by side with a word-boundary text replacement: "
                          "what it would wrongly change and what it would miss"}),
        (("--view",), {"action": _FLAG, "help": "with --compare: also open the comparison as a page of the web "
                       "view (see `codeagent view`)"}),
        (("--allow-syntactic",), {"action": _FLAG, "help": "without a language server, rename same-named "
                                  "identifiers in other files too"}),
        (("--check",), {"action": _FLAG, "help": "after writing, wait (up to lsp.check_timeout) for the language "
                        "server to re-check the changed files; new errors undo the rename and exit 1 (off by "
                        "default: a full re-check costs seconds on big files; the agent's rename_symbol tool "
                        "always checks)"}),
        (("--strings",), {"action": _FLAG, "help": "also rename the name in string literals and docstrings "
                          "(listed for review otherwise)"}),
        (("--comments",), {"action": _FLAG, "help": "also rename the name in comments (listed for review otherwise)"}),
        (("--force",), {"action": _FLAG, "help": "keep the rename even when --check finds new errors"}),
    ),
    "diagnostics": ((("path",), {"help": "PATH (PATH:LINE:COL is accepted; the whole file is checked)"}),),
}
COMMON: tuple[_Arg, ...] = (
    (("--root",), {"default": ".", "help": "workspace root (default: the current folder)"}),
    (("--json",), {"action": _FLAG, "help": "print one JSON object (the tool result)"}),
)
NO_DAEMON: _Arg = (("--no-daemon",), {"action": _FLAG, "help": "run in this process (no background server)"})


def add_common(p: argparse.ArgumentParser, *, daemon: bool = True) -> None:
    for flags, kw in (*COMMON, NO_DAEMON) if daemon else COMMON:
        p.add_argument(*flags, **kw)


def add_arguments(p: argparse.ArgumentParser, command: str) -> None:
    """The arguments of one of the four semantic commands, then --root, --json, --no-daemon."""
    for flags, kw in ARGUMENTS[command]:
        p.add_argument(*flags, **kw)
    add_common(p)


def tool_args(command: str, args: argparse.Namespace, root: Path) -> dict[str, Any]:
    """The arguments of the command's tool (TOOLS[command]) from its parsed command line."""
    if command == "diagnostics":
        m = POSITION_ONLY.match(args.path) or LINE_ONLY.match(args.path)
        return {"file_path": file_arg(m["path"] if m else args.path, root)}
    out = parse_target(args.target, root)
    if command == "refs":
        out["include_declaration"] = not args.no_declaration
        out["limit"] = 0  # the CLI lists every reference (a model's call is paged)
    if command == "rename":
        out.update(new_name=args.new_name, dry_run=bool(args.dry_run or args.compare),
                   allow_syntactic=args.allow_syntactic, check_diagnostics=args.check, force=args.force,
                   include_strings=args.strings, include_comments=args.comments)
    return out


def file_arg(raw: str, root: Path) -> str:
    """A path as typed: relative to the current folder when it exists there inside the root,
    otherwise relative to the root."""
    given = Path(raw)
    if given.is_absolute():
        return raw
    here = (Path.cwd() / given).resolve()
    if here.exists() and (here == root or root in here.parents):
        return str(here)
    return raw


def parse_target(raw: str, root: Path) -> dict[str, Any]:
    """`PATH:LINE:COL` | `PATH::NAME_PATH` | `NAME_PATH` → the position arguments of a tool."""
    text = raw.strip()
    if m := _POSITION.match(text):
        line, col = int(m["line"]), int(m["col"])
        if line < 1 or col < 1:
            raise UsageError(f"{raw!r}: LINE and COL are 1-based")
        return {"file_path": file_arg(m["path"], root), "line": line, "column": col}
    if m := _IN_FILE.match(text):
        return {"file_path": file_arg(m["path"], root), "symbol": m["symbol"]}
    if _LINE_ONLY.match(text):
        raise UsageError(f"{raw!r}: give the column too, as PATH:LINE:COL (1-based, in characters)")
    if "/" in text or text.endswith(SOURCE_SUFFIXES) or not text:
        raise UsageError(f"{raw!r}: expected PATH:LINE:COL, PATH::NAME or a symbol name such as Class.method")
    return {"symbol": text}
