"""The grammar of `codeagent tool NAME --args JSON`, standard library only: the CLI's parser and
the warm-daemon fast path (via_daemon.py) read a call the same way.

`--args -` reads stdin once: when the fast path has read it and then leaves the call to the
normal path, the normal path gets the same text (stdin cannot be read twice).
"""

from __future__ import annotations

import sys
from typing import Any

from .jsonargs import parse_json_args
from .output import UsageError

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
