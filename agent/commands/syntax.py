"""`codeagent index`: build or refresh the workspace's symbol index (the cache find_symbol and
list_symbols use), with a progress bar on a terminal. The command itself lives in index_cold.py,
which agent/cli.py runs before the rest of the CLI loads; this registers it in the full parser
(help, usage errors, and callers that parse the whole command line)."""

from __future__ import annotations

from typing import Any

from .index_cold import add_index_arguments, index_command


def register(sub: Any) -> None:
    p = sub.add_parser("index", help="build or refresh the symbol index of the workspace")
    add_index_arguments(p)
    p.set_defaults(func=index_command)
