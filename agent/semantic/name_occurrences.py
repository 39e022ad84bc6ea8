"""Fast textual search for one name across the workspace's source files: the candidate files and
the identifier tokens with that name in code (the syntax layer), for "occurrences the server did
not confirm" reports and the syntactic fallback.

Which files count is ripgrep's choice in every mode (its ignore rules: .gitignore, hidden files),
so a daemon and an in-process call report the same. A one-shot session asks `rg -l` (started at
once, so it runs while the language server answers); a long-lived session (the daemon) keeps a
`SourceListing` — `rg --files`, redone only when folders change — and searches file texts it holds.

A query that left candidate files unchecked (the per-query bounds) hands them, in a long-lived
session, to `continuations` (name_continuation.py): they are parsed between requests, so the next
query for the name finds them cached instead of parsing them after its answer came.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import functools
import os
import subprocess
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from ..languages import server_language, suffixes_of, syntax_language
from ..ripgrep import find_rg
from ..toolcontext import ToolContext
from ..walk import iter_files
from .code_hits import CodeHit as CodeHit
from .code_hits import code_hits as code_hits
from .code_hits import code_hits_many
from .filecache import file_cache
from .name_continuation import continuations
from .name_scans import Scan, name_scans
from .outlines import keep_outline
from .side_by_side import side_by_side
from .watch import NewFileWatcher
from .words import word_positions as word_positions

MAX_FILES = 5_000
MAX_CHECKED_FILES = 300  # files parsed per query for unconfirmed occurrences
# ... and characters parsed per query: compiled bundles and generated models are megabytes (300 files
# of @aws-sdk/client-ec2: over a second of tree-sitter per query, against a 0.06 s server answer).
# Files left are counted as unchecked; the next query for the name goes on where this one stopped.
MAX_CHECKED_CHARS = 2_000_000
RG_TIMEOUT = 30.0
_LISTING = "semantic.listing"
_executor = concurrent.futures.ThreadPoolExecutor(max_workers=2, thread_name_prefix="codeagent-namesearch")
# Parses candidate files while the server computes its answer (the review list needs them after).
_prepare_pool = concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="codeagent-prepare")

_FAMILY_GLOBS = {family: tuple(f"*{s}" for s in suffixes_of(server=family)) for family in ("python", "typescript")}


def _rg_command(rg: str, ctx: ToolContext, family: str) -> list[str]:
    """The file selection both modes share."""
    cmd = [rg, "--no-messages", "--no-config", "--max-filesize", f"{ctx.workspace.max_read_bytes}"]
    for glob in _FAMILY_GLOBS[family]:
        cmd += ["--glob", glob]
    return [*cmd, "--glob", "!.codeagent"]


def _rel_lines(out: bytes) -> list[str]:
    rels = (os.path.normpath(p) for p in out.decode("utf-8", "surrogateescape").splitlines() if p)
    return sorted(Path(p).as_posix() for p in rels)


class SourceListing:
    """The workspace's source files (ripgrep's selection), kept for a long-lived session and
    refreshed when a folder changes (files created, deleted or renamed)."""

    def __init__(self, ctx: ToolContext):
        self.ctx = ctx
        self.watcher = NewFileWatcher(ctx.workspace.root, began=file_cache(ctx).watch_began)
        self.ready = False  # every source file's text is in the session's cache
        self.between: Callable[[], object] | None = None  # prefetch's `between`: the daemon's "no request now"
        self._files: dict[str, list[str]] = {}
        self._lock = threading.Lock()

    def poll(self) -> list[Path]:
        """Source files created or deleted since the last poll; the listing follows them."""
        changed = self.watcher.poll()
        if changed:
            with self._lock:
                self._files.clear()
        root, events = str(self.ctx.workspace.root), self.watcher.events
        if events is None:
            file_cache(self.ctx).follow(None, None)
        else:
            watcher = self.watcher
            file_cache(self.ctx).follow(lambda rel: watcher.covers(os.path.join(root, rel)),
                                        [os.path.relpath(p, root) for p in events if p.startswith(root + os.sep)],
                                        watcher.generation)
        return changed

    def files(self, family: str) -> list[str] | None:
        """Workspace-relative paths of one family, or None when ripgrep is unavailable."""
        with self._lock:
            if family in self._files:
                return self._files[family]
        rg = find_rg(self.ctx.workspace.root)
        if rg is None or family not in _FAMILY_GLOBS:
            return None
        try:
            proc = subprocess.run([*_rg_command(rg, self.ctx, family), "--files", "."], cwd=self.ctx.workspace.root,
                                  capture_output=True, timeout=RG_TIMEOUT, check=False)
        except (OSError, subprocess.TimeoutExpired):
            return None
        if proc.returncode not in (0, 1):
            return None
        listed = _rel_lines(proc.stdout)
        with self._lock:
            self._files[family] = listed
        return listed

    def prefetch(self, between: Callable[[], object] | None = None) -> None:
        """Read every source file into the session's cache; searches then run in memory.
        `between` is called before each file (the daemon waits there while a request runs)."""
        self.between = between
        cache = file_cache(self.ctx)
        cache.index_words()
        for family in _FAMILY_GLOBS:
            for rel in self.files(family) or []:
                if between is not None:
                    between()
                cache.text(rel)
        self.ready = True


def source_listing(ctx: ToolContext) -> SourceListing:
    """Create (or get) the session's listing; only long-lived sessions should."""
    return ctx.service(_LISTING, lambda: SourceListing(ctx))


