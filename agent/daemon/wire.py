"""The client's side of the daemon protocol (protocol.py describes it), on strings and the
interpreter's builtin modules only: the warm `codeagent refs` process runs on this module.

Why so bare: a warm call's whole process is ~60 ms, and pathlib (with re, urllib.parse and
ipaddress), typing and json's Python layer (which compiles its regular expressions at import)
were ~15 ms of it. So paths are strings here, the request is encoded by `encode` (the few types
a request holds; anything else goes to json.dumps) and the reply is decoded by `_json`'s C
scanner, the one json.loads itself runs, with json.loads' own settings. protocol.py, the daemon's
side, re-exports what both sides share from here, so there is one definition of each.
"""

from __future__ import annotations

import os
import stat
import sys

from .. import __file__ as _agent_init
from .. import __version__
from ..configpaths import ENV_PREFIXES, PROJECT_CONFIG, trust_store_file, user_config_file
from ..errors import CodeagentError

try:  # the interpreter's own SHA-256: hashlib loads OpenSSL first (~2 ms of a warm CLI call)
    from _sha2 import sha256  # Python 3.12+
except ImportError:
    try:
        from _sha256 import sha256  # Python 3.11
    except ImportError:  # a build without the builtin hashes
        from hashlib import sha256

try:  # json's C accelerator: what json.loads and json.dumps run, without json's Python layer
    import _json as _c_json
except ImportError:  # (another interpreter: json itself then)
    _c_json = None  # type: ignore[assignment]

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any, Protocol

    class Stream(Protocol):
        """A connected socket: socket.socket, or the warm path's _socket.socket (socket.py's
        import costs it ~3 ms of enum building)."""

        def sendall(self, data: bytes, /) -> None: ...

        def recv(self, bufsize: int, /) -> bytes: ...

MAX_MESSAGE_BYTES = 64 * 1024 * 1024
PROTOCOL_VERSION = 2  # 2: `build` is install_id(), code changes are the daemon's watch
REPLY_HEAD = b'{"ok": true, "result": '  # how a reply with a kept (encoded) result starts
HEAD_REPLY = b'{"ok": true, "head": '  # how protocol.send_message starts any other result's reply
AFTER_HEAD = b', "result": '
HEAD_DATA = ("usage_error", "server_notes", "journal_id")  # what the CLI reads of a result's data


class DaemonError(CodeagentError):
    """The daemon could not be reached or answered nonsense (the CLI then runs in-process)."""


class NoDaemon(DaemonError):
    """Nothing accepted the connection: no request reached a daemon."""


# ------------------------------------------------------------------ where the daemon is, who asks
def private(folder: str) -> bool:
    info = os.lstat(folder)
    return stat.S_ISDIR(info.st_mode) and info.st_uid == os.getuid() and not info.st_mode & 0o077


def state_name(root: str) -> str:
    return sha256(root.encode("utf-8", "surrogateescape")).hexdigest()[:20]


def daemon_socket(root: str) -> str | None:
    """The socket of `root`'s daemon (`root` resolved) if one is there, creating nothing.

    The folder is the first of tempfile's candidates (TMPDIR, TEMP, TMP, /tmp, /var/tmp, /usr/tmp,
    the current folder) this user may write to, without tempfile's probe file (its import alone
    costs a warm call ~2 ms). Where that differs from tempfile's choice (a full disk) this finds no
    socket, or another daemon of this user for the same root, which checks build and settings
    like any: never a wrong answer, at worst the slower path."""
    for candidate in (os.environ.get("TMPDIR"), os.environ.get("TEMP"), os.environ.get("TMP"),
                      "/tmp", "/var/tmp", "/usr/tmp"):
        if candidate and os.path.isdir(candidate) and os.access(candidate, os.W_OK | os.X_OK):
            base = os.path.join(os.path.abspath(candidate), f"codeagent-{os.getuid()}")
            break
    else:
        return None  # (tempfile would fall back to the current folder: the normal path handles it)
    sock = os.path.join(base, "daemons", state_name(root), "sock")
    try:
        return sock if private(base) and os.path.exists(sock) else None
    except OSError:
        return None


def _origin(name: str) -> str | None:
    """Where module `name` would be loaded from, without importing it (importlib.util.find_spec's
    answer for a top-level module, without importlib.util's imports: ~1 ms of a warm call)."""
    module = sys.modules.get(name)
    if module is not None:
        spec = getattr(module, "__spec__", None)
        return spec.origin if spec is not None else None
    for finder in sys.meta_path:
        find = getattr(finder, "find_spec", None)
        spec = find(name, None) if find is not None else None
        if spec is not None:
            return spec.origin
    return None


