"""Texts of workspace files and the code occurrences of names in them, kept for the session (a
ctx service) while each file's stat signature is unchanged: repeated queries in a long-lived
session (the daemon, an agent run) re-read and re-parse only the files that changed.

A session with folder watches (the daemon's listing, agent/semantic/watch.py) calls `follow`
before each request with what the watch saw; a cached text of a watched folder is then trusted
without a stat until an event names it (a search over a big tree stat'ed every file each time)."""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from collections.abc import Callable, Container, Iterable
from typing import TYPE_CHECKING

from ..toolcontext import ToolContext
from .name_parses import Keep, parse_for_name
from .side_by_side import BATCH_CHARS
from .word_index import WORD, index_words

if TYPE_CHECKING:
    from ..syntax.identifier_spans import IdentifierSpans
    from ..syntax.parse_worker import ParseWorker

MAX_CACHED_CHARS = 64 * 1024 * 1024
MAX_OCCURRENCE_ENTRIES = 50_000
MAX_SPANS = 1_000_000  # identifier tokens kept, 8 bytes each (8 MB); client-ec2 checked whole: 275,000
MAX_SPLIT_FILES = 2_000
MAX_INDEX_POSTINGS = 2_000_000  # (word, file) pairs, ~30 bytes each; past this the index is dropped for good
_SERVICE = "semantic.files"
_WORKER = "syntax.parse_worker"

Signature = tuple[int, int, int]


