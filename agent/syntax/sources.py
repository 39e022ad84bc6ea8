"""The supported source files of a tree, found fast enough to run before every index query.

The same rules as `agent.walk.iter_files` (always-skipped folders, virtualenvs, symlinks,
nested .gitignore files where the deepest matching rule decides), but only files with a
supported extension are matched against the ignore rules, and paths stay strings: on a tree of
a few thousand files this is several times faster, and the index walks the tree on every query.
"""

from __future__ import annotations

import contextlib
import operator
import os
import stat
from collections.abc import Iterator
from dataclasses import dataclass, field

import pathspec

from ..ignorequick import Quick, quick_test
from ..walk import ALWAYS_SKIPPED, load_gitignore
from ..workspace import TEMP_SUFFIX
from .languages import language_for

# (depth of the folder, its rules, their quick test: agent/ignorequick.py)
_Specs = tuple[tuple[int, pathspec.GitIgnoreSpec, Quick | None], ...]
_NAME = operator.attrgetter("name")


@dataclass
class WalkLog:
    """What a walk's answer depended on, for a later check that it would still be the same
    without walking again (agent/commands/index_fast.py), as paths relative to the root: each
    folder walked (creating, deleting or renaming an entry changes it), each .gitignore read,
    each pyvenv.cfg that made a folder a virtualenv (linked from elsewhere, only its own stamp
    shows its target going), all stamped once the walk is done (agent/treestamps.py); and whether
    a symlinked source file was followed (its target may change where no folder shows it)."""

    folders: list[str] = field(default_factory=list)
    ignore_files: list[str] = field(default_factory=list)
    markers: list[str] = field(default_factory=list)
    links: int = 0
    complete: bool = True  # False when a folder could not be listed

    def paths(self) -> list[str]:
        return [*self.folders, *self.ignore_files, *self.markers]


def _is_virtualenv(entries: list[os.DirEntry[str]]) -> bool:
    for entry in entries:
        if entry.name == "pyvenv.cfg":
            try:
                return entry.is_file()
            except OSError:
                return False
    return False


def _ignored(parts: list[str], is_dir: bool, specs: _Specs) -> bool:
    for depth, spec, quick in reversed(specs):
        sub = "/".join(parts[depth:]) + ("/" if is_dir else "")
        if quick is not None and quick(sub) is None:
            continue  # no rule of this file can match (pathspec would say None: undecided)
        include = spec.check_file(sub).include
        if include is not None:
            return bool(include)
    return False


def source_files(root: str, start: str | None = None,
                 log: WalkLog | None = None) -> Iterator[tuple[str, str, os.stat_result]]:
    """(absolute path, workspace-relative path, stat) of each supported source file under
    `start` (default: the root). `root` and `start` are real paths, `start` inside `root`.
    `log`, when given (a walk of the whole root only), is filled as the walk goes."""
    start = start or root
    root_prefix = root.rstrip(os.sep) + os.sep
    rel_start = "" if start == root else os.path.relpath(start, root).replace(os.sep, "/")
    if os.path.isfile(start):
        if language_for(start) is not None:
            with contextlib.suppress(OSError):
                yield start, rel_start, os.stat(start)
        return
    specs: list[tuple[int, pathspec.GitIgnoreSpec, Quick | None]] = []
    folder = root
    parts = rel_start.split("/") if rel_start else []
    for depth in range(len(parts)):  # the rules of the folders above `start` apply too
        spec = load_gitignore(folder) if os.path.isfile(os.path.join(folder, ".gitignore")) else None
        if spec is not None:
            specs.append((depth, spec, quick_test(spec)))
        folder = os.path.join(folder, parts[depth])
    yield from _walk(start, parts, tuple(specs), root_prefix, top=True, log=log)


def _walk(folder: str, parts: list[str], specs: _Specs, root_prefix: str,
          top: bool = False, log: WalkLog | None = None) -> Iterator[tuple[str, str, os.stat_result]]:
    try:
        with os.scandir(folder) as it:
            entries = sorted(it, key=_NAME)
    except OSError:
        if log is not None:
            log.complete = False
        return
    if log is not None:
        log.folders.append("/".join(parts))
    if not top and _is_virtualenv(entries):
        if log is not None:
            log.markers.append("/".join([*parts, "pyvenv.cfg"]))
        return  # (the folder the walk starts in is walked whatever it is)
    if any(e.name == ".gitignore" for e in entries):
        if log is not None:
            log.ignore_files.append("/".join([*parts, ".gitignore"]))
        spec = load_gitignore(folder)
        if spec is not None:
            specs = (*specs, (len(parts), spec, quick_test(spec)))
    subfolders = []
    for entry in entries:
        name = entry.name
        try:
            if entry.is_dir(follow_symlinks=False):
                subfolders.append(entry)
                continue
            if language_for(name) is None or name.endswith(TEMP_SUFFIX):
                continue
            if entry.is_symlink():
                if log is not None:
                    log.links += 1
                real = os.path.realpath(entry.path)
                if not real.startswith(root_prefix) or not os.path.isfile(real):
                    continue
            if specs and _ignored([*parts, name], False, specs):
                continue
            st = entry.stat()
        except OSError:
            continue
        if not stat.S_ISREG(st.st_mode):
            continue  # a fifo would block the parser's read forever; devices, sockets: nothing to parse
        yield entry.path, "/".join([*parts, name]), st
    for entry in subfolders:
        name = entry.name
        if name in ALWAYS_SKIPPED:
            continue
        if specs and _ignored([*parts, name], True, specs):
            continue
        yield from _walk(entry.path, [*parts, name], specs, root_prefix, log=log)
