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

import importlib.util
import json
import os
import stat
import time
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from .. import __file__ as _agent_init
from .. import __version__
from ..configpaths import ENV_PREFIXES, PROJECT_CONFIG, trust_store_path, user_config_path
from ..errors import CodeagentError

try:  # the interpreter's own SHA-256: hashlib loads OpenSSL first (~2 ms of a warm CLI call)
    from _sha2 import sha256  # Python 3.12+
except ImportError:
    try:
        from _sha256 import sha256  # Python 3.11
    except ImportError:  # a build without the builtin hashes
        from hashlib import sha256

if TYPE_CHECKING:
    from ..config import Settings
    from ..configsnapshot import SettingsSnapshot

MAX_MESSAGE_BYTES = 64 * 1024 * 1024
PROTOCOL_VERSION = 2  # 2: `build` is install_id(), code changes are the daemon's watch
STATE_MAX_AGE_S = 7 * 24 * 3600


class DaemonError(CodeagentError):
    """The daemon could not be reached or answered nonsense (the CLI then runs in-process)."""


class NoDaemon(DaemonError):
    """Nothing accepted the connection: no request reached a daemon."""


def runtime_base() -> Path:
    """The user's private folder for daemon state (created 0700, refused if someone else owns it)."""
    import tempfile  # (not on the warm path: daemon_socket finds the folder without it)

    base = Path(tempfile.gettempdir()) / f"codeagent-{os.getuid()}"
    try:
        base.mkdir(mode=0o700, exist_ok=True)
    except OSError as exc:
        raise DaemonError(f"cannot create {base}: {exc}") from exc
    if not _private(base):
        raise DaemonError(f"{base} is not a private folder of this user; refusing to use it")
    return base


def _private(folder: Path) -> bool:
    info = os.lstat(folder)
    return stat.S_ISDIR(info.st_mode) and info.st_uid == os.getuid() and not info.st_mode & 0o077


def _state_name(root: Path) -> str:
    return sha256(str(root).encode("utf-8", "surrogateescape")).hexdigest()[:20]


def state_dir(root: Path) -> Path:
    """The folder holding one workspace's daemon files (its `root` file names the workspace)."""
    folder = runtime_base() / "daemons" / _state_name(root)
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    return folder


def daemon_socket(root: Path) -> Path | None:
    """The socket of `root`'s daemon if one is there, creating nothing (the warm path's look-up).

    The folder is the first of tempfile's candidates (TMPDIR, TEMP, TMP, /tmp, /var/tmp, /usr/tmp,
    the current folder) this user may write to, without tempfile's probe file (its import alone
    costs a warm call ~2 ms). Where that differs from tempfile's choice (a full disk) this finds no
    socket, or another daemon of this user for the same root, which checks build and settings
    like any: never a wrong answer, at worst the slower path."""
    for candidate in (os.environ.get("TMPDIR"), os.environ.get("TEMP"), os.environ.get("TMP"),
                      "/tmp", "/var/tmp", "/usr/tmp"):
        if candidate and os.path.isdir(candidate) and os.access(candidate, os.W_OK | os.X_OK):
            base = Path(os.path.abspath(candidate)) / f"codeagent-{os.getuid()}"
            break
    else:
        return None  # (tempfile would fall back to the current folder: the normal path handles it)
    sock = base / "daemons" / _state_name(root) / "sock"
    try:
        return sock if _private(base) and os.path.exists(sock) else None
    except OSError:
        return None


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
    """Where the code of agent/ and lsp_bridge/ is (lsp_bridge located, not imported: the client stays light)."""
    bridge = importlib.util.find_spec("lsp_bridge")
    tops = [Path(_agent_init).parent]
    if bridge is not None and bridge.origin:
        tops.append(Path(bridge.origin).parent)
    return tops


def install_id() -> str:
    """Which installation of codeagent this process runs: its version and where its code is. A
    daemon answers only requests of the same installation, and restarts when its code changes
    under it (codewatch.py), so the CLI no longer walks the code per call."""
    return "-".join([__version__, str(PROTOCOL_VERSION), *map(str, code_folders())])


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


def inputs_id(root: Path, env: Mapping[str, str] | None = None) -> str:
    """A fingerprint of what the settings of `root` are made of — the config files' bytes, the trust
    store's (trusting or revoking the project file changes the settings) and every variable that
    feeds them — computed without building the settings. A daemon that served a
    request with matching settings and this fingerprint serves later ones sending only it."""
    env = os.environ if env is None else env
    digest = sha256()
    for path in (user_config_path(env), root / PROJECT_CONFIG, trust_store_path(env)):
        try:
            data = path.read_bytes()
        except OSError:
            data = b"\0absent"
        digest.update(str(path).encode("utf-8", "surrogateescape") + b"\0" + data + b"\0")
    for key in sorted(k for k in env if k.startswith(ENV_PREFIXES)):
        digest.update(f"{key}={env[key]}\0".encode("utf-8", "surrogateescape"))
    return digest.hexdigest()[:24]


class Stream(Protocol):
    """A connected socket: socket.socket, or the warm path's _socket.socket (socket.py's import
    costs it ~3 ms of enum building)."""

    def sendall(self, data: bytes, /) -> None: ...

    def recv(self, bufsize: int, /) -> bytes: ...


class EncodedResult(bytes):
    """A reply's "result" already encoded as UTF-8 JSON (an answer the daemon kept): sent as it is."""


def send_message(sock: Stream, obj: dict[str, Any]) -> None:
    result = obj.get("result")
    if isinstance(result, EncodedResult):  # spliced into the reply, not encoded again
        head = json.dumps({k: v for k, v in obj.items() if k != "result"}, ensure_ascii=False)[:-1]
        sock.sendall(head.encode("utf-8") + (b', "result": ' if head != "{" else b'"result": ') + result + b"}\n")
        return
    sock.sendall(json.dumps(obj, ensure_ascii=False).encode("utf-8") + b"\n")


REPLY_HEAD = b'{"ok": true, "result": '  # how send_message starts a result's reply


def recv_message(sock: Stream) -> dict[str, Any]:
    """Read one line of JSON (bounded); raises DaemonError on EOF, oversize or bad JSON."""
    return decode_message(recv_line(sock))


def recv_line(sock: Stream) -> bytes:
    """The bytes of one message (bounded); raises DaemonError on EOF or oversize."""
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
    return data


def decode_message(data: bytes) -> dict[str, Any]:
    try:
        obj = json.loads(data)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise DaemonError(f"not a JSON message: {exc}") from exc
    if not isinstance(obj, dict):
        raise DaemonError("message is not a JSON object")
    return obj


def encoded_result(line: bytes, reply: dict[str, Any]) -> bytes | None:
    """The "result" of a reply exactly as the daemon encoded it (UTF-8 JSON, ensure_ascii off,
    default separators: what output.print_json prints), so the CLI writes it without encoding it
    again (~15 ms for a 0.5 MB answer on a loaded machine); None if the reply has another shape."""
    if list(reply) == ["ok", "result"] and line.startswith(REPLY_HEAD) and line.endswith(b"}\n"):
        return line[len(REPLY_HEAD):-2]
    return None