def code_folder_names() -> list[str]:
    """Where the code of agent/ and lsp_bridge/ is (lsp_bridge located, not imported)."""
    tops = [os.path.dirname(_agent_init)]
    bridge = _origin("lsp_bridge")
    if bridge:
        tops.append(os.path.dirname(bridge))
    return tops


def install_id() -> str:
    """Which installation of codeagent this process runs: its version and where its code is. A
    daemon answers only requests of the same installation, and restarts when its code changes
    under it (codewatch.py), so the CLI no longer walks the code per call."""
    return "-".join([__version__, str(PROTOCOL_VERSION), *code_folder_names()])


def inputs_id(root: str, env: Mapping[str, str] | None = None) -> str:
    """A fingerprint of what the settings of `root` (resolved) are made of — the config files'
    bytes, the trust store's (trusting or revoking the project file changes the settings) and
    every variable that feeds them — computed without building the settings. A daemon that served
    a request with matching settings and this fingerprint serves later ones sending only it."""
    env = os.environ if env is None else env
    digest = sha256()
    for path in (user_config_file(env), os.path.join(root, PROJECT_CONFIG), trust_store_file(env)):
        try:
            with open(path, "rb") as fh:
                data = fh.read()
        except OSError:
            data = b"\0absent"
        digest.update(path.encode("utf-8", "surrogateescape") + b"\0" + data + b"\0")
    for key in sorted(k for k in env if k.startswith(ENV_PREFIXES)):
        digest.update(f"{key}={env[key]}\0".encode("utf-8", "surrogateescape"))
    return digest.hexdigest()[:24]


# ------------------------------------------------------------------------------- one message each way
def encode(obj: Any) -> str:
    """`json.dumps(obj, ensure_ascii=False)` for what a request holds (str, int, bool, None, lists
    and str-keyed dicts of them), without json's Python layer; json.dumps for anything else."""
    if _c_json is None:
        import json

        return json.dumps(obj, ensure_ascii=False)
    try:
        return _encode(obj)
    except TypeError:  # a float, a non-str key, ...: json knows every rule
        import json

        return json.dumps(obj, ensure_ascii=False)


def _encode(obj: Any) -> str:
    if isinstance(obj, str):
        return _c_json.encode_basestring(obj)
    if obj is None or obj is True or obj is False:
        return "null" if obj is None else "true" if obj else "false"
    if type(obj) is int:
        return int.__repr__(obj)
    if type(obj) is dict:
        if not all(type(key) is str for key in obj):
            raise TypeError("a key that is not a string")
        quote = _c_json.encode_basestring
        return "{" + ", ".join(f"{quote(key)}: {_encode(value)}" for key, value in obj.items()) + "}"
    if type(obj) in (list, tuple):
        return "[" + ", ".join(_encode(item) for item in obj) + "]"
    raise TypeError(f"not encoded here: {type(obj).__name__}")


def send_request(sock: Stream, obj: dict[str, Any]) -> None:
    sock.sendall(encode(obj).encode("utf-8") + b"\n")


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


class _Loads:
    """What the C scanner reads of a json.JSONDecoder: json.loads' defaults."""

    strict = True
    object_hook = None
    object_pairs_hook = None
    parse_float = float
    parse_int = int
    parse_constant = {"-Infinity": float("-inf"), "Infinity": float("inf"), "NaN": float("nan")}.__getitem__


_scan = _c_json.make_scanner(_Loads()) if _c_json is not None else None  # type: ignore[arg-type]  # (any object with these attributes)
_SPACE = " \t\n\r"  # JSON's white space (json.decoder.WHITESPACE)


def loads(data: bytes) -> Any:
    """json.loads(data) for the UTF-8 a daemon sends (ValueError when it is not JSON)."""
    if _scan is None:
        import json

        return json.loads(data)
    text = data.decode("utf-8", "surrogatepass")  # (json.loads' error handler for bytes)
    start = len(text) - len(text.lstrip(_SPACE))
    try:
        obj, end = _scan(text, start)
    except StopIteration as exc:
        raise ValueError(f"expecting a value at char {exc.value}") from None
    if text[end:].strip(_SPACE):
        raise ValueError(f"extra data at char {end}")
    return obj


