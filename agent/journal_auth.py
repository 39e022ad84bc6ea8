"""Authenticating edit-journal entries: an HMAC-SHA256 with a per-user key kept outside every
workspace, so that nothing able to write a workspace (a sandboxed command, a cloned repository
shipping a `.codeagent/journal/`) can forge an entry that `undo` would replay as the user.

The key is a 0600 file in the user's state folder (platformdirs), made on first use;
CODEAGENT_JOURNAL_KEY names another file (tests, several machines sharing a home). It is read
from the environment here, not from the settings, because the project file feeds the settings and
a workspace must never choose the key that vouches for its own journal.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import os
import secrets
import stat
from pathlib import Path

import platformdirs

from .errors import JournalError

KEY_ENV = "CODEAGENT_JOURNAL_KEY"
KEY_FILE = "journal.key"
_KEY_BYTES = 32
_DOMAIN = b"codeagent-journal-v2"


def default_key_path() -> Path:
    raw = os.environ.get(KEY_ENV, "")
    return Path(raw).expanduser() if raw else platformdirs.user_state_path("codeagent") / KEY_FILE


class JournalKey:
    """The per-user key, loaded (or made) on first use."""

    def __init__(self, path: Path | None = None):
        self._path = path
        self._key: bytes | None = None

    @property
    def path(self) -> Path:
        return self._path if self._path is not None else default_key_path()

    def _load(self, root: Path) -> bytes:
        if self._key is not None:
            return self._key
        path = self.path
        real = Path(os.path.realpath(path))
        if real == root or root in real.parents:
            raise JournalError(f"the journal key {path} is inside the workspace {root}; a workspace must never hold "
                               f"the key that vouches for its journal (point {KEY_ENV} elsewhere)")
        if not os.path.lexists(path):
            _create(path)
        try:
            fd = os.open(path, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
            with os.fdopen(fd, "rb") as fh:
                st = os.fstat(fh.fileno())
                data = fh.read(1024)
        except OSError as exc:
            raise JournalError(f"cannot read the journal key {path}: {exc.strerror or exc}") from exc
        if not stat.S_ISREG(st.st_mode) or st.st_uid != os.geteuid():
            raise JournalError(f"the journal key {path} is not a regular file owned by you; refusing it")
        if st.st_mode & 0o077:
            raise JournalError(f"the journal key {path} is readable or writable by others (mode "
                               f"{stat.S_IMODE(st.st_mode):o}); run `chmod 600 {path}`")
        try:
            key = bytes.fromhex(data.decode("ascii").strip())
        except (UnicodeDecodeError, ValueError):
            key = b""
        if len(key) < _KEY_BYTES:
            raise JournalError(f"the journal key {path} is not {_KEY_BYTES * 2} hex digits; delete it to make a new one "
                               "(entries signed with it can then no longer be undone)")
        self._key = key
        return key

    def sign(self, root: Path, entry_id: str, body: bytes) -> str:
        """The MAC of an entry's canonical bytes, bound to the workspace's real root and the entry id
        (an entry copied to another workspace or renamed to another id no longer verifies)."""
        mac = hmac.new(self._load(root), digestmod=hashlib.sha256)
        for part in (_DOMAIN, os.fsencode(str(root)), entry_id.encode("ascii"), body):
            mac.update(len(part).to_bytes(8, "big"))  # length-prefixed: no two splits read the same
            mac.update(part)
        return mac.hexdigest()

    def verify(self, root: Path, entry_id: str, body: bytes, mac: str) -> bool:
        return hmac.compare_digest(self.sign(root, entry_id, body), mac)


def _create(path: Path) -> None:
    """Make a new key file, atomically: whoever links first wins, everyone then reads that one."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        tmp = path.parent / f".{path.name}.{secrets.token_hex(4)}.tmp"
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0), 0o600)
        try:
            with os.fdopen(fd, "w", encoding="ascii") as fh:
                fh.write(secrets.token_hex(_KEY_BYTES) + "\n")
                fh.flush()
                os.fsync(fh.fileno())
            with contextlib.suppress(FileExistsError):  # another process made it first: use theirs
                os.link(tmp, path)
        finally:
            os.unlink(tmp)
    except OSError as exc:
        raise JournalError(f"cannot create the journal key {path}: {exc.strerror or exc} (set {KEY_ENV} to a file "
                           "outside every workspace)") from exc
