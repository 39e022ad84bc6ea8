"""The trust store: which project config files (`.codeagent.toml`) the user allowed to set security
settings, by the real path of the workspace root and the sha256 of the file's exact bytes.

It lives in the user's config folder (agent.configpaths.TRUST_STORE, or $CODEAGENT_TRUST_FILE) and
is refused when it lies inside the workspace it would vouch for, when another user owns it or when
others may write it: whatever can write workspace files must never be able to grant trust. Any
change to the file's bytes loses the trust. Written atomically, mode 0600.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import stat
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from .errors import CodeagentError

STORE_VERSION = 1
MAX_STORE_BYTES = 4 * 1024 * 1024  # thousands of entries; a bigger file is not ours

Status = Literal["trusted", "changed", "unknown"]


class TrustStoreError(CodeagentError):
    """The trust store cannot be used (inside the workspace, unsafe permissions, unreadable, corrupt)."""


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def real_root(root: str | os.PathLike[str]) -> str:
    return os.path.realpath(os.fspath(root))


@dataclass(frozen=True, slots=True)
class TrustEntry:
    root: str  # real path of the workspace root
    sha256: str  # of the project config file's bytes
    trusted_at: float


class TrustStore:
    """One trust store file. Every method re-reads it: trust given or revoked by another process
    counts at once."""

    def __init__(self, path: Path):
        self.path = path.expanduser()

    def check_outside(self, root: str | os.PathLike[str]) -> None:
        """Refuse a store inside the workspace `root` (the sandbox and the tools may write there)."""
        store = Path(os.path.realpath(self.path))
        top = Path(real_root(root))
        if store == top or top in store.parents:
            raise TrustStoreError(f"the trust store {self.path} is inside the workspace {top}; refusing to use it")

    def entries(self) -> dict[str, TrustEntry]:
        """root → entry; empty when the store does not exist."""
        try:
            fd = os.open(self.path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
        except FileNotFoundError:
            return {}
        except OSError as exc:
            raise TrustStoreError(f"cannot read the trust store {self.path}: {exc.strerror or exc}") from exc
        with os.fdopen(fd, "rb") as fh:
            info = os.fstat(fh.fileno())
            if not stat.S_ISREG(info.st_mode) or info.st_uid != os.getuid() or info.st_mode & 0o022:
                raise TrustStoreError(f"the trust store {self.path} is not a private file of this user "
                                      "(owner or permissions); refusing to use it")
            data = fh.read(MAX_STORE_BYTES + 1)
        if len(data) > MAX_STORE_BYTES:
            raise TrustStoreError(f"the trust store {self.path} is over {MAX_STORE_BYTES} bytes")
        try:
            raw = json.loads(data) if data.strip() else {}
            items = raw.get("trusted", []) if isinstance(raw, dict) else None
            if not isinstance(items, list):
                raise ValueError("no 'trusted' list")
            out = {}
            for item in items:
                entry = TrustEntry(str(item["root"]), str(item["sha256"]), float(item.get("trusted_at", 0)))
                out[entry.root] = entry
        except (ValueError, KeyError, TypeError, AttributeError) as exc:
            raise TrustStoreError(f"the trust store {self.path} is corrupt: {exc}") from exc
        return out

    def status(self, root: str | os.PathLike[str], sha256: str) -> Status:
        """trusted: this exact content is; changed: another content of this root was; else unknown."""
        self.check_outside(root)
        entry = self.entries().get(real_root(root))
        if entry is None:
            return "unknown"
        return "trusted" if entry.sha256 == sha256 else "changed"

    def trust(self, root: str | os.PathLike[str], sha256: str) -> None:
        self.check_outside(root)
        entries = self.entries()
        key = real_root(root)
        entries[key] = TrustEntry(key, sha256, time.time())
        self._write(entries)

    def revoke(self, root: str | os.PathLike[str]) -> bool:
        """Forget `root`; False when it was not trusted."""
        entries = self.entries()
        if entries.pop(real_root(root), None) is None:
            return False
        self._write(entries)
        return True

    def _write(self, entries: dict[str, TrustEntry]) -> None:
        body = {"version": STORE_VERSION, "trusted": [
            {"root": e.root, "sha256": e.sha256, "trusted_at": e.trusted_at} for e in sorted(entries.values(),
                                                                                           key=lambda e: e.root)]}
        folder = self.path.parent
        try:
            folder.mkdir(mode=0o700, parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=folder, prefix=".trusted-", suffix=".tmp")
        except OSError as exc:
            raise TrustStoreError(f"cannot write the trust store {self.path}: {exc.strerror or exc}") from exc
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                os.fchmod(fh.fileno(), 0o600)
                json.dump(body, fh, indent=1)
                fh.write("\n")
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(tmp, self.path)
        except OSError as exc:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise TrustStoreError(f"cannot write the trust store {self.path}: {exc.strerror or exc}") from exc
