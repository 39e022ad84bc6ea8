"""Walking the workspace the way a developer sees it: gitignore-aware, never leaving the root.

Skips `.git`, `node_modules`, `__pycache__`, virtualenvs, the tool folder, and whatever the
`.gitignore` files (root and nested, negations included) ignore. Symlinks are not followed:
a symlinked file is listed only when its target is a file inside the root; symlinked folders
are not entered. Also holds the glob matcher shared by find_files and search_in_files.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterator
from pathlib import Path

import pathspec

from .ignorequick import Quick, quick_test
from .workspace import TEMP_SUFFIX

ALWAYS_SKIPPED = frozenset(
    {".git", "node_modules", "__pycache__", ".venv", "venv", ".codeagent", ".mypy_cache", ".ruff_cache",
     ".pytest_cache", ".tox", ".hg", ".svn", ".nox", ".eggs"}
)
# Folders whose files the language servers are never sent (lsp_bridge's sync): build output and
# installed packages too. Passed to lsp_bridge's SessionPool; its own default is the same list.
SERVER_SKIPPED = ALWAYS_SKIPPED | {"site-packages", "dist", "build", ".next"}
# Folders whose code is never the workspace's own (a rename never edits it): installed packages.
NOT_OWN_CODE = ALWAYS_SKIPPED | {"site-packages"}


def _is_virtualenv(path: str | Path) -> bool:
    return os.path.isfile(os.path.join(path, "pyvenv.cfg"))


def _lists_pyvenv(entries: list[os.DirEntry[str]]) -> bool:
    for entry in entries:
        if entry.name == "pyvenv.cfg":
            try:
                return entry.is_file()
            except OSError:
                return False
    return False


# (folder relative to the root, its rules, the quick test of them: ignorequick.py)
_Chain = tuple[tuple[str, pathspec.GitIgnoreSpec, Quick | None], ...]


class IgnoreRules:
    """The gitignore rules of one tree, nested .gitignore files included (loaded lazily)."""

    def __init__(self, root: Path):
        self.root = root
        self._root = str(root)
        self._chains: dict[str, _Chain] = {}

    def chain(self, folder_rel: str) -> _Chain:
        """The rules that apply inside a folder ("" is the root), outermost first."""
        chain = self._chains.get(folder_rel)
        if chain is None:
            parent = self.chain(folder_rel.rpartition("/")[0]) if folder_rel else ()
            spec = load_gitignore(os.path.join(self._root, folder_rel))
            chain = parent + ((folder_rel, spec, quick_test(spec)),) if spec is not None else parent
            self._chains[folder_rel] = chain
        return chain

    def without_own_rules(self, folder_rel: str) -> None:
        """Say that a folder has no .gitignore (its listing shows none), so `chain` need not try
        to open one: its rules are its parent's."""
        if folder_rel not in self._chains:
            self._chains[folder_rel] = self.chain(folder_rel.rpartition("/")[0]) if folder_rel else ()

    def ignored_rel(self, rel: str, is_dir: bool) -> bool:
        """What git would say of a "/"-separated path relative to the root: the deepest
        .gitignore with a matching rule decides (so a nested `!pattern` re-includes)."""
        folder = rel.rpartition("/")[0]
        for base, spec, quick in reversed(self.chain(folder)):
            sub = rel[len(base) + 1:] if base else rel
            path = sub + "/" if is_dir else sub
            if quick is not None and quick(path) is None and not path.startswith(("/", "./")):
                continue  # no rule of this file can match (pathspec would say None: undecided)
            include = spec.check_file(path).include
            if include is not None:
                return bool(include)
        return False

    def ignored(self, path: Path, is_dir: bool) -> bool:
        return self.ignored_rel(path.relative_to(self.root).as_posix(), is_dir)