def decode_message(data: bytes) -> dict[str, Any]:
    try:
        obj = loads(data)
    except ValueError as exc:  # (JSONDecodeError and UnicodeDecodeError are ValueErrors)
        raise DaemonError(f"not a JSON message: {exc}") from exc
    if not isinstance(obj, dict):
        raise DaemonError("message is not a JSON object")
    return obj


def result_head(result: dict[str, Any]) -> dict[str, Any]:
    """What the CLI reads of a tool result besides printing it (the exit code, a usage error, the
    servers' notes, the undo hint). The daemon sends it before the result, so a --json call reads
    it alone and prints the result's bytes without decoding them (~5 ms for a 0.5 MB answer)."""
    head: dict[str, Any] = {key: result[key] for key in ("success", "error") if key in result}
    data = result.get("data")
    if isinstance(data, dict) and (picked := {key: data[key] for key in HEAD_DATA if key in data}):
        head["data"] = picked
    return head


def split_reply(line: bytes) -> tuple[dict[str, Any], bytes] | None:
    """(head, the result's bytes) of a `{"ok": true, "head": ..., "result": {...}}` reply, decoding
    only the head; None for another shape. The head's end is the first `, "result": ` after it: a
    JSON string escapes its quotes, the head has no "result" key, and a cut inside a nested value
    would leave the head undecodable (None then)."""
    if not (line.startswith(HEAD_REPLY) and line.endswith(b"}\n")):
        return None
    at = line.find(AFTER_HEAD, len(HEAD_REPLY))
    if at < 0 or line[at + len(AFTER_HEAD):at + len(AFTER_HEAD) + 1] != b"{":
        return None
    try:
        head = loads(line[len(HEAD_REPLY):at])
    except ValueError:
        return None
    return (head, line[at + len(AFTER_HEAD):-2]) if isinstance(head, dict) else None


def encoded_result(line: bytes, reply: dict[str, Any]) -> bytes | None:
    """The "result" of a decoded reply exactly as the daemon encoded it (UTF-8 JSON, ensure_ascii
    off, default separators: what output.print_json prints), so the CLI writes it without encoding
    it again (~15 ms for a 0.5 MB answer on a loaded machine); None if the reply has another shape."""
    if list(reply) == ["ok", "result"] and line.startswith(REPLY_HEAD) and line.endswith(b"}\n"):
        return line[len(REPLY_HEAD):-2]
    if list(reply) == ["ok", "head", "result"] and (parts := split_reply(line)) is not None:
        return parts[1]
    return None


def ask(root: str, message: dict[str, Any], *, timeout: float) -> bytes | None:
    """One request to `root`'s running daemon, through `_socket` (the C module: socket.py's import
    builds its enums, ~3 ms of a warm call): the reply's bytes, or None when no daemon answered it."""
    import _socket

    try:
        sock_path = daemon_socket(root)
        if sock_path is None:
            return None
        sock = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
        try:
            sock.settimeout(5.0)
            sock.connect(sock_path)
            sock.settimeout(timeout)
            send_request(sock, message)
            return recv_line(sock)
        finally:
            sock.close()
    except (OSError, DaemonError):
        return None


REQUEST_TIMEOUT = 3600.0  # a warm daemon answers in well under a second; this only bounds a hang


def ask_tool(root: str, name: str, arguments: dict[str, Any], *, read_only: bool = False,
             head_only: bool = False) -> tuple[dict[str, Any], bytes | None] | None:
    """A tool call answered by `root`'s running daemon: (its result, the result's bytes as sent or
    None); None when no daemon answered it (the normal path then runs). `head_only` (the caller
    prints the bytes as they are): the result's head (result_head) stands for the result, which
    is not decoded."""
    # Which installation asks, not a walk of its code: the daemon sees code changes itself.
    message: dict[str, Any] = {"op": "tool", "build": install_id(), "inputs": inputs_id(root), "name": name, "args": arguments}
    if read_only:
        message["read_only"] = True
    line = ask(root, message, timeout=REQUEST_TIMEOUT)
    if line is None:
        return None
    if head_only and (parts := split_reply(line)) is not None:
        return parts
    try:
        reply = decode_message(line)
    except DaemonError:
        return None
    if not reply.get("ok") or not isinstance(reply.get("result"), dict):
        return None  # another build, unknown settings, a daemon error: the normal path decides
    return reply["result"], encoded_result(line, reply)
