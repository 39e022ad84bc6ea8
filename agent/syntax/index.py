"""The repo-wide symbol index: every definition in every supported file of the workspace,
kept current exactly (a changed file is re-parsed, a deleted one disappears, a new one is added)
and cached on disk between sessions (see `store.py`). Large trees are parsed by several
processes; progress goes to the `ShowProgress` callback the caller passed.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .. import treestamps
from ..config import SyntaxSettings
from ..errors import OutsideWorkspaceError
from ..result import Location
from .extract import FileRecord, Job, digest_of, extract
from .languages import fingerprint, language_for
from .name_match import Scored, name_score, normalize, query_segments, score_entry, typo_candidates
from .provenance import KIND_NAMES, provenance
from .sources import WalkLog, source_files
from .store import IndexStore
from .symbols import Entry
from .workers import POOL_ERRORS, ParsePool, ShowProgress, deal, no_progress

if TYPE_CHECKING:
    from ..workspace import Workspace

RACY_NS = treestamps.RACY_NS  # a file modified this close to its check may change again unseen by mtime
INDEX_FILE = Path("index") / "symbols.sqlite"
MAX_LOADED_FILES = 20_000  # outlines kept in memory after a lookup read them
IN_PROCESS_BATCH = 500  # files parsed in this process between two writes to the store
EARLY_CHUNK = 64  # files given to the worker processes at a time while the walk goes on
EARLY_CHUNKS_PER_WORKER = 2  # (the walk's own time; the rest is dealt by size when it ends)


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
    origin: str = "source"  # provenance.py: source, stub or generated
    overloads: int = 1  # declarations of this name path in this file collapsed into this match

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
                 lock_timeout: float = 10.0, show_progress: ShowProgress = no_progress):
        self.root = Path(os.path.realpath(root))
        self.settings = settings or SyntaxSettings()
        self.show_progress = show_progress
        self.store = IndexStore(cache_path, fingerprint(), timeout=lock_timeout)
        self.last_refresh = RefreshStats(problem=self.store.problem)
        self._lock = threading.RLock()
        self._records: dict[str, FileRecord] = {r.path: r for r in self.store.load_keys()}
        self._loaded: dict[str, list[Entry]] = {}  # outlines read from the store, by file
        self._names: list[str] | None = None  # every distinct normalized name (for typo matching)
        self._unsaved: dict[str, FileRecord] = {}  # parsed, but the store failed to keep them
        # Set by `codeagent index`: a whole-tree refresh then leaves a snapshot of its walk under
        # this key, which lets the next command check the cache without walking (index_fast.py).
        self.walk_key: str | None = None

    @classmethod
    def for_workspace(cls, workspace: Workspace, settings: SyntaxSettings | None = None, *,
                      show_progress: ShowProgress = no_progress) -> SymbolIndex:
        settings = settings or SyntaxSettings()
        cache = None
        if settings.index_cache:
            try:
                _ensure_tool_dir(workspace.tool_dir)
                cache = workspace.tool_dir / INDEX_FILE
            except OSError:
                cache = None
        return cls(workspace.root, settings, cache_path=cache, show_progress=show_progress)

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
            now = time.time_ns()  # before every stat of the walk: what `checked_ns` may claim
            log = WalkLog() if self.walk_key and start == self.root else None
            todo, racy, pool, early = self._walk(start, seen, log, now)
            try:  # (the pool's processes stop however this ends)
                verified = self._verify(racy, now)
                stats.verified = len(verified)
                todo.extend(job for job in racy if job[1] not in verified)
                gone = [p for p in self._records if p not in seen and _inside(p, prefix)]
                parsed: set[str] = set()
                # A whole tree into an empty store: its lookup by name is built once, at the end.
                bulk = not self._records and len(todo) >= IN_PROCESS_BATCH and self.store.defer_name_lookup()
                try:
                    for records in self._parse(todo, now, stats, progress, pool, early):
                        self._keep(records)
                        parsed.update(rec.path for rec in records)
                finally:
                    if bulk:
                        self.store.restore_name_lookup()
            finally:
                if pool is not None:
                    pool.close()
            gone.extend(rel for _a, rel, _s in todo if rel not in parsed and rel in self._records)  # vanished
            for rel in gone:
                del self._records[rel]
                self._loaded.pop(rel, None)
                self._unsaved.pop(rel, None)
            self.store.save([], gone)
            if stats.verified:
                self.store.touch([(now, rel) for _a, rel, _s in racy if self._records.get(rel) and
                                  self._records[rel].checked_ns == now])
            if parsed or gone:
                self._names = None
            stats.files = len(seen)
            stats.parsed = len(parsed)
            stats.removed = len(gone)
            stats.problem = stats.problem or self.store.problem
            if log is not None:
                self._save_walk(log, now, stats)
            stats.seconds = time.perf_counter() - started
            self.last_refresh = stats
            return stats

    def _walk(self, start: Path, seen: set[str], log: WalkLog | None,
              now: int) -> tuple[list[Job], list[Job], ParsePool | None, int]:
        """Walk `start`, adding each file to `seen`: the files to parse, those whose same stat is
        too recent to trust, and the worker pool if the walk started one (with the first
        `early` files to parse)."""
        todo: list[Job] = []
        racy: list[Job] = []
        pool: ParsePool | None = None
        early = 0
        try:
            for job in source_files(str(self.root), str(start), log):
                _abs_path, rel, st = job
                seen.add(rel)
                known = self._records.get(rel)
                if known is not None and known.same_stat(st) and not known.skipped:
                    if st.st_mtime_ns >= known.checked_ns - RACY_NS:
                        racy.append(job)
                    continue
                todo.append(job)
                if len(todo) - early >= EARLY_CHUNK and len(todo) >= self.settings.parallel_min_files:
                    pool, early = self._start_early(pool, todo, early, now)
        except BaseException:
            if pool is not None:
                pool.close()
            raise
        return todo, racy, pool, early

    def _verify(self, racy: list[Job], now: int) -> set[str]:
        """The racy files whose bytes are what the index parsed (their check time is now)."""
        verified = set()
        for abs_path, rel, _st in racy:
            known = self._records[rel]
            try:
                with open(abs_path, "rb") as fh:
                    same = digest_of(fh.read()) == known.digest
            except OSError:
                same = False
            if same:
                verified.add(rel)
                known.checked_ns = now
        return verified

    def _save_walk(self, log: WalkLog, walk_ns: int, stats: RefreshStats) -> None:
        """Keep the walk's snapshot when the store now holds exactly what the walk found."""
        if (self.walk_key is None or not log.complete or log.links or stats.problem or self._unsaved
                or self.store.path is None or any(rec.skipped for rec in self._records.values())):
            return  # the next command walks the tree: it knows things a snapshot cannot show
        rels = log.paths()
        base = str(self.root).rstrip("/") + "/"
        stamps = treestamps.take([base + rel if rel else str(self.root) for rel in rels], walk_ns)
        if stamps is None or None in stamps:
            return  # changed in the walk's clock tick, or gone since the walk saw it
        self.store.save_walk(self.walk_key, walk_ns, list(zip(rels, stamps, strict=True)))

    def _keep(self, records: list[FileRecord]) -> None:
        """Take newly parsed records: into memory, and into the store (in one transaction)."""
        for rec in records:
            self._records[rec.path] = rec
            self._loaded.pop(rec.path, None)
        if self.store.save(records, []):  # saved: the outlines can be read back from the store
            for rec in records:
                self._unsaved.pop(rec.path, None)
                rec.payload = ""
        else:
            self._unsaved.update((rec.path, rec) for rec in records)

    def _workers_for(self, count: int) -> int:
        if count < self.settings.parallel_min_files:
            return 1
        wanted = self.settings.index_workers or (os.cpu_count() or 1)
        return max(1, min(wanted, count))

    def _start_early(self, pool: ParsePool | None, todo: list[Job], early: int,
                     checked_ns: int) -> tuple[ParsePool | None, int]:
        """Give the worker processes (started now if need be) the files the walk found since
        the last call, while it goes on: (the pool, how many of `todo` it has). Up to a few
        chunks per process. If the pool fails, it is as if none had started (`_parse` tries
        again, and says it if it fails)."""
        workers = pool.workers if pool is not None else self._workers_for(len(todo))
        if workers < 2 or early >= workers * EARLY_CHUNKS_PER_WORKER * EARLY_CHUNK:
            return pool, early
        try:
            pool = pool or ParsePool(workers, self.settings.max_file_bytes, checked_ns, _languages(todo))
            pool.submit([todo[i:i + EARLY_CHUNK] for i in range(early, len(todo), EARLY_CHUNK)])
        except POOL_ERRORS:
            if pool is not None:
                pool.close()
            return None, 0
        return pool, len(todo)

    def _parse(self, todo: list[Job], checked_ns: int, stats: RefreshStats, progress: bool | None,
               pool: ParsePool | None = None, early: int = 0) -> Iterator[list[FileRecord]]:
        """The records of the files to (re)parse, a batch at a time (the caller stores each
        batch while the worker processes go on with the next). `pool`, when the walk started
        it, has `todo[:early]` already."""
        if not todo:
            return
        max_bytes = self.settings.max_file_bytes
        workers = pool.workers if pool is not None else self._workers_for(len(todo))
        stats.workers = workers
        with self.show_progress(len(todo), progress) as advance:
            left = todo
            if workers > 1:
                try:
                    pool = pool or ParsePool(workers, max_bytes, checked_ns, _languages(todo))
                    pool.submit(deal(todo[early:], workers))
                    for chunk, records in pool.results():
                        yield records
                        advance(len(chunk))
                    return
                except POOL_ERRORS as exc:
                    stats.problem = f"parallel parsing failed ({exc}); parsed in this process"
                    stats.workers = 1
                    left = todo if pool is None else [job for chunk in pool.pending for job in chunk]
                finally:
                    if pool is not None:
                        pool.close()
            batch: list[FileRecord] = []
            for abs_path, rel, st in left:
                record = extract(abs_path, rel, max_bytes, st, checked_ns)
                if record is not None:
                    batch.append(record)
                advance(1)
                if len(batch) >= IN_PROCESS_BATCH:
                    yield batch
                    batch = []
            if batch:
                yield batch

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
        """Definitions matching `query` (a name or name path; see `name_match.py`), best first."""
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
            # Equal scores: source before stubs before build output and vendored copies.
            hits.sort(key=lambda h: (-h.score, provenance(h.path), h.path, h.entry.name_line))
            groups: dict[tuple[str, str, str], list[Scored]] = {}
            for h in hits:  # overloads (TS signatures, @overload) are one definition
                groups.setdefault((h.path, h.entry.name_path, h.entry.kind), []).append(h)
            return [_match(group[0], self._records[group[0].path].language, len(group))
                    for group in list(groups.values())[:limit]]

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


def _languages(jobs: list[Job]) -> set[str]:
    return {language for _a, rel, _s in jobs if (language := language_for(rel)) is not None}


def _inside(rel: str, prefix: str) -> bool:
    return not prefix or prefix == "." or rel == prefix or rel.startswith(prefix.rstrip("/") + "/")


def _match(hit: Scored, language: str, overloads: int = 1) -> SymbolMatch:
    e = hit.entry
    return SymbolMatch(hit.path, e.name, e.name_path, e.kind, e.name_line, e.name_column, e.line, e.column,
                       e.end_line, e.end_column, e.signature, hit.score, language,
                       KIND_NAMES[provenance(hit.path)], overloads)
