"""`codeagent def|refs|rename|diagnostics` when no daemon runs yet: start it before the heavy imports.

The normal path builds the whole parser first, which imports every command and so the tools and
the protocol layer (lsprotocol alone builds ~500 attrs classes: 0.5 s on a quiet machine, several
seconds on a loaded one); only then does it fork the daemon, which then starts the server. Here
the command is parsed on the standard library (via_daemon), only the settings are loaded, and the
daemon is forked at once: its first act is to spawn the language server
(DaemonClient._fork → start_language_early), and it imports the tools while the server boots on
the other core. This process imports nothing more and waits for the answer.

Anything unusual — a daemon socket already there (the normal path knows what to do with it),
settings with warnings (the normal path prints them), a config error, `lsp.daemon` not "auto" —
returns None and the normal path runs. A daemon that cannot start is said, and the call runs in
this process, as the normal path does.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from ..config import ConfigError, load_settings
from ..daemon.client import DaemonClient
from ..daemon.protocol import DaemonError, state_dir
from .via_daemon import print_result, semantic_call


def try_cold(argv: Sequence[str]) -> int | None:
    """Answer a semantic command through a daemon started now; None when the normal path must."""
    call = semantic_call(argv)
    if call is None:
        return None
    try:
        if (state_dir(call.root) / "sock").exists():
            return None
        settings = load_settings(call.root)
    except (ConfigError, DaemonError, OSError):  # no state folder: the normal path explains
        return None
    if settings.warnings or settings.lsp.daemon != "auto":
        return None
    try:
        result = DaemonClient(call.root, settings, fork=True).call_tool(call.tool, call.tool_args)
    except DaemonError as exc:
        print(f"codeagent: daemon unavailable ({exc}); running in-process", file=sys.stderr)
        from .code import run_tool

        result = run_tool(call.root, settings, call.tool, call.tool_args, use_daemon=False)
    return print_result(call, result)
