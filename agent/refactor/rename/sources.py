"""The workspace files one rename reads, each read once: text (decoded as the workspace does), hash,
the lines, a parsed PySource on demand. Files outside the workspace, in virtualenvs or
site-packages, are never part of it."""

from __future__ import annotations

import os
import re
from pathlib import Path

from ...errors import CodeagentError
from ...walk import NOT_OWN_CODE, iter_files
from ...workspace import Workspace
from .pysource import PySource


class Sources:
    """Workspace files of one language (the suffixes given), read once: the snapshot one plan is
    built on. Each text keeps the hash of the bytes it came from, which the commit compares before
    writing; a cache shared across requests (semantic.filecache) trusts watched texts instead, so a
    plan never reads through it."""

    def __init__(self, ws: Workspace, *, suffixes: tuple[str, ...], max_files: int = 50_000,
                 max_bytes: int = 4 * 1024 * 1024):
        self.ws = ws
        self.root = ws.root
        self.suffixes = suffixes
        self.max_files = max_files
        self.max_bytes = max_bytes
        self._texts: dict[Path, tuple[str, str] | None] = {}
        self._parsed: dict[Path, PySource] = {}
        self._files: list[Path] | None = None
        self._dir_ok: dict[Path, bool] = {}
        self._containing: dict[str, list[Path]] = {}
        self._raw: dict[Path, bytes] = {}
        self._lines: dict[Path, list[str]] = {}
        self.truncated = False

    def files(self) -> list[Path]:
        """Every file of the language under the root (gitignore-aware), bounded."""
        if self._files is None:
            found: list[Path] = []
            for path in iter_files(self.root):
                if path.suffix in self.suffixes:
                    found.append(path)
                    if len(found) >= self.max_files:
                        self.truncated = True
                        break
            self._files = found
        return self._files

    def files_containing(self, word: str) -> list[Path]:
        """Files whose text contains `word` (checked on the bytes first: most files never get decoded)."""
        found = self._containing.get(word)
        if found is None:
            raw = word.encode("utf-8", "surrogatepass")
            found = self._containing[word] = [
                p for p in self.files()
                if raw in self._bytes(p) and (entry := self.read(p)) is not None and word in entry[0]]
        return found

    def files_declaring(self, name: str) -> list[Path]:
        """Files that may declare a class member `name` (`def name`, `name =`, `name:`, `.name =`)."""
        pattern = re.compile(rf"\bdef\s+{re.escape(name)}\b|(?<![\w.]){re.escape(name)}\s*(:|=(?!=))|"
                             rf"\.{re.escape(name)}\s*=(?!=)")
        return [p for p in self.files_containing(name) if pattern.search(self.text(p) or "")]

    def _bytes(self, path: Path) -> bytes:
        data = self._raw.get(path)
        if data is None:
            try:
                data = path.read_bytes() if path.stat().st_size <= self.max_bytes else b""
            except OSError:
                data = b""
            self._raw[path] = data
        return data

    def is_utf8(self, path: Path) -> bool:
        """Whether the file's bytes are UTF-8 (what a server assumes of a file it reads itself)."""
        try:
            self._bytes(path).decode("utf-8")
        except UnicodeDecodeError:
            return False
        return True

    def rel(self, path: Path) -> str:
        """The workspace-relative form of a path inside the root (others stay absolute)."""
        try:
            return Path(path).relative_to(self.root).as_posix()
        except ValueError:
            return str(path)

    def in_workspace(self, path: Path) -> bool:
        """Inside the root, and not inside a virtualenv, site-packages or a skipped folder."""
        try:
            rel = Path(os.path.realpath(path)).relative_to(self.root)
        except ValueError:
            return False
        folder = self.root
        for part in rel.parts[:-1]:
            folder = folder / part
            ok = self._dir_ok.get(folder)
            if ok is None:
                ok = self._dir_ok[folder] = not (
                    part in NOT_OWN_CODE or (folder / "pyvenv.cfg").is_file())
            if not ok:
                return False
        return True

    def read(self, path: Path) -> tuple[str, str] | None:
        """(text, sha256) of a workspace file, or None when it is not one or cannot be read."""
        path = Path(path)
        if path not in self._texts:
            entry: tuple[str, str] | None = None
            if self.in_workspace(path):
                try:
                    if path.stat().st_size <= self.max_bytes:
                        doc = self.ws.read(path)
                        entry = (doc.text, doc.hash)
                except (CodeagentError, OSError):
                    entry = None
            self._texts[path] = entry
        return self._texts[path]

    def text(self, path: Path) -> str | None:
        entry = self.read(path)
        return entry[0] if entry else None

    def line(self, path: Path, line: int) -> str:
        """One line of a workspace file ("" when there is no such file or line)."""
        lines = self._lines.get(path)
        if lines is None:
            lines = self._lines[path] = (self.text(path) or "").split("\n")
        return lines[line] if 0 <= line < len(lines) else ""

    def parsed(self, path: Path) -> PySource | None:
        path = Path(path)
        src = self._parsed.get(path)
        if src is None:
            text = self.text(path)
            if text is None:
                return None
            src = self._parsed[path] = PySource(path, text)
        return src