class NameSearch:
    """Files of one language family whose text contains `name` as a word. Construct it before a
    slow server request (ripgrep starts at once) and call `files()` afterwards."""

    def __init__(self, ctx: ToolContext, name: str, family: str):
        self.ctx = ctx
        self.name = name
        self.family = family
        self._proc: subprocess.Popen[bytes] | None = None
        self._result: concurrent.futures.Future[list[str]] | None = None
        listing = source_listing(ctx) if ctx.has_service(_LISTING) else None
        self._listing = listing if listing is not None and listing.ready else None
        self.listing = self._listing  # a long-lived session's listing (None: a one-shot search)
        self.known = {}
        self.words = {}
        # A long-lived session's kept scan of the name (name_scans.py), and the file cache's epoch
        # before this search began (a scan is kept only if it is the same once the scan is done).
        self._cache = file_cache(ctx) if self._listing is not None else None
        self.epoch = self._cache.watched_epoch() if self._cache is not None else None
        self.kept: Scan[Unconfirmed] | None = None
        self._trusted = False  # the candidates came wholly from watched, cached texts
        rg = find_rg(self.ctx.workspace.root)
        if self._listing is None and rg is not None and family in _FAMILY_GLOBS:
            cmd = [*_rg_command(rg, ctx, family), "--files-with-matches", "--word-regexp", "--fixed-strings",
                   "-e", name, "--", "."]
            try:
                self._proc = subprocess.Popen(cmd, cwd=ctx.workspace.root, stdout=subprocess.PIPE,
                                              stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL)
            except OSError:
                self._proc = None
            else:  # it runs beside the server's own work (a cold start's indexing): never ahead of it
                with contextlib.suppress(OSError, AttributeError):
                    os.setpriority(os.PRIO_PROCESS, self._proc.pid, 19)

    def start(self) -> NameSearch:
        """Compute the candidates in a background thread now (for a search beside a server request),
        then parse them (code occurrences, cached for the session) until `stop_preparing`."""
        if self._result is None:
            kept = self.kept_scan()
            if kept is not None:  # nothing to compute while the server answers
                self.kept, self._trusted = kept, True
                self._result = concurrent.futures.Future()
                self._result.set_result(kept.files)
                return self
            self._result = _executor.submit(self._files)
            self._stopped = threading.Event()
            _prepare_pool.submit(self._prepare)
        return self

    _stopped: threading.Event | None = None
    known: dict[str, list[tuple[int, int]]]  # rel -> code occurrences found while the server answered
    words: dict[str, tuple[str, list[tuple[int, int]]]]  # rel -> (its text, word_positions) found then

    def kept_scan(self) -> Scan[Unconfirmed] | None:
        """The session's last scan of this name, if no file changed since (else None)."""
        if self._cache is None or self.epoch is None:
            return None
        kept = name_scans(self.ctx).get(self.name, self.family, self._cache.watched_epoch())
        return kept if kept is not None and kept.epoch == self.epoch else None  # type: ignore[return-value]

    def keep(self, files: list[str], result: Unconfirmed, confirmed: dict[str, set[tuple[int, int]]],
             exclude: str | None, max_chars: int) -> None:
        """Keep this scan for the next query of the name, if it can be trusted until a change."""
        if (self._cache is None or self.epoch is None or not self._trusted or result.unchecked
                or self._cache.watched_epoch() != self.epoch):
            return
        name_scans(self.ctx).put(self.name, self.family, Scan(self.epoch, files, confirmed, exclude, max_chars,
                                                                result))

    def stop_preparing(self) -> None:
        """The answer is in: whoever needs a file's occurrences from now on parses it itself."""
        if self._stopped is not None:
            self._stopped.set()

    def _prepare(self) -> None:
        """While the server computes: each candidate's code occurrences, from the cache or parsed
        (at most MAX_CHECKED_FILES files / MAX_CHECKED_CHARS characters), into `known`, so that
        after the answer only the filtering by confirmed positions is left."""
        assert self._result is not None and self._stopped is not None
        try:
            files = self._result.result()
        except Exception:
            return
        cache = file_cache(self.ctx)
        # Every candidate's text first: the scan after the answer reads them all in any case (are
        # all their words confirmed?), and a common name's thousand files cost ~1 s of reads there.
        for rel in files:
            if self._stopped.is_set():
                return
            text = cache.text(rel)
            if text:  # with the name's word positions in that very text
                self.words[rel] = (text, word_positions(text, self.name))
        known = self.known
        chars = parsed = 0
        batch: list[tuple[str, str]] = []
        batch_chars = 0
        # A file with the name in code may hold references: its outline comes from the same
        # parse, for the answer's grouping (which then parses none of them after it).
        keep = functools.partial(keep_outline, self.ctx)
        for rel in files:
            if self._stopped.is_set():
                return
            found = cache.cached_occurrences(rel, self.name)
            if found is not None:
                known[rel] = found
                continue
            language = syntax_language(rel)
            if language is None or parsed >= MAX_CHECKED_FILES or chars >= MAX_CHECKED_CHARS:
                continue
            size = len(cache.text(rel) or "")
            parsed += 1
            chars += size
            batch.append((rel, language))  # parsed a batch at a time (one hand-over to the parse worker)
            batch_chars += size
            if batch_chars >= cache.batch_chars():
                known.update(cache.occurrences_many(batch, self.name, parsed=keep, outline=None))
                batch, batch_chars = [], 0
        if batch and not self._stopped.is_set():
            known.update(cache.occurrences_many(batch, self.name, parsed=keep, outline=None))

    def fresh_files(self) -> list[str]:
        """The candidates computed now (a kept list went stale during the request)."""
        self.kept, self._trusted = None, False
        self.epoch = self._cache.watched_epoch() if self._cache is not None else None
        files = self._files()
        self._result = concurrent.futures.Future()  # what files() gives from now on
        self._result.set_result(files)
        return files

    def files(self) -> list[str]:
        """Workspace-relative paths, sorted (at most MAX_FILES)."""
        if self._result is not None:
            return self._result.result()
        return self._files()

    def _files(self) -> list[str]:
        if self._listing is not None:
            listed = self._listing.files(self.family)
            if listed is not None:
                cache = file_cache(self.ctx)
                indexed = cache.with_word_trusted(listed, self.name)  # the cache's word index: no scan
                if indexed is not None:
                    self._trusted = indexed[1]
                    return indexed[0][:MAX_FILES]
                # A substring is enough here: callers look for whole identifier tokens anyway.
                return [rel for rel in listed if self.name in (cache.text(rel) or "")][:MAX_FILES]
        if self._proc is not None:
            try:
                out, _ = self._proc.communicate(timeout=RG_TIMEOUT)
            except subprocess.TimeoutExpired:
                self._proc.kill()
                self._proc.communicate()
                out = None
            if out is not None and self._proc.returncode in (0, 1):
                return _rel_lines(out)[:MAX_FILES]
        return self._walk()

    def _walk(self) -> list[str]:
        """Without ripgrep: the gitignore-aware walk (slower; the selection may differ slightly)."""
        root = self.ctx.workspace.root
        found = []
        for path in iter_files(root, root):
            if server_language(path) != self.family:
                continue
            rel = Path(path).resolve().relative_to(root).as_posix()
            if self.name in (file_cache(self.ctx).text(rel) or ""):
                found.append(rel)
            if len(found) >= MAX_FILES:
                break
        return sorted(found)


