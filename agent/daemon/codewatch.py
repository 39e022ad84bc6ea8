"""Whether codeagent's own code changed under a running daemon: the daemon must never answer with
old code, and the CLI no longer walks the code on every call to tell it (protocol.install_id).

Every folder of agent/ and lsp_bridge/ (not __pycache__) gets an inotify watch when the daemon
starts, before it compares anything. The kernel queues an event inside the system call that made
a change, so a request that arrives after an edit, a `git checkout`, a `pip install` over the
package or a deleted folder finds its event queued, whichever process made it: `changed()` then
says so and the daemon restarts. An event that cannot be a change of code (a `__pycache__` folder,
a file other than .py/.scm, such as an editor's swap file) is ignored. Without inotify (another
system, the watch limit reached) or after lost events, each look walks the code again and compares
the newest mtime (protocol.build_id, what the CLI used to do per call), so safety never depends
on the watch.
"""

from __future__ import annotations

import os
from pathlib import Path

from lsp_bridge.watch import FolderWatch

from .protocol import build_id, code_folders

CODE_SUFFIXES = (".py", ".scm")  # what build_id stamps


class CodeWatch:
    def __init__(self, tops: list[Path] | None = None, *, inotify: bool = True):
        self._tops = code_folders() if tops is None else tops
        self._watch = FolderWatch.create() if inotify else None
        self._folders: set[str] = set()
        for top in self._tops:
            for dirpath, dirnames, _files in os.walk(top):
                dirnames[:] = [d for d in dirnames if d != "__pycache__"]
                self._folders.add(dirpath)
        if self._watch is not None and not all(self._watch.add(f) for f in self._folders):
            self._watch.close()
            self._watch = None
        self._generation = self._watch.generation if self._watch is not None else 0
        # Stamped after the watch is in place: a change before this is in the stamp, one after
        # it raises an event (or, without a watch, moves the stamp).
        self.stamp = build_id(self._tops)
        self._changed = False

    @property
    def watching(self) -> bool:
        return self._watch is not None and not self._watch.broken

    def changed(self) -> bool:
        """Whether any .py/.scm file or folder of the code changed since the daemon started
        (about 2 µs while nothing happened; sticky once True)."""
        if self._changed:
            return True
        if self._watch is None or self._watch.broken:
            self._changed = build_id(self._tops) != self.stamp
            return self._changed
        if not self._watch.pending():
            return False
        changes = self._watch.drain()
        if changes is None or self._watch.generation != self._generation:  # lost events, a folder gone
            self._changed = True
            return True
        self._changed = any(os.path.basename(f) != "__pycache__" for f in changes.new_folders) or any(
            self._is_code(path) for path in changes.paths)
        return self._changed

    def _is_code(self, path: str) -> bool:
        name = os.path.basename(path)
        if name == "__pycache__":  # Python writing bytecode
            return False
        if name.endswith(CODE_SUFFIXES) or path in self._folders:
            return True
        # An entry without a suffix may have been a folder (a deletion's event does not say): a change.
        return "." not in name

    def close(self) -> None:
        if self._watch is not None:
            self._watch.close()
            self._watch = None
