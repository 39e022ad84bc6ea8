"""`codeagent def|refs|rename|diagnostics` when no daemon runs yet: start it before the heavy imports.

The normal path builds the whole parser first, which imports every command and so the tools and
the protocol layer (lsprotocol alone builds ~500 attrs classes: 0.5 s on a quiet machine, several
seconds on a loaded one); only then does it fork the daemon, which then starts the server. Here
the command is parsed on the standard library (via_daemon), only the settings are loaded, and the
daemon is forked at once: its first act is to spawn the language server
(DaemonClient._fork → start_language_early), and it imports the tools while the server boots on
the other core. This process imports nothing more and waits for the answer.

Not even the settings models are built before the fork when the workspace's settings sources
are unchanged since the last cold start (agent.configsnapshot): the daemon spawns the server from
the snapshot, then loads the settings itself and serves only if they are the same. On a miss the
settings are loaded here as before and the snapshot stored for the next cold start.

Anything unusual — a daemon socket already there (the normal path knows what to do with it),
settings with warnings (the normal path prints them), a config error, `lsp.daemon` not "auto" —
returns None and the normal path runs. A daemon that cannot start is said, and the call runs in
this process, as the normal path does.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from ..configsnapshot import SettingsSnapshot, load_snapshot, settings_key, store_snapshot
from ..daemon.client import DaemonClient
from ..daemon.protocol import DaemonError, state_dir
from ..errors import CodeagentError
from .via_daemon import print_result, semantic_call

if TYPE_CHECKING:
    from ..config import Settings


class Outcome:
    """Whether this process's answer came from the daemon it forked (then it holds nothing but
    the printed answer, and agent/entry.py ends it without the interpreter's teardown)."""

    daemon_answered = False


def try_cold(argv: Sequence[str]) -> int | None:
    """Answer a semantic command through a daemon started now; None when the normal path must."""
    call = semantic_call(argv)
    if call is None:
        return None
    root = Path(call.root)
    try:
        if (state_dir(root) / "sock").exists():
            return None
        settings = cold_settings(root)
    except (CodeagentError, OSError):  # a config error, no state folder: the normal path explains
        return None
    if settings.warnings or settings.lsp.daemon != "auto":
        return None
    try:
        result = DaemonClient(root, settings, fork=True).call_tool(call.tool, call.tool_args)
    except DaemonError as exc:
        if isinstance(settings, SettingsSnapshot):  # (the daemon may have found it stale)
            real = settings_or_none(settings)
            if real is None:
                return None
            settings = real
        print(f"codeagent: daemon unavailable ({exc}); running in-process", file=sys.stderr)
        from .code import run_tool

        result = run_tool(root, settings, call.tool, call.tool_args, use_daemon=False)
        return print_result(call, result)
    code = print_result(call, result)
    Outcome.daemon_answered = True
    return code


def cold_settings(root: Path, folder: Path | None = None) -> Settings | SettingsSnapshot:
    """The snapshot of `root`'s settings when its sources are unchanged (only where the daemon is
    forked: the forked daemon verifies it), else the settings loaded now (then stored as the
    snapshot, if nothing changed while they loaded). ConfigError for invalid settings. `folder`:
    where snapshots are (default: the user cache)."""
    key = settings_key(root)
    if hasattr(os, "fork"):
        snapshot = load_snapshot(root, key, folder)
        if snapshot is not None:
            return snapshot
    from ..config import load_settings

    settings = load_settings(root)
    if settings_key(root) == key:
        store_snapshot(root, key, settings.model_dump_json(), settings.warnings, folder)
    return settings


def settings_or_none(snapshot: SettingsSnapshot) -> Settings | None:
    """The settings now when the snapshot still holds them; None (the normal path runs) if not."""
    try:
        return snapshot.verified()
    except CodeagentError:
        return None