@dataclass
class Unconfirmed:
    """Same-name identifiers in code that no answer accounted for; `unchecked` files were left
    out once MAX_CHECKED_FILES files needed a parse (a very common name)."""

    hits: list[CodeHit]
    unchecked: int = 0
    left: list[str] = field(default_factory=list)  # the unchecked files


def unconfirmed_hits(ctx: ToolContext, search: NameSearch, confirmed: dict[str, set[tuple[int, int]]],
                     *, exclude: str | None = None, max_chars: int = MAX_CHECKED_CHARS) -> Unconfirmed:
    """Identifier tokens `search.name` in code, in the candidate files, at no confirmed position.
    Files whose occurrences are cached cost nothing and count against neither MAX_CHECKED_FILES nor
    `max_chars` (the characters parsed per query)."""
    files = search.files()
    search.stop_preparing()
    kept = search.kept if search.kept is not None else search.kept_scan()
    if kept is not None and kept.answers(confirmed, exclude, max_chars) and search.kept_scan() is kept:
        name_scans(ctx).reused += 1
        return kept.result  # shared with the next reuse: callers only read it
    if kept is not None and search.kept_scan() is not kept:  # a file changed during this request
        files = search.fresh_files()
    out = Unconfirmed([])
    checked = chars = 0
    prepared = search.known
    cache = file_cache(ctx)
    found: list[str | list[CodeHit]] = []  # in file order: a file to parse below, or its hits
    jobs: list[tuple[str, int]] = []
    for rel in files:
        if rel == exclude:
            continue
        only = confirmed.get(rel, set())
        known = prepared.get(rel)  # looked up or parsed while the server answered
        if known is None:
            known = cache.cached_occurrences(rel, search.name)
        if known is not None:
            found.append([CodeHit(rel, ln, col) for ln, col in known if (ln, col) not in only])
            continue
        text = cache.text(rel)
        held = search.words.get(rel)
        words = held[1] if held is not None and held[0] is text else word_positions(text or "", search.name)
        if text is None or all(p in only for p in words):
            continue
        if checked >= MAX_CHECKED_FILES or chars >= max_chars:
            out.unchecked += 1
            out.left.append(rel)
            continue
        checked += 1
        chars += len(text)
        found.append(rel)
        jobs.append((rel, len(text)))
    # Which files are parsed is settled: their parses run side by side (the answer is the same).
    outlined = {rel for rel, _size in jobs if rel in confirmed}
    parsed = side_by_side(jobs, lambda rels: code_hits_many(ctx, rels, search.name, only=confirmed,
                                                            outline=outlined))
    for item in found:
        out.hits.extend(parsed[item] if isinstance(item, str) else item)
    if out.left and search.listing is not None:  # a daemon: parse the rest before the next query
        continuations(ctx).submit(search.name, out.left, search.listing.between)
    search.keep(files, out, confirmed, exclude, max_chars)
    return out
