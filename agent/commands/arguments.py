r"""The grammar of `codeagent def|refs|rename|diagnostics`, declared once: their arguments, how a
TARGET is read (`PATH:LINE:COL`, `PATH::NAME_PATH`, `NAME_PATH`) and the tool arguments they make.
code.py builds the full parsers from it, via_daemon.py reads the same tables (quickparse.py).

Nothing imported at load but the suffix table: the warm fast path runs on this module, and re,
pathlib, argparse and typing would cost a warm call ~20 ms of imports. A TARGET is read with
string methods that match exactly what these regular expressions would (tests/test_quickparse.py
checks them against each other):

    PATH:LINE:COL   ^(?P<path>.+):(?P<line>\d+):(?P<col>\d+)$
    PATH:LINE       ^(?P<path>.+):(?P<line>\d+)$
    PATH::NAME      ^(?P<path>.+?)::(?P<symbol>.+)$
"""

from __future__ import annotations

import os

from ..languages import SOURCE_SUFFIXES
from .output import UsageError

TYPE_CHECKING = False  # (typing's import costs the warm path ~4 ms; mypy and ruff read the name)
if TYPE_CHECKING:
    import argparse
    from typing import Any

    _Arg = tuple[tuple[str, ...], dict[str, Any]]

TOOLS = {"def": "find_definition", "refs": "find_references", "rename": "rename_symbol",
         "diagnostics": "get_diagnostics"}
TARGET_HELP = "PATH:LINE:COL (1-based, columns in characters), PATH::NAME or a name such as Class.method"
COMMAND_HELP = {"def": "where a symbol is defined", "refs": "every reference to a symbol, grouped by file",
                "rename": "rename a symbol everywhere (language server; one undo)",
                "diagnostics": "errors and warnings of a file"}
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
        (("--force",), {"action": _FLAG, "help": "write the rename even when the new name conflicts with an "
                        "existing one (refused otherwise, with the list of conflicts), and keep it when --check "
                        "finds new errors"}),
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


def tool_args(command: str, args: argparse.Namespace, root: str | os.PathLike[str]) -> dict[str, Any]:
    """The arguments of the command's tool (TOOLS[command]) from its parsed command line."""
    if command == "diagnostics":  # `diagnostics PATH:LINE[:COL]` checks the whole file
        parts = position_parts(args.path) or line_parts(args.path)
        return {"file_path": file_arg(parts[0] if parts else args.path, root)}
    out = parse_target(args.target, root)
    if command == "refs":
        out["include_declaration"] = not args.no_declaration
        out["limit"] = 0  # the CLI lists every reference (a model's call is paged)
    if command == "rename":
        out.update(new_name=args.new_name, dry_run=bool(args.dry_run or args.compare),
                   allow_syntactic=args.allow_syntactic, check_diagnostics=args.check, force=args.force,
                   include_strings=args.strings, include_comments=args.comments)
    return out


def resolved_root(raw: str) -> str | None:
    """`Path(raw).expanduser().resolve()` as a string, when it is a folder; else None (the normal
    path says why, or raises what pathlib raises: a home it cannot find, a symlink loop)."""
    expanded = os.path.expanduser(raw)
    if expanded.startswith("~"):
        return None
    root = os.path.realpath(expanded)
    return root if os.path.isdir(root) else None


def _line(text: str) -> str | None:
    """`text` as the part of a `^...$` match before its end: `$` also matches before a final
    newline, and `.` matches anything but a newline."""
    body = text[:-1] if text.endswith("\n") else text
    return None if "\n" in body else body


def position_parts(text: str) -> tuple[str, str, str] | None:
    """(path, line, col) of `PATH:LINE:COL` (digits as `\\d` has them: any decimal digit), else None."""
    body = _line(text)
    if body is None:
        return None
    pieces = body.rsplit(":", 2)
    if len(pieces) == 3 and pieces[0] and pieces[1].isdecimal() and pieces[2].isdecimal():
        return pieces[0], pieces[1], pieces[2]
    return None


def line_parts(text: str) -> tuple[str, str] | None:
    """(path, line) of `PATH:LINE`, else None."""
    body = _line(text)
    if body is None:
        return None
    pieces = body.rsplit(":", 1)
    if len(pieces) == 2 and pieces[0] and pieces[1].isdecimal():
        return pieces[0], pieces[1]
    return None


def in_file_parts(text: str) -> tuple[str, str] | None:
    """(path, name) of `PATH::NAME`: the first `::` after the path's first character."""
    body = _line(text)
    if body is None:
        return None
    at = body.find("::", 1)
    if at < 0 or at + 2 == len(body):
        return None  # (a later `::` would leave an even shorter, so also empty, name)
    return body[:at], body[at + 2:]


def file_arg(raw: str, root: str | os.PathLike[str]) -> str:
    """A path as typed: relative to the current folder when it exists there inside the root,
    otherwise relative to the root. (`root`: resolved, as --root is.)"""
    if raw.startswith("/"):
        return raw
    here = os.path.realpath(os.path.join(os.getcwd(), raw))
    top = os.fspath(root)
    if os.path.exists(here) and (here == top or here.startswith(top if top.endswith("/") else top + "/")):
        return here
    return raw


def parse_target(raw: str, root: str | os.PathLike[str]) -> dict[str, Any]:
    """`PATH:LINE:COL` | `PATH::NAME_PATH` | `NAME_PATH` → the position arguments of a tool."""
    text = raw.strip()
    if position := position_parts(text):
        line, col = int(position[1]), int(position[2])
        if line < 1 or col < 1:
            raise UsageError(f"{raw!r}: LINE and COL are 1-based")
        return {"file_path": file_arg(position[0], root), "line": line, "column": col}
    if in_file := in_file_parts(text):
        return {"file_path": file_arg(in_file[0], root), "symbol": in_file[1]}
    if line_parts(text):
        raise UsageError(f"{raw!r}: give the column too, as PATH:LINE:COL (1-based, in characters)")
    if "/" in text or text.endswith(SOURCE_SUFFIXES) or not text:
        raise UsageError(f"{raw!r}: expected PATH:LINE:COL, PATH::NAME or a symbol name such as Class.method")
    return {"symbol": text}