def load_gitignore(folder: str) -> pathspec.GitIgnoreSpec | None:
    """The rules of `folder`'s .gitignore (None when it has none or it cannot be read)."""
    try:
        with open(os.path.join(folder, ".gitignore"), encoding="utf-8", errors="replace") as fh:
            return pathspec.GitIgnoreSpec.from_lines(fh.read().splitlines())
    except (OSError, ValueError):
        return None


def skip_dir(path: Path, rules: IgnoreRules | None) -> bool:
    """True for folders a developer never wants walked (and gitignored ones, given rules)."""
    if path.name in ALWAYS_SKIPPED or path.is_symlink() or _is_virtualenv(path):
        return True
    return rules is not None and rules.ignored(path, True)


def link_leaves(path: str, root: str) -> bool:
    """Whether a symlinked file leads out of `root` (a real path) or to something not a file."""
    real = os.path.realpath(path)
    return not real.startswith(root + os.sep) or not os.path.isfile(real)


def skip_file(path: Path, root: Path, rules: IgnoreRules | None) -> bool:
    """True for files the walk leaves out: our temp files, symlinks leading out, ignored files."""
    if path.name.endswith(TEMP_SUFFIX) or (path.is_symlink() and link_leaves(str(path), str(root))):
        return True
    return rules is not None and rules.ignored(path, False)


def iter_files(
    root: Path, start: Path | None = None, *, gitignore: bool = True, max_files: int | None = None
) -> Iterator[Path]:
    """Files under `start` (default: the root): each folder's files (sorted), then its subfolders
    (sorted). `root` must be a real path; `start` a real path inside it."""
    for abs_path, _rel in iter_file_names(root, start, gitignore=gitignore, max_files=max_files):
        yield Path(abs_path)


def iter_file_names(
    root: Path, start: Path | None = None, *, gitignore: bool = True, max_files: int | None = None,
    folders: list[str] | None = None, links: list[str] | None = None, links_out: list[str] | None = None,
    depends: list[str] | None = None, rule_files: list[str] | None = None,
    listed: dict[str, list[os.DirEntry[str]]] | None = None,
) -> Iterator[tuple[str, str]]:
    """`iter_files` as strings: (absolute path, "/"-separated path relative to the root). No Path
    objects, no relpath, and a folder's .gitignore read only when the listing shows one: on a
    tree of thousands of files (search_in_files walks it on every call) several times faster.
    `folders` / `links` collect every folder listed and every symlinked file yielded (what a
    kept selection depends on: agent/semantic/walkcache.py); `links_out` the symlinked files left
    out because they lead out of the root or not to a file, and `depends` the other paths whose
    state decided the walk: folders that could not be listed, the pyvenv.cfg that marked a
    virtualenv (agent/semantic/walkstamps.py); `rule_files` the .gitignore of each folder walked
    whose listing shows one. `listed` holds folders already listed (absolute path → entries, in
    any order), which the walk takes instead of listing them again (the folder watch's first
    listing: agent/semantic/watch.py `take_listings`)."""
    start = start or root
    root_s = str(root)
    if start.is_file():
        yield str(start), os.path.relpath(start, root_s).replace(os.sep, "/")
        return
    rules = IgnoreRules(root) if gitignore else None
    count = 0
    start_s = str(start)
    rel_start = os.path.relpath(start_s, root_s).replace(os.sep, "/") if start_s != root_s else ""
    stack = [(start_s, rel_start)]
    while stack:
        folder, rel_folder = stack.pop()
        prefix = rel_folder + "/" if rel_folder else ""
        given = listed.pop(folder, None) if listed is not None else None
        try:
            if given is not None:
                entries = sorted(given, key=lambda e: e.name)
            else:
                with os.scandir(folder) as it:
                    entries = sorted(it, key=lambda e: e.name)
        except OSError:
            if depends is not None:
                depends.append(folder)
            continue
        if folders is not None:
            folders.append(folder)
        if rel_folder != rel_start and _lists_pyvenv(entries):
            if depends is not None:
                depends.append(os.path.join(folder, "pyvenv.cfg"))
            continue  # a virtualenv (seen in its own listing: no stat per folder)
        ignoring = False
        if rules is not None:
            if not any(e.name == ".gitignore" for e in entries):
                rules.without_own_rules(rel_folder)
            elif rule_files is not None:
                rule_files.append(os.path.join(folder, ".gitignore"))
            ignoring = bool(rules.chain(rel_folder))
        subdirs: list[tuple[str, str]] = []
        for entry in entries:
            name = entry.name
            try:
                is_link = entry.is_symlink()
                is_dir = not is_link and entry.is_dir()
            except OSError:
                continue
            if is_dir:
                if name in ALWAYS_SKIPPED:
                    continue
                if ignoring and rules is not None and rules.ignored_rel(prefix + name, True):
                    continue
                subdirs.append((entry.path, prefix + name))
                continue
            if name.endswith(TEMP_SUFFIX):
                continue
            if is_link and link_leaves(entry.path, root_s):
                if links_out is not None:
                    links_out.append(entry.path)
                continue
            if not is_link and not entry.is_file():
                continue  # fifos, sockets, devices
            if ignoring and rules is not None and rules.ignored_rel(prefix + name, False):
                continue
            if is_link and links is not None:
                links.append(entry.path)
            yield entry.path, prefix + name
            count += 1
            if max_files is not None and count >= max_files:
                return
        stack.extend(reversed(subdirs))


