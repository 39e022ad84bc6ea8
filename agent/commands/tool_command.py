"""The grammar of `codeagent tool NAME --args JSON`, standard library only: the CLI's parser and
the warm-daemon fast path (via_daemon.py) read a call the same way.

`--args -` reads stdin once: when the fast path has read it and then leaves the call to the
normal path, the normal path gets the same text (stdin cannot be read twice).
"""

from __future__ import annotations

import sys

from .jsonargs import parse_json_args
from .output import UsageError

TYPE_CHECKING = False  # (typing: not on the warm path, tool_via_daemon.py)
if TYPE_CHECKING:
    from typing import Any

    _Arg = tuple[tuple[str, ...], dict[str, Any]]
ARGUMENTS: tuple[_Arg, ...] = (
    (("name",), {"help": "tool name (see `codeagent tools`)"}),
    (("--args",), {"default": "{}", "help": "the tool's arguments as a JSON object; `-` reads it from stdin, "
                   "`@FILE` from a file"}),
    (("--root",), {"default": ".", "help": "workspace root (default: the current folder)"}),
    (("--stream",), {"action": "store_true", "help": "show a shell tool's output live on stderr"}),
    (("--no-daemon",), {"action": "store_true", "help": "run in this process (no background server)"}),
)
# The tools whose `codeagent tool` call starts the workspace's daemon when none runs (those of
# `codeagent def|refs|diagnostics`: a language server is worth keeping warm). Any other read-only
# tool uses a daemon that already runs and never starts one.
STARTS_DAEMON = frozenset({"find_definition", "find_references", "get_diagnostics"})
# The module of agent/tools that registers each tool (tests/test_tool_homes.py keeps it true):
# `codeagent tool NAME` in process imports that one module, not all of them (the language-server
# stack among them: ~2 s of a search_in_files call's 3 s). A name not here loads every module.
TOOL_HOMES: dict[str, str] = {
    **dict.fromkeys(("apply_code_action", "call_hierarchy", "code_actions", "find_implementations",
                     "type_hierarchy", "type_info"), "navigation"),
    **dict.fromkeys(("find_definition", "find_references", "get_diagnostics", "rename_symbol"), "code"),
    **dict.fromkeys(("apply_patch", "replace_in_file"), "edit"),
    **dict.fromkeys(("change_signature", "safe_delete"), "refactor"),
    **dict.fromkeys(("find_files", "search_in_files"), "workspace_search"),
    **dict.fromkeys(("find_symbol", "get_ast", "list_symbols"), "syntax"),
    **dict.fromkeys(("insert_after_symbol", "insert_before_symbol", "replace_symbol"), "symbol_edit"),
    **dict.fromkeys(("list_directory", "read_file", "write_file"), "files"),
    **dict.fromkeys(("get_project_info", "install_dependencies"), "project"),
    **dict.fromkeys(("run_command", "run_shell_command"), "shell"),
    "finish": "finish", "move_symbol": "move", "remember": "memory",
}

_stdin_text: str | None = None


def read_args(spec: str) -> str:
    """--args is JSON text, `-` for stdin, or `@FILE` (handy for patches and long contents)."""
    global _stdin_text
    if spec == "-":
        if _stdin_text is None:
            _stdin_text = sys.stdin.read()
        return _stdin_text
    if spec.startswith("@"):
        try:
            with open(spec[1:], encoding="utf-8") as fh:
                return fh.read()
        except OSError as exc:
            raise UsageError(f"--args {spec}: {exc.strerror or exc}") from exc
    return spec


def parse_args_json(spec: str) -> Any:
    """The tool's arguments as JSON, bounded (jsonargs.py; the registry says when they are not an object)."""
    return parse_json_args(read_args(spec))
