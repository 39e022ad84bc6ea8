"""`codeagent index` when nothing changed, on the standard library alone (no tree-sitter, no
settings models): about a tenth of a second where the full command took more than one.

The last full `codeagent index` left, in the index cache, a snapshot of its walk (the stamps of
every folder it listed, every .gitignore it read and every virtualenv marker it obeyed;
agent/syntax/sources.py `WalkLog`, agent/treestamps.py, the same check as a session's kept
search walks) under a
key made of what the answer depends on besides the tree: codeagent's code and query files, the
settings' sources (config files, trust store, environment) and the installed grammar packages.
If the key is the same, every stamp holds (an entry created, deleted or renamed in a folder
changes its ctime and mtime, a .gitignore edited or a marker's target gone changes its stamp),
and every indexed file has the stat its row was made
from, then a walk and a refresh would find exactly the rows there are: the command says so.
Anything else — a difference, a timestamp too recent to trust, a file skipped (re-tried each
time), an unreadable cache, an argument this module does not know — returns None and the full
command runs, which also writes a new snapshot. Any change to the rows deletes the snapshot's key
in the same transaction (agent/syntax/store.py), so a snapshot never outlives its rows.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
import json
import os
import sqlite3
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import NoReturn

from .. import treestamps
from ..daemon.protocol import build_id, inputs_id
from .output import EXIT_OK, UsageError, print_json

INDEX_PATH = (".codeagent", "index", "symbols.sqlite")  # workspace.TOOL_DIR / syntax.index.INDEX_FILE
RACY_NS = treestamps.RACY_NS  # as agent/syntax/index.py: a stat this close to its check may hide a change
# The grammar modules of agent/syntax/languages.py LANGUAGES and tree-sitter itself (a test
# checks the two lists agree): a new version of any of them changes the index's fingerprint.
GRAMMAR_MODULES = ("tree_sitter", "tree_sitter_go", "tree_sitter_java", "tree_sitter_javascript",
                   "tree_sitter_python", "tree_sitter_rust", "tree_sitter_typescript")


class _Quiet(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:  # the full command prints the usage text
        raise UsageError(message)


def index_key(root: Path) -> str:
    """What, besides the tree, decides the index's rows (see the module docstring)."""
    digest = hashlib.sha256(f"{build_id()}\0{inputs_id(root)}\0".encode())
    for module in GRAMMAR_MODULES:
        try:
            spec = importlib.util.find_spec(module)  # located, not imported
        except (ImportError, ValueError):
            spec = None
        if spec is None or not spec.origin:
            digest.update(f"{module}: missing\0".encode())
            continue
        folder = os.path.dirname(spec.origin)
        for name in sorted(os.listdir(folder)):  # an upgrade replaces the binding: new inode and mtime
            st = os.stat(os.path.join(folder, name))
            digest.update(f"{module}/{name}:{st.st_size}:{st.st_mtime_ns}:{st.st_ino}\0".encode())
    return digest.hexdigest()[:24]


def try_fast_index(argv: Sequence[str]) -> int | None:
    """Answer `codeagent index ARGS` from the cache's snapshot; None: run the full command."""
    started = time.perf_counter()
    p = _Quiet(prog="codeagent index", add_help=False)
    p.add_argument("--root", default=".")
    p.add_argument("--rebuild", action="store_true")
    p.add_argument("--quiet", action="store_true")
    p.add_argument("--json", action="store_true")
    try:
        args = p.parse_args(list(argv))
        if args.rebuild:
            return None
        root = Path(os.path.realpath(os.path.expanduser(args.root)))
        cache = root.joinpath(*INDEX_PATH)
        if not root.is_dir() or not cache.is_file():
            return None
        files = _unchanged_rows(root, cache, index_key(root))
    except (UsageError, SystemExit, OSError, ValueError, KeyError, TypeError, sqlite3.Error):
        return None
    if files is None:
        return None
    seconds = round(time.perf_counter() - started, 3)
    if args.json:
        print_json({"files": files, "parsed": 0, "removed": 0, "workers": 1, "seconds": seconds,
                    "cache": str(cache), "problem": None})
    else:
        print(f"indexed {files} source files (0 parsed, 0 removed, 1 process) in {seconds:.2f}s")
    sys.stdout.flush()
    return EXIT_OK


def _unchanged_rows(root: Path, cache: Path, key: str) -> int | None:
    """The number of indexed files when the snapshot proves the rows current, else None."""
    db = sqlite3.connect(f"{cache.as_uri()}?mode=rw", uri=True, timeout=0.5, isolation_level=None)
    try:
        db.execute("BEGIN")  # one read transaction: the key and the snapshot written with it
        meta = dict(db.execute("SELECT key, value FROM meta WHERE key IN ('walk_key', 'walk_ns')").fetchall())
        if meta.get("walk_key") != key or "walk_ns" not in meta:
            return None
        row = db.execute("SELECT data FROM walk_snapshot").fetchone()
    finally:
        db.close()
    if row is None:
        return None
    snapshot = json.loads(row[0])  # (only read once the key matched: codeagent wrote it)
    base = str(root)
    prefix = base.rstrip("/") + "/"  # (paths are "/"-separated; concatenation is the hot loop)
    walk = snapshot["walk"]
    if not treestamps.hold([prefix + rel if rel else base for rel, _ in walk],
                           [tuple(s) if s is not None else None for _, s in walk]):
        return None  # an entry created, deleted or renamed, a rule file edited, a marker gone
    stat = os.stat
    files = snapshot["files"]
    for rel, size, mtime_ns, inode, checked_ns in files:
        if mtime_ns >= checked_ns - RACY_NS:
            return None  # the full refresh re-reads racy files
        try:
            st = stat(prefix + rel)
        except FileNotFoundError:
            return None
        if st.st_size != size or st.st_mtime_ns != mtime_ns or st.st_ino != inode:
            return None
    return len(files)
