"""The repo-wide symbol index: every definition in every supported file of the workspace,
kept current exactly (a changed file is re-parsed, a deleted one disappears, a new one is added)
and cached on disk between sessions (see `store.py`). Large trees are parsed by several
processes, with a progress bar on a terminal.
"""

from __future__ import annotations

import concurrent.futures as cf
import multiprocessing
import os
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..config import SyntaxSettings
from ..errors import OutsideWorkspaceError
from ..result import Location
from .extract import FileRecord, digest_of, extract, extract_many
from .languages import fingerprint
from .search import Scored, name_score, normalize, query_segments, score_entry, typo_candidates
from .sources import source_files
from .store import IndexStore
from .symbols import Entry

if TYPE_CHECKING:
    from ..toolcontext import ToolContext
    from ..workspace import Workspace

RACY_NS = 2_000_000_000  # a file modified this close to its check may change again unseen by mtime
PROGRESS_MIN_FILES = 200
INDEX_FILE = Path("index") / "symbols.sqlite"
MAX_LOADED_FILES = 20_000  # outlines kept in memory after a lookup read them


@dataclass(frozen=True, slots=True)
class SymbolMatch:
    """A definition found by `SymbolIndex.find`. `line`/`column` (1-based, characters) locate
    the NAME token; `start_*`/`end_*` the whole definition (end exclusive)."""

    path: str
    name: str
    name_path: str
    kind: str
    line: int
    column: int
    start_line: int
    start_column: int
    end_line: int
    end_column: int
    signature: str
    score: float
    language: str

    @property
    def location(self) -> Location:
        return Location(self.path, self.line, self.column, self.line, self.column + len(self.name))

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(slots=True)
class RefreshStats:
    files: int = 0  # supported files seen
    parsed: int = 0
    removed: int = 0
    verified: int = 0  # racy files whose content was re-read and found unchanged
    workers: int = 1
    seconds: float = 0.0
    problem: str | None = None


def _ensure_tool_dir(tool_dir: Path) -> None:
    tool_dir.mkdir(parents=True, exist_ok=True)
    ignore = tool_dir / ".gitignore"
    if not ignore.exists():
        ignore.write_text("# codeagent's own state; never commit it\n*\n", encoding="utf-8")


