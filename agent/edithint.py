"""The cross-file hint: when a text edit (replace_in_file, write_file, apply_patch) renames or
removes the definition of a symbol, or the name an import binds, and the language server says that
symbol is used in other files, the model reads so beside the result, with the semantic tool that
does the whole job in one edit (rename_symbol, or move_symbol when the definition left the file).

What counts, precisely: an identifier occurrence the edit removes (its line block loses more
occurrences of the name than it gains) on a line that defines the name (def/class/function/
const/let/var/interface/type/enum, or a module-level `NAME =`) or imports it; the server must
resolve that occurrence to a symbol whose definition is the occurrence itself (a definition), or,
on an import line, a name replaced by another that is bound to a workspace symbol other than a
module; and it must find references to it in other workspace files. Strings, comments,
local variables and one-file symbols find no other file, so they stay silent.

The question is asked on the tree *before* the edit (afterwards the other files' uses no longer
resolve), inside a time budget, on a daemon thread: a slow or missing server never delays the edit
by more than the budget and never fails it. The first call that names a file of a server language
starts its server in the background (a model usually reads before it edits); an edit waits for
the server at most BUDGET_S, or START_BUDGET_S while it is still starting, and a run at most
RUN_BUDGET_S in all. Runs that do not offer rename_symbol (the text toolset) never ask."""

from __future__ import annotations

import difflib
import re
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lsp_bridge import FileLocation, Position
from lsp_bridge.errors import BridgeError

from .errors import CodeagentError
from .languages import server_language
from .patching import PatchError, apply_hunks, parse_patch
from .result import ToolResult
from .semantic.sessions import session_for
from .toolcontext import ToolContext

BUDGET_S = 5.0  # most seconds one edit waits for the server (its start included)
START_BUDGET_S = 20.0  # ... while its server is still starting (once: the run budget bounds it)
RUN_BUDGET_S = 30.0  # most seconds a whole run waits for hints
MAX_NAMES = 3  # candidate names asked about per edit
MAX_FILES_SHOWN = 3
TEXT_EDITS = ("replace_in_file", "write_file", "apply_patch")
_IDENT = re.compile(r"[A-Za-z_$][\w$]*")
_DEFINES = re.compile(r"\b(?:def|class|function|interface|type|enum|const|let|var|async\s+def)\s+([A-Za-z_$][\w$]*)")
_MODULE_ASSIGN = re.compile(r"^([A-Za-z_][\w]*)\s*(?::[^=]*)?=[^=]")
_IMPORT_LINE = re.compile(r"^\s*(?:from\s+\S+\s+import\b|import\b|export\s+(?:type\s+)?\{[^}]*\}\s*from\b)")
_KEYWORDS = frozenset((
    "def", "class", "function", "interface", "type", "enum", "const", "let", "var", "async", "await", "return",
    "import", "from", "as", "export", "default", "if", "else", "elif", "for", "while", "in", "not", "and", "or",
    "is", "None", "True", "False", "self", "this", "new", "null", "undefined", "pass", "lambda", "with", "try",
    "except", "finally", "raise", "yield", "global", "nonlocal", "del", "assert", "break", "continue"))


@dataclass(frozen=True, slots=True)
class Removed:
    """An identifier occurrence the edit removes, on a defining or importing line of the old text."""

    path: str
    name: str
    line: int  # 0-based, in the old text
    column: int  # 0-based characters
    importing: bool
    replaced: bool  # the block gained another identifier in its place (a rename, not a removal)


def removed_names(path: str, old: str, new: str) -> list[Removed]:
    """The candidate occurrences of one file's change, at most MAX_NAMES, definitions first."""
    a, b = old.split("\n"), new.split("\n")
    found: list[Removed] = []
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag not in ("replace", "delete"):
            continue
        lost = Counter(_IDENT.findall("\n".join(a[i1:i2])))
        gained = Counter(_IDENT.findall("\n".join(b[j1:j2])))
        replaced = bool(gained - lost)
        for name in lost - gained:
            if name in _KEYWORDS:
                continue
            for i in range(i1, i2):
                hit = _site(a[i], name)
                if hit is not None:
                    found.append(Removed(path, name, i, hit[0], hit[1], replaced))
                    break
    found.sort(key=lambda r: (r.importing, r.line))
    return found[:MAX_NAMES]


