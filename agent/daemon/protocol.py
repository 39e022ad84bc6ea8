"""What the CLI and the per-workspace daemon say to each other, and where the daemon lives.

One connection carries one request and one reply, each a single line of JSON:

    request  {"op": "ping" | "stop" | "tool", "build": ..., "settings": ..., "name": ..., "args": {...}}
    reply    {"ok": true, "result": {...}}   or   {"ok": false, "error": "...", "restart": bool}

A `tool` request with `"read_only": true` (`codeagent tool NAME`) is refused with
`not_read_only: true` when the tool changes files or runs commands: the CLI then runs it itself.

`build` and `settings` are hashes: a daemon started by other code or with other settings answers
`restart: true` and exits, so the CLI never gets an answer computed under different rules.

The daemon's files (socket, pid, settings, log, start lock) live in a private folder of the user
runtime area, one per workspace root: a socket path inside the workspace could exceed the 108
bytes a unix socket path may have, and a read-only checkout must still get a daemon.
"""

from __future__ import annotations

import contextlib
import json
import os
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .. import __version__
from .wire import AFTER_HEAD as AFTER_HEAD
from .wire import HEAD_REPLY as HEAD_REPLY
from .wire import MAX_MESSAGE_BYTES as MAX_MESSAGE_BYTES
from .wire import PROTOCOL_VERSION, code_folder_names, private, result_head, sha256, state_name
from .wire import REPLY_HEAD as REPLY_HEAD
from .wire import DaemonError as DaemonError
from .wire import NoDaemon as NoDaemon
from .wire import decode_message as decode_message
from .wire import encoded_result as encoded_result
from .wire import inputs_id as wire_inputs_id
from .wire import install_id as install_id
from .wire import recv_line as recv_line

if TYPE_CHECKING:
    import socket
    from collections.abc import Mapping

    from ..config import Settings
    from ..configsnapshot import SettingsSnapshot
    from .wire import Stream

STATE_MAX_AGE_S = 7 * 24 * 3600
CLOSE_WAIT_S = 0.5  # a client closes at once after reading its reply; this bounds one that does not


def runtime_base() -> Path:
    """The user's private folder for daemon state (created 0700, refused if someone else owns it)."""
    import tempfile  # (not on the warm path: daemon_socket finds the folder without it)

    base = Path(tempfile.gettempdir()) / f"codeagent-{os.getuid()}"
    try:
        base.mkdir(mode=0o700, exist_ok=True)
    except OSError as exc:
        raise DaemonError(f"cannot create {base}: {exc}") from exc
    if not private(str(base)):
        raise DaemonError(f"{base} is not a private folder of this user; refusing to use it")
    return base


def state_dir(root: Path) -> Path:
    """The folder holding one workspace's daemon files (its `root` file names the workspace)."""
    folder = runtime_base() / "daemons" / state_name(str(root))
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    return folder


def prune_states(keep: Path) -> None:
    """Remove the folders of daemons that are not running and whose workspace is gone (or that
    were idle a week): a temporary workspace must not leave a folder behind for ever."""
    import shutil  # (its import costs a warm call ~3 ms: only a starting client prunes)

    now = time.time()
    for folder in keep.parent.iterdir():
        if folder == keep or (folder / "pid").exists():
            continue
        try:
            root = (folder / "root").read_text(encoding="utf-8")
            stale = not Path(root).is_dir() or now - folder.stat().st_mtime > STATE_MAX_AGE_S
        except OSError:
            stale = now - folder.stat().st_mtime > 60  # an unfinished or pre-`root` folder
        if stale:
            shutil.rmtree(folder, ignore_errors=True)


def code_folders() -> list[Path]:
    """Where the code of agent/ and lsp_bridge/ is (lsp_bridge located, not imported)."""
    return [Path(folder) for folder in code_folder_names()]


def build_id(tops: list[Path] | None = None) -> str:
    """Changes whenever the code of agent/ or lsp_bridge/ changes: the newest mtime of its .py and
    .scm files (a walk of ~300 files: 3-10 ms; the index's warm path and the daemon's fallback)."""
    newest = 0
    for top in code_folders() if tops is None else tops:
        for dirpath, dirnames, filenames in os.walk(top):
            dirnames[:] = [d for d in dirnames if d != "__pycache__"]
            for name in filenames:
                if name.endswith((".py", ".scm")):
                    newest = max(newest, os.stat(os.path.join(dirpath, name)).st_mtime_ns)
    return f"{__version__}-{PROTOCOL_VERSION}-{newest}"


def settings_json(settings: Settings | SettingsSnapshot) -> str:
    return settings.model_dump_json()


def settings_id(settings: Settings | SettingsSnapshot) -> str:
    return sha256(settings_json(settings).encode()).hexdigest()[:24]


def inputs_id(root: Path | str, env: Mapping[str, str] | None = None) -> str:
    """wire.inputs_id: the fingerprint of what the settings of `root` are made of."""
    return wire_inputs_id(os.fspath(root), env)


class EncodedResult(bytes):
    """A reply's "result" already encoded as UTF-8 JSON (an answer the daemon kept): sent as it is,
    after its `head` (wire.result_head, encoded alike) when it has one."""

    head: bytes | None = None


def send_message(sock: Stream, obj: dict[str, Any]) -> None:
    result = obj.get("result")
    if isinstance(result, EncodedResult):  # spliced into the reply, not encoded again
        if result.head is not None and list(obj) == ["ok", "result"] and obj["ok"] is True:  # (json.dumps' bytes)
            sock.sendall(HEAD_REPLY + result.head + AFTER_HEAD + result + b"}\n")
            return
        head = json.dumps({k: v for k, v in obj.items() if k != "result"}, ensure_ascii=False)[:-1]
        sock.sendall(head.encode("utf-8") + (b', "result": ' if head != "{" else b'"result": ') + result + b"}\n")
        return
    if list(obj) == ["ok", "result"] and obj["ok"] is True and isinstance(result, dict):
        obj = {"ok": True, "head": result_head(result), "result": result}  # (wire.split_reply reads it)
    sock.sendall(json.dumps(obj, ensure_ascii=False).encode("utf-8") + b"\n")


def await_close(sock: socket.socket, timeout: float = CLOSE_WAIT_S) -> None:
    """Wait (at most `timeout`) until the client has read the reply and closed its end. What the
    daemon does after a reply (its log line, the servers' upkeep, the listing) would otherwise hold
    the CPU the client needs to wake up and read it: a unix-socket write wakes the reader as a
    "sync" wake-up, which the scheduler tends to queue on the writer's own CPU."""
    sock.settimeout(timeout)
    with contextlib.suppress(OSError):
        sock.recv(1)


def recv_message(sock: Stream) -> dict[str, Any]:
    """Read one line of JSON (bounded); raises DaemonError on EOF, oversize or bad JSON."""
    return decode_message(recv_line(sock))
