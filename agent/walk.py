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

from .workspace import TEMP_SUFFIX

ALWAYS_SKIPPED = frozenset(
    {".git", "node_modules", "__pycache__", ".venv", "venv", ".codeagent", ".mypy_cache", ".ruff_cache",
     ".pytest_cache", ".tox", ".hg", ".svn", ".nox", ".eggs"}
)


def _is_virtualenv(path: Path) -> bool:
    return (path / "pyvenv.cfg").is_file()


class IgnoreRules:
    """The gitignore rules of one tree, nested .gitignore files included (loaded lazily)."""

    def __init__(self, root: Path):
        self.root = root
        self._specs: dict[Path, pathspec.GitIgnoreSpec | None] = {}

    def _spec(self, folder: Path) -> pathspec.GitIgnoreSpec | None:
        if folder not in self._specs:
            spec = None
            gi = folder / ".gitignore"
            if gi.is_file():
                try:
                    lines = gi.read_text(encoding="utf-8", errors="replace").splitlines()
                    spec = pathspec.GitIgnoreSpec.from_lines(lines)
                except (OSError, ValueError):
                    spec = None
            self._specs[folder] = spec
        return self._specs[folder]

    def ignored(self, path: Path, is_dir: bool) -> bool:
        """What git would say: the deepest .gitignore with a matching rule decides (so a nested
        `!pattern` re-includes what a parent ignores)."""
        rel_parts = path.relative_to(self.root).parts
        folders = [self.root]
        for part in rel_parts[:-1]:
            folders.append(folders[-1] / part)
        for i in range(len(folders) - 1, -1, -1):
            spec = self._spec(folders[i])
            if spec is None:
                continue
            sub = "/".join(rel_parts[i:]) + ("/" if is_dir else "")
            include = spec.check_file(sub).include
            if include is not None:
                return include
        return False


def skip_dir(path: Path, rules: IgnoreRules | None) -> bool:
    """True for folders a developer never wants walked (and gitignored ones, given rules)."""
    if path.name in ALWAYS_SKIPPED or path.is_symlink() or _is_virtualenv(path):
        return True
    return rules is not None and rules.ignored(path, True)


def skip_file(path: Path, root: Path, rules: IgnoreRules | None) -> bool:
    """True for files the walk leaves out: our temp files, symlinks leading out, ignored files."""
    if path.name.endswith(TEMP_SUFFIX):
        return True
    if path.is_symlink():
        real = os.path.realpath(path)
        if not real.startswith(str(root) + os.sep) or not os.path.isfile(real):
            return True
    return rules is not None and rules.ignored(path, False)


def iter_files(
    root: Path, start: Path | None = None, *, gitignore: bool = True, max_files: int | None = None
) -> Iterator[Path]:
    """Files under `start` (default: the root): each folder's files (sorted), then its subfolders
    (sorted). `root` must be a real path; `start` a real path inside it."""
    start = start or root
    rules = IgnoreRules(root) if gitignore else None
    if start.is_file():
        yield start
        return
    count = 0
    for dirpath, dirnames, filenames in os.walk(start, followlinks=False):
        here = Path(dirpath)
        dirnames[:] = sorted(d for d in dirnames if not skip_dir(here / d, rules))
        for name in sorted(filenames):
            path = here / name
            if skip_file(path, root, rules):
                continue
            yield path
            count += 1
            if max_files is not None and count >= max_files:
                return


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