class SymbolIndex:
    """Definitions of a whole workspace; `find` refreshes (cheaply: one stat per file) first."""

    def __init__(self, root: Path, settings: SyntaxSettings | None = None, *, cache_path: Path | None = None,
                 lock_timeout: float = 10.0):
        self.root = Path(os.path.realpath(root))
        self.settings = settings or SyntaxSettings()
        self.store = IndexStore(cache_path, fingerprint(), timeout=lock_timeout)
        self.last_refresh = RefreshStats(problem=self.store.problem)
        self._lock = threading.RLock()
        self._records: dict[str, FileRecord] = {r.path: r for r in self.store.load_keys()}
        self._loaded: dict[str, list[Entry]] = {}  # outlines read from the store, by file
        self._names: list[str] | None = None  # every distinct normalized name (for typo matching)
        self._unsaved: dict[str, FileRecord] = {}  # parsed, but the store failed to keep them

    @classmethod
    def for_workspace(cls, workspace: Workspace, settings: SyntaxSettings | None = None) -> SymbolIndex:
        settings = settings or SyntaxSettings()
        cache = None
        if settings.index_cache:
            try:
                _ensure_tool_dir(workspace.tool_dir)
                cache = workspace.tool_dir / INDEX_FILE
            except OSError:
                cache = None
        return cls(workspace.root, settings, cache_path=cache)

    # ----------------------------------------------------------------- refresh
    def refresh(self, under: str | Path | None = None, *, progress: bool | None = None) -> RefreshStats:
        """Bring the index up to date for the folder `under` (default: the whole workspace)."""
        started = time.perf_counter()
        start = self.root if under is None else Path(os.path.realpath(self.root / under))
        if start != self.root and self.root not in start.parents:
            raise OutsideWorkspaceError(f"{under}: outside the indexed tree {self.root}")
        prefix = "" if start == self.root else start.relative_to(self.root).as_posix()
        with self._lock:
            stats = RefreshStats()
            seen: set[str] = set()
            todo: list[tuple[str, str]] = []
            racy: list[tuple[str, str]] = []
            now = time.time_ns()
            for abs_path, rel, st in source_files(str(self.root), str(start)):
                seen.add(rel)
                known = self._records.get(rel)
                if known is not None and known.same_stat(st) and not known.skipped:
                    if st.st_mtime_ns >= known.checked_ns - RACY_NS:
                        racy.append((abs_path, rel))
                    continue
                todo.append((abs_path, rel))
            for abs_path, rel in racy:  # same stat, but too recent to trust: compare the bytes
                known = self._records[rel]
                try:
                    with open(abs_path, "rb") as fh:
                        same = digest_of(fh.read()) == known.digest
                except OSError:
                    same = False
                if same:
                    stats.verified += 1
                    known.checked_ns = now
                else:
                    todo.append((abs_path, rel))
            gone = [p for p in self._records if p not in seen and _inside(p, prefix)]
            records = self._parse(todo, stats, progress)
            for rel in gone:
                del self._records[rel]
            for rec in records:
                self._records[rec.path] = rec
            parsed = {r.path for r in records}
            for _path, rel in todo:  # vanished between the walk and the parse
                if rel not in parsed and rel in self._records:
                    del self._records[rel]
                    gone.append(rel)
            for rel in gone:
                self._loaded.pop(rel, None)
                self._unsaved.pop(rel, None)
            for rec in records:
                self._loaded.pop(rec.path, None)
            if self.store.save(records, gone):  # saved: the outlines can be read back from the store
                for rec in records:
                    self._unsaved.pop(rec.path, None)
                    rec.payload = ""
            else:
                self._unsaved.update((rec.path, rec) for rec in records)
            if stats.verified:
                self.store.touch([(now, rel) for _p, rel in racy if self._records.get(rel) and
                                  self._records[rel].checked_ns == now])
            if records or gone:
                self._names = None
            stats.files = len(seen)
            stats.parsed = len(records)
            stats.removed = len(gone)
            stats.problem = stats.problem or self.store.problem
            stats.seconds = time.perf_counter() - started
            self.last_refresh = stats
            return stats

    def _workers_for(self, count: int) -> int:
        if count < self.settings.parallel_min_files:
            return 1
        wanted = self.settings.index_workers or (os.cpu_count() or 1)
        return max(1, min(wanted, count))

    def _parse(self, todo: list[tuple[str, str]], stats: RefreshStats, progress: bool | None) -> list[FileRecord]:
        if not todo:
            return []
        max_bytes = self.settings.max_file_bytes
        workers = self._workers_for(len(todo))
        stats.workers = workers
        show = self._show_progress(len(todo), progress)
        if workers > 1:
            try:  # the pool forks before the progress bar starts its thread
                return _parse_parallel(todo, max_bytes, workers, lambda: _Progress(len(todo), show))
            except (OSError, cf.process.BrokenProcessPool, RuntimeError) as exc:
                stats.problem = f"parallel parsing failed ({exc}); parsed in this process"
                stats.workers = 1
        out = []
        with _Progress(len(todo), show) as bar:
            for abs_path, rel in todo:
                record = extract(abs_path, rel, max_bytes)
                if record is not None:
                    out.append(record)
                bar.advance(1)
        return out

    def _show_progress(self, count: int, progress: bool | None) -> bool:
        if progress is not None:
            return progress and count > 0
        mode = self.settings.progress
        if mode == "never" or count < PROGRESS_MIN_FILES:
            return False
        return mode == "always" or sys.stderr.isatty()

    # ----------------------------------------------------------------- queries
    def _entries_of(self, rel: str) -> list[Entry]:
        if rel in self._unsaved:
            return self._unsaved[rel].entries()
        if rel not in self._loaded:
            if len(self._loaded) > MAX_LOADED_FILES:
                self._loaded.clear()
            self._loaded.update(self.store.load_entries([rel]))
            self._loaded.setdefault(rel, [])
        return self._loaded[rel]

    def file_entries(self, rel: str) -> list[Entry]:
        """The outline of one indexed file, flattened (parents first, `depth` says nesting)."""
        with self._lock:
            return list(self._entries_of(rel)) if rel in self._records else []

    def _candidates(self, norms: list[str], under: str) -> list[tuple[str, Entry]]:
        """Every (file, entry) whose normalized name is one of `norms`, under a folder."""
        wanted = set(norms)
        paths = {p for found in self.store.paths_defining(norms).values() for p in found}
        paths.update(rel for rel, rec in self._unsaved.items() if wanted.intersection(rec.names))
        out: list[tuple[str, Entry]] = []
        for rel in sorted(paths):
            if rel in self._records and _inside(rel, under):
                out.extend((rel, e) for e in self._entries_of(rel) if normalize(e.name) in wanted)
        return out

    def files(self, under: str = "") -> list[str]:
        """Indexed files under a workspace-relative folder ("" for all), sorted."""
        with self._lock:
            return sorted(p for p in self._records if _inside(p, under))

    def record(self, rel: str) -> FileRecord | None:
        return self._records.get(rel)

    def find(self, query: str, *, kind: str | None = None, under: str = "", limit: int = 20,
             refresh: bool = True) -> list[SymbolMatch]:
        """Definitions matching `query` (a name or name path; see `search.py`), best first."""
        segments = query_segments(query)
        if not segments:
            return []
        if refresh:
            self.refresh()
        with self._lock:
            name, qualifiers = segments[-1], segments[:-1]

            def scored(found: list[tuple[str, Entry]], quals: list[str], factor: float) -> list[Scored]:
                out = []
                for rel, entry in found:
                    if kind is None or entry.kind == kind:
                        hit = score_entry(rel, entry, quals, name_score(name, entry.name) * factor)
                        if hit is not None:
                            out.append(hit)
                return out

            found = self._candidates([normalize(name)], under)
            hits = scored(found, qualifiers, 1.0)
            if not hits and qualifiers:
                hits = scored(found, [], 0.5)
            if not hits:
                if self._names is None:
                    self._names = sorted(set(self.store.all_names()).union(
                        *(rec.names for rec in self._unsaved.values())))
                found = self._candidates(typo_candidates(name, self._names), under)
                hits = scored(found, qualifiers, 1.0) or (scored(found, [], 0.5) if qualifiers else [])
            hits.sort(key=lambda h: (-h.score, h.path, h.entry.name_line))
            return [_match(h, self._records[h.path].language) for h in hits[:limit]]

    def clear(self) -> None:
        """Forget everything (memory and cache): the next refresh parses every file."""
        with self._lock:
            self.store.save([], list(self._records))
            self._records.clear()
            self._loaded.clear()
            self._unsaved.clear()
            self._names = None

    def close(self) -> None:
        self.store.close()