def _site(line: str, name: str) -> tuple[int, bool] | None:
    """(column, importing) of `name` on a line that defines or imports it, else None."""
    for m in _DEFINES.finditer(line):
        if m.group(1) == name:
            return m.start(1), False
    assign = _MODULE_ASSIGN.match(line)
    if assign and assign.group(1) == name:
        return 0, False
    if _IMPORT_LINE.match(line):
        for ident in _IDENT.finditer(line):
            if ident.group(0) == name:
                return ident.start(), True
    return None


def planned_change(ctx: ToolContext, tool: str, args: dict[str, Any]) -> list[tuple[str, str, str]]:
    """(path, old text, new text) of each existing file the call would change, computed as the
    tool would (a call that would fail gives nothing: the tool says why)."""
    ws = ctx.workspace
    try:
        if tool == "replace_in_file":
            doc = ws.read(str(args["file_path"]))
            old_text, new_text = str(args["old_text"]), str(args["new_text"])
            if not old_text or old_text not in doc.text:
                return []
            count = -1 if args.get("replace_all") else 1
            return [(doc.path, doc.text, doc.text.replace(old_text, new_text, count))]
        if tool == "write_file":
            path = str(args["file_path"])
            if not ws.exists(path):
                return []
            doc = ws.read(path)
            return [(doc.path, doc.text, str(args["content"]))]
        if tool == "apply_patch":
            out = []
            for fp in parse_patch(str(args["patch"])):
                if fp.source is None or not ws.exists(fp.source):
                    continue
                doc = ws.read(fp.source)
                new = "" if fp.target is None else apply_hunks(doc.path, doc.text, fp.hunks)[0]
                out.append((doc.path, doc.text, new))
            return out
    except (CodeagentError, PatchError, KeyError, OSError):
        return []
    return []


