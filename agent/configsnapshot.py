"""A workspace's validated settings remembered between cold starts, so that a cold semantic command
(agent/commands/cold_start.py) forks its daemon, which spawns the language server, before pydantic
is imported and the settings models are built (~0.15-0.25 s of CPU that sat before the spawn).

A snapshot is exactly what `load_settings(root)` returned (its JSON and its warnings), keyed by
everything that call reads: the bytes of the user config, the project config and the trust store,
the trust store's type, owner, mode and real path, the workspace's path and real path, every
variable that feeds settings (and HOME), this user's id, and the code that makes settings of them
(agent's settings modules, pydantic's installed files, Python's version). Anything different is a
miss: the command loads its settings as it always did, and stores the snapshot for next time.

The forked daemon still loads the settings itself, right after spawning the server, and serves
only if they equal the snapshot (`verified`); if not, it kills that server, deletes the snapshot
and exits, and the command starts through the normal path. So a snapshot only ever decides which
server starts a few hundred milliseconds early, never what is answered.

It lives in the user's cache folder, one file per workspace root, written 0600 inside a 0700
folder and ignored unless it is a regular file of this user that nobody else may write, and never
read or written when that folder lies inside the workspace (a workspace at the home folder): so
neither the tools (confined to the workspace) nor a sandboxed command (its home is private) can
write one. Who can write the user's cache can already replace the language servers installed there.

Standard library and platformdirs only: nothing here may import pydantic (agent.config is imported
only by `verified`, in the forked daemon, after the server spawned).
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import os
import stat
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from types import SimpleNamespace
from typing import TYPE_CHECKING, NamedTuple

from .configpaths import ENV_PREFIXES, PROJECT_CONFIG, trust_store_path, user_config_path
from .errors import CodeagentError

try:  # the interpreter's own SHA-256: hashlib loads OpenSSL first (~2 ms)
    from _sha2 import sha256  # Python 3.12+
except ImportError:
    try:
        from _sha256 import sha256  # Python 3.11
    except ImportError:  # a build without the builtin hashes
        from hashlib import sha256

if TYPE_CHECKING:
    from .config import Settings

SNAPSHOT_VERSION = 1
MAX_SNAPSHOT_BYTES = 1024 * 1024  # the settings' JSON is ~6 KB
MAX_SNAPSHOTS = 256  # one per workspace root; the least recently written go first
# The modules that turn the sources into settings: their bytes are part of the key.
SETTINGS_CODE = ("config.py", "configpaths.py", "configtrust.py", "truststore.py")
AGENT_DIR = Path(__file__).resolve().parent


class StaleSnapshot(CodeagentError):
    """The settings loaded now differ from the snapshot a daemon was started with."""


class SettingsSnapshot(NamedTuple):
    """What the cold path needs of `Settings` before the fork (duck-typed: `warnings`, `lsp.*`,
    `model_dump_json`), read from a snapshot; `verified` gives the real Settings. (A NamedTuple:
    dataclasses would import inspect, ~10 ms before the fork.)"""

    root: Path
    file: Path
    json: str  # Settings.model_dump_json() of the settings it was taken from
    warnings: tuple[str, ...]
    lsp: SimpleNamespace

    def model_dump_json(self) -> str:
        return self.json

    def verified(self) -> Settings:
        """The settings loaded now (agent.config.load_settings); StaleSnapshot, and the snapshot
        deleted, when they are not the ones it holds."""
        from .config import load_settings

        settings = load_settings(self.root)
        if settings.model_dump_json() != self.json or tuple(settings.warnings) != self.warnings:
            forget(self.file)
            raise StaleSnapshot(f"the settings of {self.root} are not those of the snapshot {self.file}")
        return settings


def default_folder() -> Path:
    import platformdirs  # (only here: ~1 ms, and the key is computed without it)

    return platformdirs.user_cache_path("codeagent") / "settings"


def settings_key(root: Path, env: Mapping[str, str] | None = None) -> str:
    """A digest of everything `load_settings(root)` (no overrides) reads and of the code it runs."""
    env = os.environ if env is None else env
    digest = sha256()

    def add(*parts: object) -> None:
        for part in parts:
            data = part if isinstance(part, bytes) else str(part).encode("utf-8", "surrogateescape")
            digest.update(len(data).to_bytes(8, "little") + data)

    add(SNAPSHOT_VERSION, sys.version, os.getuid(), root, os.path.realpath(root))
    for name in SETTINGS_CODE:
        add(name, _read(AGENT_DIR / name))
    for package in ("pydantic", "pydantic_core"):  # an upgrade rewrites these files
        add(package, *_installed(package))
    user, project, store = user_config_path(env), root / PROJECT_CONFIG, trust_store_path(env)
    add(user, _read(user), project, _read(project))
    add(store, os.path.realpath(store), _lstat(store), _read(store))
    add(env.get("HOME", ""))
    for key in sorted(k for k in env if k.startswith(ENV_PREFIXES)):
        add(key, env[key])
    return digest.hexdigest()


def load_snapshot(root: Path, key: str, folder: Path | None = None) -> SettingsSnapshot | None:
    """The snapshot of `root` stored under `key`; None when there is none, it has another key, or
    its file is not a private regular file of this user."""
    file = snapshot_file(root, folder)
    if _inside(file.parent, root):
        return None
    try:
        fd = os.open(file, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        with os.fdopen(fd, "rb") as fh:
            info = os.fstat(fh.fileno())
            if not _private_file(info) or not _private_folder(file.parent):
                return None
            data = json.loads(fh.read(MAX_SNAPSHOT_BYTES + 1))
        if (data.get("version") != SNAPSHOT_VERSION or data.get("key") != key or data.get("root") != str(root)
                or not isinstance(data.get("settings"), str) or not isinstance(data.get("warnings"), list)):
            return None
        values = json.loads(data["settings"])
        lsp = SimpleNamespace(**values["lsp"])
        warnings = tuple(str(w) for w in data["warnings"])
    except (OSError, ValueError, TypeError, KeyError, AttributeError):
        return None
    return SettingsSnapshot(root, file, data["settings"], warnings, lsp)


def store_snapshot(root: Path, key: str, settings_json: str, warnings: Sequence[str],
                   folder: Path | None = None, keep: int = MAX_SNAPSHOTS) -> bool:
    """Write the snapshot of `root` (atomically, 0600), leaving at most `keep` in the folder; False
    when it could not be (a cache: the command goes on either way)."""
    import tempfile  # (a miss only: ~5 ms, not before the fork of a hit)

    file = snapshot_file(root, folder)
    if _inside(file.parent, root):
        return False
    body = json.dumps({"version": SNAPSHOT_VERSION, "key": key, "root": str(root), "settings": settings_json,
                       "warnings": list(warnings)})
    try:
        file.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        if not _private_folder(file.parent):
            return False
        _prune(file.parent, keep)
        fd, tmp = tempfile.mkstemp(dir=file.parent, prefix=".snapshot-", suffix=".tmp")
    except OSError:
        return False
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            os.fchmod(fh.fileno(), 0o600)
            fh.write(body)
        os.replace(tmp, file)
    except OSError:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        return False
    return True


def forget(file: Path) -> None:
    with contextlib.suppress(OSError):
        file.unlink()


def snapshot_file(root: Path, folder: Path | None = None) -> Path:
    name = sha256(str(root).encode("utf-8", "surrogateescape")).hexdigest()[:24]
    return (folder or default_folder()) / f"{name}.json"


def _read(path: Path) -> bytes:
    try:
        with open(path, "rb") as fh:
            return b"1" + fh.read()
    except FileNotFoundError:
        return b"0absent"
    except OSError as exc:  # unreadable: load_settings fails or warns on it; never the same key as a file
        return f"0error {exc.errno}".encode()


def _lstat(path: Path) -> str:
    try:
        info = os.lstat(path)
    except OSError as exc:
        return f"error {exc.errno}"
    return f"{info.st_mode:o} {info.st_uid}"


def _installed(package: str) -> list[object]:
    spec = importlib.util.find_spec(package)  # a top-level name: found, not imported
    if spec is None or not spec.origin:
        return ["absent"]
    try:
        info = os.stat(spec.origin)
    except OSError:
        return [spec.origin, "unreadable"]
    return [spec.origin, info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns]


def _inside(folder: Path, root: Path) -> bool:
    """Whether `folder` is the workspace `root` or inside it (a workspace whose root holds the user
    cache, e.g. the home folder): the tools may write there, so no snapshot is read or written."""
    real, top = Path(os.path.realpath(folder)), Path(os.path.realpath(root))
    return real == top or top in real.parents


def _private_file(info: os.stat_result) -> bool:
    return stat.S_ISREG(info.st_mode) and info.st_uid == os.getuid() and not info.st_mode & 0o077


def _private_folder(folder: Path) -> bool:
    try:
        info = os.lstat(folder)
    except OSError:
        return False
    return stat.S_ISDIR(info.st_mode) and info.st_uid == os.getuid() and not info.st_mode & 0o077


def _prune(folder: Path, keep: int) -> None:
    """Leave at most `keep` - 1 snapshots before a new one is written."""
    try:
        files = [(entry.stat().st_mtime_ns, entry.path) for entry in os.scandir(folder)
                 if entry.name.endswith(".json") and entry.is_file(follow_symlinks=False)]
    except OSError:
        return
    files.sort()
    for _mtime, path in files[:max(0, len(files) - keep + 1)]:
        with contextlib.suppress(OSError):
            os.unlink(path)