# ---------------------------------------------------------------- globs


def _expand_braces(pattern: str) -> list[str]:
    """`*.{ts,tsx}` → [`*.ts`, `*.tsx`] (nested braces too)."""
    depth, start = 0, -1
    for i, ch in enumerate(pattern):
        if ch == "{":
            if depth == 0:
                start = i
            depth += 1
        elif ch == "}" and depth:
            depth -= 1
            if depth == 0:
                inner, options, level, last = pattern[start + 1:i], [], 0, 0
                for j, c in enumerate(inner):
                    level += (c == "{") - (c == "}")
                    if c == "," and level == 0:
                        options.append(inner[last:j])
                        last = j + 1
                options.append(inner[last:])
                if len(options) == 1:
                    continue
                return [x for opt in options for x in _expand_braces(pattern[:start] + opt + pattern[i + 1:])]
    return [pattern]


def _translate(glob: str) -> str:
    out, i, n = [], 0, len(glob)
    while i < n:
        ch = glob[i]
        if glob.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif glob.startswith("**", i):
            out.append(".*")
            i += 2
        elif ch == "*":
            out.append("[^/]*")
            i += 1
        elif ch == "?":
            out.append("[^/]")
            i += 1
        elif ch == "[":
            end = glob.find("]", i + 2)
            if end == -1:
                out.append(re.escape(ch))
                i += 1
                continue
            body = glob[i + 1:end]
            if body.startswith("!"):
                body = "^" + body[1:]
            out.append("[" + body.replace("\\", "\\\\") + "]")
            i = end + 1
        else:
            out.append(re.escape(ch))
            i += 1
    return "".join(out)


def compile_glob(pattern: str) -> Callable[[str], bool]:
    """A matcher for "/"-separated relative paths. `*` and `?` stay within one folder, `**`
    crosses folders, `{a,b}` alternates, `[abc]` is a class. A pattern without "/" matches the
    file name at any depth (like ripgrep's and git's globs); one with "/" the whole relative path."""
    pattern = pattern.strip()
    if not pattern:
        raise ValueError("empty glob")
    regexes = []
    for alt in _expand_braces(pattern):
        anchored = "/" in alt.rstrip("/")
        alt = alt.removeprefix("./").lstrip("/").rstrip("/")
        try:
            regexes.append((anchored, re.compile(_translate(alt), re.DOTALL)))
        except re.error as exc:
            raise ValueError(f"invalid glob {pattern!r}: {exc}") from exc

    def match(rel: str) -> bool:
        base = rel.rsplit("/", 1)[-1]
        return any(rx.fullmatch(rel if anchored else base) for anchored, rx in regexes)

    return match