class CrossFileHint:
    """The loop's edit adviser (see agent/loop.EditAdviser): `before` is called for each call about
    to run and returns what to say once it has succeeded, or None."""

    def __init__(self, ctx: ToolContext, offered: Iterable[str], *, budget_s: float = BUDGET_S,
                 run_budget_s: float = RUN_BUDGET_S):
        self.ctx = ctx
        self.offered = set(offered)
        self.budget_s = budget_s
        self.left_s = run_budget_s  # all the waiting one run may do for hints
        self._ready: dict[str, threading.Event] = {}  # language → set once its server start settled
        self._failed: set[str] = set()
        self._lock = threading.Lock()
        self.asked = self.fired = 0  # edits the server was asked about; edits that got a hint

    @property
    def active(self) -> bool:
        """Only runs that offer the semantic tool get the hint (a text-only run has nothing to name)."""
        return "rename_symbol" in self.offered

    def before(self, tool: str, args: dict[str, Any]) -> Callable[[ToolResult], str | None] | None:
        if not self.active:
            return None
        path = args.get("file_path") or args.get("path")
        if isinstance(path, str):
            self._warm(path)
        if tool not in TEXT_EDITS:
            return None
        candidates = [r for p, old, new in planned_change(self.ctx, tool, args) for r in removed_names(p, old, new)]
        if not candidates or self.left_s <= 0:
            return None
        started = time.monotonic()
        cold = any(not self._ready.get(server_language(r.path) or "", threading.Event()).is_set() for r in candidates)
        budget = min(max(self.budget_s, START_BUDGET_S) if cold else self.budget_s, self.left_s)
        try:
            answers = _within(budget, lambda: self._answers(candidates[:MAX_NAMES], started + budget))
        finally:
            self.left_s -= time.monotonic() - started
        hints = [h for h in answers or [] if h]
        self.asked += 1
        if not hints:
            return None
        self.fired += 1
        return lambda result: "\n".join(hints) if result.success else None

    def _answers(self, candidates: list[Removed], deadline: float) -> list[str | None]:
        out: list[str | None] = []
        for r in candidates:
            ready = self._warm(r.path)
            if ready is None or not ready.wait(max(0.0, deadline - time.monotonic())) \
                    or server_language(r.path) in self._failed:
                continue  # no server, or not ready in time: silent
            out.append(self._ask(r))
        return out

    def _warm(self, path: str) -> threading.Event | None:
        """Start the file's server in the background, once; its event is set once it is ready."""
        language = server_language(path)
        if language is None:
            return None
        with self._lock:
            if language in self._ready:
                return self._ready[language]
            ready = self._ready[language] = threading.Event()

        def start() -> None:
            try:
                if not session_for(self.ctx, language).ready(self.ctx.settings.lsp.ready_timeout):
                    self._failed.add(language)
            except (BridgeError, CodeagentError):
                self._failed.add(language)  # no server: no hint, ever
            finally:
                ready.set()  # settled: ready, or failed (waiters stop waiting either way)

        threading.Thread(target=start, name=f"hint-warm-{language}", daemon=True).start()
        return ready

    def _ask(self, r: Removed) -> str | None:
        language = server_language(r.path)
        assert language is not None
        session = session_for(self.ctx, language)
        real = self.ctx.workspace.resolve(r.path)
        pos = Position(r.line, r.column)
        defs = session.definition(real, pos)
        if r.importing:
            # only a name replaced by another (not an import dropped), bound to a workspace symbol
            # that is not a module (changing which module a file imports is not a rename of it)
            if not r.replaced or not any(self._rel(d.path) is not None and not _module(d) for d in defs):
                return None
        elif not any(_at(loc, real, pos) for loc in defs):
            return None  # the line names it, but its definition is elsewhere (a re-assignment, a shadow)
        files = {self._rel(loc.path) for loc in session.references(real, pos, True)}
        others = sorted(f for f in files if f is not None and f != r.path)
        if not others:
            return None
        return describe(r, others, self.offered)

    def _rel(self, path: Path) -> str | None:
        try:
            return self.ctx.workspace.rel(path)
        except CodeagentError:
            return None  # outside the workspace (a library)


def describe(r: Removed, others: list[str], offered: set[str]) -> str:
    shown = ", ".join(others[:MAX_FILES_SHOWN]) + (", ..." if len(others) > MAX_FILES_SHOWN else "")
    n = len(others)
    head = f"`{r.name}` ({r.path}:{r.line + 1}) is also used in {n} other file{'s' if n > 1 else ''} ({shown})"
    if not r.replaced and "move_symbol" in offered and not r.importing:
        return f"{head}: they still refer to it there. move_symbol moves a definition and fixes every import in one edit."
    return (f"{head}: they still say `{r.name}`. rename_symbol renames a symbol everywhere in one edit "
            f"(to use it here, put `{r.name}` back first).")


def _at(loc: FileLocation, real: Path, pos: Position) -> bool:
    r = loc.range
    return loc.path == real and r.start.line == pos.line and r.start.character <= pos.character <= r.end.character


def _module(loc: FileLocation) -> bool:
    """A definition that is a whole module (the servers answer its file's first position)."""
    r = loc.range
    return r.start.line == r.start.character == r.end.line == r.end.character == 0


def _within(seconds: float, work: Callable[[], list[str | None]]) -> list[str | None] | None:
    """`work()` on a daemon thread; None when it takes longer than `seconds` or fails."""
    box: list[list[str | None]] = []

    def run() -> None:
        try:
            box.append(work())
        except Exception:  # noqa: BLE001 - a hint that fails says nothing; the edit is not its business
            return

    thread = threading.Thread(target=run, name="edit-hint", daemon=True)
    thread.start()
    thread.join(seconds)
    return box[0] if box else None
