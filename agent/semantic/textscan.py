"""Fast textual search for one name across the workspace's source files: the candidate files
(ripgrep, started in the background so it runs while the language server answers) and the
identifier tokens with that name in code (the syntax layer), for "occurrences the server did not
confirm" reports and the syntactic fallback."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from ..toolcontext import ToolContext
from ..walk import iter_files
from .filecache import file_cache
from .languages import server_language, syntax_language

MAX_FILES = 5_000
RG_TIMEOUT = 30.0

_FAMILY_GLOBS = {
    "python": ("*.py", "*.pyi"),
    "typescript": ("*.ts", "*.tsx", "*.mts", "*.cts", "*.js", "*.jsx", "*.mjs", "*.cjs"),
}


def _rg() -> str | None:
    found = shutil.which("rg")
    if found:
        return found
    beside = Path(sys.executable).parent / "rg"  # the `ripgrep` wheel installs it next to python
    return str(beside) if beside.exists() else None


@dataclass(frozen=True, slots=True)
class CodeHit:
    path: str  # workspace-relative
    line: int  # 0-based
    column: int  # 0-based characters


class NameSearch:
    """Files of one language family whose text contains `name` as a word. Construct it before a
    slow server request (ripgrep starts at once) and call `files()` afterwards."""

    def __init__(self, ctx: ToolContext, name: str, family: str):
        self.ctx = ctx
        self.name = name
        self.family = family
        self._proc: subprocess.Popen[bytes] | None = None
        rg = _rg()
        if rg is not None and family in _FAMILY_GLOBS:
            cmd = [rg, "--files-with-matches", "--word-regexp", "--fixed-strings", "--no-messages",
                   "--no-config", "--max-filesize", f"{ctx.workspace.max_read_bytes}"]
            for glob in _FAMILY_GLOBS[family]:
                cmd += ["--glob", glob]
            cmd += ["--glob", "!.codeagent", "-e", name, "--", "."]
            try:
                self._proc = subprocess.Popen(cmd, cwd=ctx.workspace.root, stdout=subprocess.PIPE,
                                              stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL)
            except OSError:
                self._proc = None

    def files(self) -> list[str]:
        """Workspace-relative paths, sorted (at most MAX_FILES)."""
        root = self.ctx.workspace.root
        if self._proc is not None:
            try:
                out, _ = self._proc.communicate(timeout=RG_TIMEOUT)
            except subprocess.TimeoutExpired:
                self._proc.kill()
                self._proc.communicate()
                out = None
            if out is not None and self._proc.returncode in (0, 1):
                rels = [os.path.normpath(p) for p in out.decode("utf-8", "surrogateescape").splitlines() if p]
                return sorted(Path(p).as_posix() for p in rels)[:MAX_FILES]
        found = []
        for path in iter_files(root, root):
            if server_language(path) != self.family:
                continue
            try:
                if self.name in self.ctx.workspace.read(path).text:
                    found.append(Path(path).resolve().relative_to(root).as_posix())
            except Exception:
                continue
            if len(found) >= MAX_FILES:
                break
        return sorted(found)


def word_positions(text: str, name: str) -> list[tuple[int, int]]:
    """0-based (line, column) of `name` as a whole word."""
    rx = re.compile(rf"(?<![\w$]){re.escape(name)}(?![\w$])")
    out: list[tuple[int, int]] = []
    for lineno, line in enumerate(text.split("\n")):
        if name in line:
            out.extend((lineno, m.start()) for m in rx.finditer(line))
    return out


def code_hits(ctx: ToolContext, rel: str, name: str, *, only: set[tuple[int, int]] | None = None) -> list[CodeHit]:
    """Identifier tokens equal to `name` in code (not strings/comments) in one file. With `only`,
    the file is parsed only if some word match is not in `only` (the already-confirmed sites),
    and just the unconfirmed hits are returned."""
    language = syntax_language(rel)
    if language is None:
        return []
    cache = file_cache(ctx)
    text = cache.text(rel)
    if text is None:
        return []
    if only is not None:
        words = [p for p in word_positions(text, name) if p not in only]
        if not words:
            return []
    hits = [CodeHit(rel, ln, col) for ln, col in cache.code_occurrences(rel, language, name)]
    if only is not None:
        hits = [h for h in hits if (h.line, h.column) not in only]
    return hits
