"""When a server's answers are complete, and the settings it is given.

pyright family: it enumerates the workspace's source files ("Found N source files" in its log) and
then analyses them under a work-done progress; a request sent before the enumeration silently
searches only the files it knows so far. Ready = the enumeration was logged and no progress runs.
That progress (checking files) only makes requests wait their turn: one silent for PROGRESS_SILENCE
seconds no longer counts (pyright never ends the one checking a file deleted while it was queued).
When it reloads its configuration, or files are created or deleted, it enumerates again (debounced):
until the new "Found N" — or ENUMERATION_GRACE seconds, since a reload that changes nothing or a
file outside its include set logs no new count — the server is not ready. (Waiting for the new count
without that bound could wait forever.)
TypeScript servers load a project when the first file of it is opened. typescript-language-server
reports that load as a progress ("Initializing JS/TS language features") that starts a moment after
the didOpen and answers references with the open file only until it ends: ready = a document is
open, one progress has ended and none runs. TypeScript 7's native server loads the project inside
the first request that needs it and sends no progress: ready = a document is open.
"""

from __future__ import annotations

import copy
import time
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pathlib import Path

    from lsp_bridge.client import BridgeClient, SettingsLookup
    from lsp_bridge.servers import Readiness, ServerSpec


ENUMERATION_GRACE = 10.0
PROGRESS_SILENCE = 5.0


def expect_enumeration(rule: Readiness, client: BridgeClient) -> None:
    """A pyright-family server will enumerate the workspace again (config reloaded, files created or
    deleted): not ready until it says how many files it found, for at most ENUMERATION_GRACE s."""
    if rule == "pyright" and client.found_files is not None:
        client.enumeration_due = time.monotonic() + ENUMERATION_GRACE


def is_ready(rule: Readiness, client: BridgeClient, *, opened: bool) -> bool:
    if rule == "pyright":
        if client.enumeration_due is not None and time.monotonic() > client.enumeration_due:
            client.enumeration_due = None  # the file was outside its include set: nothing to wait for
        return client.found_files is not None and client.enumeration_due is None and not _live_progress(client)
    if rule == "tsserver":
        return opened and client.progress_done > 0 and not client.progress_active
    if rule == "typescript-native":
        return opened
    return True


def _live_progress(client: BridgeClient) -> bool:
    """Whether a progress runs that was heard from in the last PROGRESS_SILENCE seconds."""
    now = time.monotonic()
    return any(now - client.progress_heard.get(token, now) < PROGRESS_SILENCE for token in client.progress_active)


def describe(rule: Readiness, client: BridgeClient) -> str:
    """What readiness is waiting for (for error messages)."""
    log = " | ".join(list(client.log)[-4:])
    return (f"rule {rule}: found_files={client.found_files}, re-enumeration pending="
            f"{client.enumeration_due is not None}, progress={list(client.progress_active.values())}; "
            f"last log: {log[:600]}")


def _merge(base: dict[str, Any], extra: Mapping[str, Any]) -> dict[str, Any]:
    for key, value in extra.items():
        if isinstance(value, Mapping) and isinstance(base.get(key), dict):
            _merge(base[key], value)
        else:
            base[key] = copy.deepcopy(value)
    return base


def settings_lookup(defaults: Mapping[str, Any], overrides: Mapping[str, Any]) -> SettingsLookup:
    """A `workspace/configuration` answerer: `section` "python.analysis" -> that sub-object ({} if
    absent), None -> everything. `overrides` are deep-merged over the server's defaults."""
    merged = _merge(copy.deepcopy(dict(defaults)), overrides)

    def lookup(section: str | None) -> Any:
        node: Any = merged
        for part in (section.split(".") if section else []):
            if not isinstance(node, Mapping) or part not in node:
                return {}
            node = node[part]
        return copy.deepcopy(node)
    return lookup


def session_settings(spec: ServerSpec, root: Path, settings: Mapping[str, Any] | None = None) -> SettingsLookup:
    """What a session for `root` answers `workspace/configuration` with: the server's defaults,
    its settings for this workspace, then `settings` (the caller's), deep-merged in that order."""
    workspace = spec.workspace_settings(root) if spec.workspace_settings else {}
    return settings_lookup(settings_lookup(spec.settings, workspace)(None), settings or {})