def _inside(rel: str, prefix: str) -> bool:
    return not prefix or prefix == "." or rel == prefix or rel.startswith(prefix.rstrip("/") + "/")


def _match(hit: Scored, language: str) -> SymbolMatch:
    e = hit.entry
    return SymbolMatch(hit.path, e.name, e.name_path, e.kind, e.name_line, e.name_column, e.line, e.column,
                       e.end_line, e.end_column, e.signature, hit.score, language)


def _parse_parallel(todo: list[tuple[str, str]], max_bytes: int, workers: int,
                    progress: Callable[[], _Progress]) -> list[FileRecord]:
    """Parse in `workers` processes. Files are dealt largest first into many small chunks so
    that the processes finish together. Forked when this process has a single thread (fast, and
    nothing to re-import); spawned otherwise, since forking a threaded process is unsafe."""
    sizes = []
    for abs_path, rel in todo:
        try:
            sizes.append((os.path.getsize(abs_path), abs_path, rel))
        except OSError:
            sizes.append((0, abs_path, rel))
    sizes.sort(reverse=True)
    n_chunks = min(len(todo), workers * 8)
    chunks: list[list[tuple[str, str]]] = [[] for _ in range(n_chunks)]
    for i, (_size, abs_path, rel) in enumerate(sizes):
        chunks[i % n_chunks].append((abs_path, rel))
    out: list[FileRecord] = []
    method = "fork" if threading.active_count() == 1 and "fork" in multiprocessing.get_all_start_methods() else "spawn"
    with cf.ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context(method)) as pool:
        futures = {pool.submit(extract_many, chunk, max_bytes): len(chunk) for chunk in chunks}
        with progress() as bar:
            for future in cf.as_completed(futures):
                out.extend(future.result())
                bar.advance(futures[future])
    return out


class _Progress:
    """A rich progress bar on stderr, or nothing."""

    def __init__(self, total: int, show: bool):
        self.total = total
        self._bar: Any = None
        self._task: Any = None
        if show:
            from rich.console import Console
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

            self._bar = Progress(TextColumn("indexing symbols"), BarColumn(), MofNCompleteColumn(),
                                 TimeElapsedColumn(), console=Console(stderr=True), transient=True)

    def __enter__(self) -> _Progress:
        if self._bar is not None:
            self._bar.start()
            self._task = self._bar.add_task("index", total=self.total)
        return self

    def advance(self, count: int) -> None:
        if self._bar is not None:
            self._bar.advance(self._task, count)

    def __exit__(self, *exc: object) -> None:
        if self._bar is not None:
            self._bar.stop()


def get_index(ctx: ToolContext) -> SymbolIndex:
    """The workspace's symbol index, shared by every tool call of the session."""
    return ctx.service(
        "syntax.index", lambda: SymbolIndex.for_workspace(ctx.workspace, ctx.settings.syntax),
        close=lambda index: index.close(),
    )
