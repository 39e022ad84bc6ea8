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

import hashlib
import importlib.util
import json
import os
import shutil
import socket
import stat
import tempfile
import time
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .. import __version__
from ..configpaths import ENV_PREFIXES, PROJECT_CONFIG, trust_store_path, user_config_path
from ..errors import CodeagentError

if TYPE_CHECKING:
    from ..config import Settings

MAX_MESSAGE_BYTES = 64 * 1024 * 1024
PROTOCOL_VERSION = 1
STATE_MAX_AGE_S = 7 * 24 * 3600


class DaemonError(CodeagentError):
    """The daemon could not be reached or answered nonsense (the CLI then runs in-process)."""


class NoDaemon(DaemonError):
    """Nothing accepted the connection: no request reached a daemon."""


def runtime_base() -> Path:
    """The user's private folder for daemon state (created 0700, refused if someone else owns it)."""
    base = Path(tempfile.gettempdir()) / f"codeagent-{os.getuid()}"
    try:
        base.mkdir(mode=0o700, exist_ok=True)
    except OSError as exc:
        raise DaemonError(f"cannot create {base}: {exc}") from exc
    info = os.lstat(base)
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid() or info.st_mode & 0o077:
        raise DaemonError(f"{base} is not a private folder of this user; refusing to use it")
    return base


def state_dir(root: Path) -> Path:
    """The folder holding one workspace's daemon files (its `root` file names the workspace)."""
    digest = hashlib.sha256(str(root).encode("utf-8", "surrogateescape")).hexdigest()[:20]
    folder = runtime_base() / "daemons" / digest
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    return folder


def prune_states(keep: Path) -> None:
    """Remove the folders of daemons that are not running and whose workspace is gone (or that
    were idle a week): a temporary workspace must not leave a folder behind for ever."""
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


def build_id() -> str:
    """Changes whenever the code of agent/ or lsp_bridge/ changes (a daemon never runs old code)."""
    from .. import __file__ as agent_init

    bridge = importlib.util.find_spec("lsp_bridge")  # located, not imported (the client stays light)
    tops = [Path(agent_init).parent]
    if bridge is not None and bridge.origin:
        tops.append(Path(bridge.origin).parent)
    newest = 0
    for top in tops:
        for dirpath, dirnames, filenames in os.walk(top):
            dirnames[:] = [d for d in dirnames if d != "__pycache__"]
            for name in filenames:
                if name.endswith((".py", ".scm")):
                    newest = max(newest, os.stat(os.path.join(dirpath, name)).st_mtime_ns)
    return f"{__version__}-{PROTOCOL_VERSION}-{newest}"


def settings_json(settings: Settings) -> str:
    return settings.model_dump_json()


def settings_id(settings: Settings) -> str:
    return hashlib.sha256(settings_json(settings).encode()).hexdigest()[:24]


def inputs_id(root: Path, env: Mapping[str, str] | None = None) -> str:
    """A fingerprint of what the settings of `root` are made of — the config files' bytes, the trust
    store's (trusting or revoking the project file changes the settings) and every variable that
    feeds them — computed without building the settings. A daemon that served a
    request with matching settings and this fingerprint serves later ones sending only it."""
    env = os.environ if env is None else env
    digest = hashlib.sha256()
    for path in (user_config_path(env), root / PROJECT_CONFIG, trust_store_path(env)):
        try:
            data = path.read_bytes()
        except OSError:
            data = b"\0absent"
        digest.update(str(path).encode("utf-8", "surrogateescape") + b"\0" + data + b"\0")
    for key in sorted(k for k in env if k.startswith(ENV_PREFIXES)):
        digest.update(f"{key}={env[key]}\0".encode("utf-8", "surrogateescape"))
    return digest.hexdigest()[:24]


class EncodedResult(bytes):
    """A reply's "result" already encoded as UTF-8 JSON (an answer the daemon kept): sent as it is."""


def send_message(sock: socket.socket, obj: dict[str, Any]) -> None:
    result = obj.get("result")
    if isinstance(result, EncodedResult):  # spliced into the reply, not encoded again
        head = json.dumps({k: v for k, v in obj.items() if k != "result"}, ensure_ascii=False)[:-1]
        sock.sendall(head.encode("utf-8") + (b', "result": ' if head != "{" else b'"result": ') + result + b"}\n")
        return
    sock.sendall(json.dumps(obj, ensure_ascii=False).encode("utf-8") + b"\n")


def recv_message(sock: socket.socket) -> dict[str, Any]:
    """Read one line of JSON (bounded); raises DaemonError on EOF, oversize or bad JSON."""
    chunks: list[bytes] = []
    size = 0
    while True:
        chunk = sock.recv(1 << 16)
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
        if size > MAX_MESSAGE_BYTES:
            raise DaemonError(f"message over {MAX_MESSAGE_BYTES} bytes")
        if chunk.endswith(b"\n"):
            break
    data = b"".join(chunks)
    if not data.strip():
        raise DaemonError("connection closed without a message")
    try:
        obj = json.loads(data)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise DaemonError(f"not a JSON message: {exc}") from exc
    if not isinstance(obj, dict):
        raise DaemonError("message is not a JSON object")
    return obj