class FileCache:
    def __init__(self, ctx: ToolContext):
        self.ctx = ctx
        self._texts: OrderedDict[str, tuple[Signature, str | None]] = OrderedDict()
        self._chars = 0
        self._occurrences: OrderedDict[tuple[str, str], tuple[Signature, list[tuple[int, int]]]] = OrderedDict()
        # Each parsed file's identifier tokens, for every name's occurrences (LRU, MAX_SPANS in all).
        self._spans: OrderedDict[str, tuple[Signature, IdentifierSpans]] = OrderedDict()
        self._span_count = 0
        # rel -> set when the thread parsing it now is done: a second thread that needs the file's
        # occurrences (the request's after the prepare pool's, or the continuation's) waits for
        # them instead of parsing the file again beside it (a 2 MB bundle: ~0.8 s of a core).
        self._parsing: dict[str, threading.Event] = {}
        self._lines: OrderedDict[str, tuple[str, list[str]]] = OrderedDict()  # keyed by the text object
        self._lock = threading.Lock()  # a search may run beside the request that waits for the server
        self._covers: Callable[[str], bool] | None = None  # rel -> its folder is watched
        self._covered: dict[str, bool] = {}  # answers of `_covers`, for one generation of the watch
        self._generation = 0
        # Texts held from before the current watch was in place (read while none was, or under a
        # watch that lost events since): see watch_began. `_era` counts the watches, so a stat
        # taken before one began never vouches under it.
        self._unvouched: set[str] = set()
        self._era = 0
        # word -> the file(s) whose cached text has it (index_words; None until asked for, or past the cap)
        self._words: dict[str, str | list[str]] | None = None
        self._postings = 0
        self._index_dropped = False
        # Bumped (under the lock) by every change to what the cache holds or trusts: a text stored
        # or dropped, a watch event, a lost watch. Results derived from trusted texts only stay
        # valid while it is unchanged (watched_epoch).
        self._epoch = 0
        # A session of several calls parses its big files in a second process when it is free.
        self._worker: ParseWorker | None = None
        if not ctx.one_call:
            from ..syntax.parse_worker import ParseWorker

            self._worker = ctx.service(_WORKER, ParseWorker, close=ParseWorker.close)

    def index_words(self) -> None:
        """From now on keep a word -> files index of the cached texts, so `with_word_trusted` answers
        without scanning every text (a long-lived session's searches for one name)."""
        with self._lock:
            if self._words is not None or self._index_dropped:
                return
            self._words = {}
            for rel, (_, text) in self._texts.items():
                self._index(rel, text, add=True)

    def _index(self, rel: str, text: str | None, *, add: bool) -> None:
        """Add or remove one file's words (caller holds the lock); past MAX_INDEX_POSTINGS the
        index is dropped for good."""
        if self._words is None or not text:
            return
        self._postings += index_words(self._words, rel, text, add=add)
        if self._postings > MAX_INDEX_POSTINGS:
            self._words, self._postings, self._index_dropped = None, 0, True

    def watched_epoch(self) -> int | None:
        """The change counter while a watch vouches for the cached texts; None without a watch
        (then nothing derived from them may be kept)."""
        with self._lock:
            return self._epoch if self._covers is not None else None

    def with_word_trusted(self, rels: list[str], word: str) -> tuple[list[str], bool] | None:
        """Those of `rels` whose text contains `word` (a whole word for the indexed files, a
        substring for the others), in their order, and whether every one of them was answered
        from a watched, cached text (then the answer changes only with `watched_epoch`); None
        when there is no word index."""
        covers = self._covers
        if covers is None or self._words is None or not WORD.fullmatch(word):
            return None
        found: list[str] = []
        unsure: list[str] = []
        with self._lock:
            if self._words is None:
                return None
            held = self._words.get(word)
            holders = {held} if isinstance(held, str) else set(held or ())
            texts, covered_cache = self._texts, self._covered
            for rel in rels:
                covered = covered_cache.get(rel)
                if covered is None:
                    covered = covered_cache[rel] = covers(rel)
                if covered and rel in texts and rel not in self._unvouched:  # trusted and current: the index knows it
                    if rel in holders:
                        found.append(rel)
                else:
                    unsure.append(rel)
        if not unsure:
            return found, True
        found.extend(rel for rel in unsure if word in (self.text(rel) or ""))
        order = {rel: i for i, rel in enumerate(rels)}
        return sorted(found, key=order.__getitem__), False

    def follow(self, covers: Callable[[str], bool] | None, changed: Iterable[str] | None, generation: int = 0) -> None:
        """Trust cached texts whose folder `covers` says is watched, except the `changed` ones
        (workspace-relative), which are dropped. `changed=None` (events were lost) or `covers=None`
        (no watch) returns to checking every file's stat. `covers`'s answers are remembered while
        `generation` stays the same."""
        with self._lock:
            if covers is None or changed is None:
                self._covers = None
                self._covered.clear()
                self._epoch += 1
                return
            self._drop(changed)
            if generation != self._generation:
                self._covered.clear()
                self._generation = generation
                self._epoch += 1
            self._covers = covers

    def watch_began(self) -> None:
        """A new watch is in place (the session's first, or one after lost events): texts held
        now were stat'ed before it and no event of it vouches for them, so each is stat'ed once
        more before it is trusted."""
        with self._lock:
            self._unvouched = set(self._texts)
            self._era += 1
            self._epoch += 1

    def forget(self, rels: Iterable[str]) -> None:
        """Files a tool just wrote: read them afresh (a watch reports them only at the next poll)."""
        with self._lock:
            self._drop(rels)

    def _drop(self, rels: Iterable[str]) -> None:
        for rel in rels:
            self._epoch += 1  # even for a file not held: a created file changes what a search finds
            old = self._texts.pop(rel, None)
            self._unvouched.discard(rel)
            if old is not None and old[1] is not None:
                self._chars -= len(old[1])
                self._index(rel, old[1], add=False)

    def _trusted(self, rel: str) -> tuple[Signature, str | None] | None:
        covers = self._covers
        if covers is None:
            return None
        covered = self._covered.get(rel)
        if covered is None:
            covered = self._covered[rel] = covers(rel)
        if not covered:
            return None
        with self._lock:
            return None if rel in self._unvouched else self._texts.get(rel)

    def _signature(self, rel: str) -> Signature | None:
        try:
            st = os.stat(self.ctx.workspace.root / rel)
        except OSError:
            return None
        return (st.st_mtime_ns, st.st_size, st.st_ino)

    def text(self, rel: str) -> str | None:
        """The file's "\\n" text, or None when it cannot be read as text."""
        trusted = self._trusted(rel)
        if trusted is not None:
            return trusted[1]
        era = self._era
        sig = self._signature(rel)
        if sig is None:
            return None
        with self._lock:
            cached = self._texts.get(rel)
            if cached is not None and cached[0] == sig:
                self._texts.move_to_end(rel)
                if era == self._era:  # stat'ed under the current watch: its events vouch from now on
                    self._unvouched.discard(rel)
                return cached[1]
        try:
            text: str | None = self.ctx.workspace.read(rel).text
        except Exception:  # binary, too large, vanished, outside: nothing to show or scan
            text = None
        with self._lock:
            self._store(rel, sig, text)
            if era == self._era:
                self._unvouched.discard(rel)
            else:  # read before the current watch began
                self._unvouched.add(rel)
        return text

    def _store(self, rel: str, sig: Signature, text: str | None) -> None:
        self._epoch += 1
        old = self._texts.pop(rel, None)
        if old is not None and old[1] is not None:
            self._chars -= len(old[1])
            if old[1] != text:
                self._index(rel, old[1], add=False)
        self._texts[rel] = (sig, text)
        self._chars += len(text or "")
        if old is None or old[1] != text:
            self._index(rel, text, add=True)
        while self._chars > MAX_CACHED_CHARS and len(self._texts) > 1:
            gone, (_, dropped) = self._texts.popitem(last=False)
            self._chars -= len(dropped or "")
            self._index(gone, dropped, add=False)

    def held_lines(self, rel: str, text: str) -> list[str] | None:
        """The split of `text` when it is the text held split for `rel` (no stat, no read: the
        split of a text is the same whatever the file says now), else None."""
        with self._lock:
            cached = self._lines.get(rel)
        return cached[1] if cached is not None and (cached[0] is text or cached[0] == text) else None

    def lines(self, rel: str) -> list[str] | None:
        """The file's lines (split once while the file is unchanged)."""
        text = self.text(rel)
        if text is None:
            return None
        with self._lock:
            cached = self._lines.get(rel)
            if cached is not None and cached[0] is text:
                self._lines.move_to_end(rel)
                return cached[1]
        split = text.split("\n")
        with self._lock:
            self._lines[rel] = (text, split)
            if len(self._lines) > MAX_SPLIT_FILES:
                self._lines.popitem(last=False)
        return split

    def _occurrence_key(self, rel: str, name: str) -> tuple[Signature | None, list[tuple[int, int]] | None]:
        """(the file's signature now, its cached occurrences of `name` if still valid)."""
        trusted = self._trusted(rel)
        sig = trusted[0] if trusted is not None else self._signature(rel)
        key = (rel, name)
        with self._lock:
            cached = self._occurrences.get(key)
            if sig is not None and cached is not None and cached[0] == sig:
                self._occurrences.move_to_end(key)
                return sig, cached[1]
        return sig, None

    def cached_occurrences(self, rel: str, name: str) -> list[tuple[int, int]] | None:
        """`code_occurrences` if they are cached, or the file's tokens are, and the file is
        unchanged; else None (no parse)."""
        sig, cached = self._occurrence_key(rel, name)
        return cached if cached is not None else self._from_spans(rel, name, sig)

    def _from_spans(self, rel: str, name: str, sig: Signature | None) -> list[tuple[int, int]] | None:
        """`name`'s occurrences from the tokens kept of this very version of the file (kept in
        turn), or None when they are not kept."""
        from ..syntax.languages import encode

        with self._lock:
            held = self._spans.get(rel)
            if held is not None:
                self._spans.move_to_end(rel)
        if sig is None or held is None or held[0] != sig:
            return None
        text = self.text(rel)
        found = held[1].occurrences(encode(text), name) if text and name in text else []
        self._keep_occurrences(rel, name, sig, found)
        return found

    def _keep_occurrences(self, rel: str, name: str, sig: Signature, found: list[tuple[int, int]]) -> None:
        with self._lock:
            self._occurrences[(rel, name)] = (sig, found)
            if len(self._occurrences) > MAX_OCCURRENCE_ENTRIES:
                self._occurrences.popitem(last=False)

    def code_occurrences(self, rel: str, language: str, name: str, *,
                         parsed: Keep | None = None) -> list[tuple[int, int]]:
        """0-based (line, column) of identifier tokens `name` in code (syntax layer), cached.
        A file parsed for another name is not parsed again: its identifier tokens are kept
        (syntax.identifier_spans). `parsed(rel, text, outline)` is called with the file's
        flattened outline when the file was parsed now and has some."""
        return self.occurrences_many([(rel, language)], name, parsed=parsed, outline=None)[rel]

    def occurrences_many(self, jobs: list[tuple[str, str]], name: str, *, parsed: Keep | None = None,
                         outline: Container[str] | None = ()) -> dict[str, list[tuple[int, int]]]:
        """`code_occurrences` of (rel, language) jobs, by rel. The files to parse go to the
        session's worker process in one hand-over when it is free (syntax/parse_worker.py: the
        parse then holds none of this process's GIL), else are parsed here one by one. The
        outline is kept (`parsed`) for the files in `outline` (None: all)."""
        results: dict[str, list[tuple[int, int]]] = {}
        claimed: list[tuple[str, str, Signature | None, str, threading.Event]] = []
        held: list[tuple[str, threading.Event]] = []  # the files this call parses: others wait for them
        waiting: list[tuple[str, str]] = []
        try:
            for rel, language in jobs:
                sig, cached = self._occurrence_key(rel, name)
                if cached is None:
                    cached = self._from_spans(rel, name, sig)
                if cached is not None:
                    results[rel] = cached
                    continue
                with self._lock:
                    running = self._parsing.get(rel)
                    if running is None:
                        mine = self._parsing[rel] = threading.Event()
                if running is not None:  # another thread parses this very file now: its tokens are ours
                    waiting.append((rel, language))
                    continue
                held.append((rel, mine))
                text = self.text(rel)
                if text and name in text:
                    claimed.append((rel, language, sig, text, mine))
                    continue
                if sig is not None:
                    self._keep_occurrences(rel, name, sig, [])
                results[rel] = []
                self._release(rel, mine)
            if claimed:
                parses = parse_for_name([(rel, language, text) for rel, language, _sig, text, _event in claimed],
                                        name, self._worker, parsed, outline)
                for (rel, _language, sig, _text, _event), (spans, found) in zip(claimed, parses, strict=True):
                    if sig is not None:
                        self._keep_spans(rel, sig, spans)
                        self._keep_occurrences(rel, name, sig, found)
                    results[rel] = found
        finally:
            for rel, event in held:
                self._release(rel, event)
        for rel, language in waiting:
            running = self._parsing.get(rel)
            if running is not None:
                running.wait()
            results[rel] = self.code_occurrences(rel, language, name, parsed=parsed)
        return results

    def batch_chars(self) -> int:
        """How many characters of files a background loop hands `occurrences_many` at once:
        side_by_side.BATCH_CHARS while the worker is free, else 0 (one file at a time: a parse in
        this process holds the GIL, and the loop looks at its stop signal between files)."""
        return BATCH_CHARS if self._worker is not None and self._worker.free else 0

    def start_worker(self) -> None:
        """Parses are coming: start the session's parse worker now if it has one."""
        if self._worker is not None:
            self._worker.start()

    def _release(self, rel: str, event: threading.Event) -> None:
        with self._lock:
            if self._parsing.get(rel) is event:
                del self._parsing[rel]
        event.set()

    def _keep_spans(self, rel: str, sig: Signature, spans: IdentifierSpans) -> None:
        with self._lock:
            old = self._spans.pop(rel, None)
            self._span_count += len(spans) - (len(old[1]) if old is not None else 0)
            self._spans[rel] = (sig, spans)
            while self._span_count > MAX_SPANS and len(self._spans) > 1:
                self._span_count -= len(self._spans.popitem(last=False)[1][1])


def forget_written(ctx: ToolContext, rels: Iterable[str]) -> None:
    """After a tool wrote `rels`: drop them from the session's cache, if it has one."""
    if ctx.has_service(_SERVICE):
        file_cache(ctx).forget(rels)


def file_cache(ctx: ToolContext) -> FileCache:
    return ctx.service(_SERVICE, lambda: FileCache(ctx))
