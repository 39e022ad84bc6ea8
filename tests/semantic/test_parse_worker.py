"""A long-lived session parses candidate files in its parse worker process (agent/syntax/parse_worker.py):
the same answers as a parse in the session's own process, this process's GIL free meanwhile (a
parse here stops every other thread), a dead or idle worker replaced with nothing lost, nothing of
the workspace on the worker's import path, no worker for a one-call session, none left behind."""

from __future__ import annotations

import os
import signal
import threading
import time
from pathlib import Path

import pytest

from agent.bootstrap import open_context
from agent.semantic.filecache import file_cache
from agent.semantic.name_occurrences import NameSearch, unconfirmed_hits
from agent.semantic.outlines import Outlines
from agent.syntax import code_occurrences, flatten, outline
from agent.syntax.parse_worker import ParseWorker

REPO = Path(__file__).resolve().parents[2]
NAME = "count"


def _big_python(i: int, defs: int = 3_000) -> str:
    return "".join(f"class C{i}_{k}:\n    def m(self, total, {NAME}):\n        return [total, {NAME}, 'count {k}']"
                   f"  # {NAME}\n" for k in range(defs))


def _ready(worker: ParseWorker, timeout: float = 30.0) -> None:
    """Wait until the worker the first hand-over started is up (that first call parsed locally)."""
    deadline = time.monotonic() + timeout
    while worker._proc is None and time.monotonic() < deadline:  # noqa: SLF001
        time.sleep(0.02)
    assert worker._proc is not None, f"no parse worker came up (failures: {worker.failures})"  # noqa: SLF001


def _worker_of(ctx: object) -> ParseWorker:
    worker = file_cache(ctx)._worker  # type: ignore[arg-type]  # noqa: SLF001
    assert isinstance(worker, ParseWorker)
    return worker


def _warm(ctx: object, worker: ParseWorker) -> None:
    """Start the worker (a hand-over of a big enough source) and wait until it is up."""
    assert worker.parse_many([(b"x = 1\n" * 20_000, "python", "x", False)]) is None  # the first need starts it
    _ready(worker)


def test_the_worker_gives_the_occurrences_and_outlines_a_local_parse_gives(tmp_path: Path) -> None:
    texts = {f"m{i}.py": _big_python(i, 400 + 300 * i) for i in range(4)}
    texts["small.py"] = f"{NAME} = 1\nprint('{NAME}')\n"
    texts["unicode.py"] = "é = 1\n" + f"def f(é, {NAME}): return {NAME}  # {NAME}\n" * 10_000
    texts["app.ts"] = f"export class A {{ m({NAME}: number) {{ return `{NAME}` + {NAME}; }} }}\n" * 5_000
    for rel, text in texts.items():
        (tmp_path / rel).write_text(text, encoding="utf-8")
    jobs = [(rel, "typescript" if rel.endswith(".ts") else "python") for rel in texts]
    kept: dict[str, list[object]] = {}
    with open_context(tmp_path) as ctx:
        worker = _worker_of(ctx)
        _warm(ctx, worker)
        found = file_cache(ctx).occurrences_many(jobs, NAME, parsed=lambda rel, _text, flat: kept.update({rel: flat}),
                                                 outline=None)
        assert worker.parsed >= len(jobs)  # the worker parsed them, not this process
    for rel, language in jobs:
        assert found[rel] == code_occurrences(texts[rel], language, NAME), rel
        assert found[rel], rel
        assert kept[rel] == list(flatten(outline(texts[rel], language))), rel  # the same Symbols, in order


def test_a_query_through_the_worker_answers_as_one_without_it(tmp_path: Path) -> None:
    for i in range(6):
        (tmp_path / f"m{i}.py").write_text(_big_python(i), encoding="utf-8")
    confirmed = {"m0.py": {(1, 25)}, "m3.py": {(4, 8)}}

    def query(ctx: object) -> tuple[list[tuple[str, int, int]], dict[str, list[object]]]:
        found = unconfirmed_hits(ctx, NameSearch(ctx, NAME, "python"), confirmed)  # type: ignore[arg-type]
        outlines = {rel: Outlines(ctx).symbols(rel) for rel in confirmed}  # type: ignore[arg-type]
        return sorted((h.path, h.line, h.column) for h in found.hits), outlines

    with open_context(tmp_path, one_call=True) as alone:
        assert file_cache(alone)._worker is None  # noqa: SLF001  (a one-call session starts no process)
        expected = query(alone)
    with open_context(tmp_path) as ctx:
        worker = _worker_of(ctx)
        _warm(ctx, worker)
        assert query(ctx) == expected
        assert worker.parsed >= 1  # (how many of the six it took depends on the two threads' pace)


def test_a_parse_in_the_worker_leaves_this_processs_threads_running(tmp_path: Path) -> None:
    text = _big_python(0, 40_000)
    (tmp_path / "big.py").write_text(text, encoding="utf-8")
    (tmp_path / "other.py").write_text(text.replace("class C0", "class D0"), encoding="utf-8")
    counts: list[int] = [0]
    stop = threading.Event()

    def spin() -> None:
        while not stop.is_set():
            counts[0] += 1

    def spins_during(parse: object) -> tuple[float, float]:
        """(spins per CPU second of this process while `parse` runs, the same right after, as long).

        Per CPU second, not per wall second: on a loaded machine the spinner gets fewer wall
        seconds of CPU either way, but how much of this process's CPU it gets does not change:
        ~all of it while the main thread waits on the worker, ~none while a parse here holds the
        GIL."""
        start, began, cpu = counts[0], time.perf_counter(), time.process_time()
        parse()  # type: ignore[operator]
        took, cpu_during = time.perf_counter() - began, time.process_time() - cpu
        during = counts[0] - start
        cpu = time.process_time()
        time.sleep(took)
        cpu_after = time.process_time() - cpu
        return during / cpu_during, (counts[0] - start - during) / cpu_after

    with open_context(tmp_path) as ctx:
        worker, cache = _worker_of(ctx), file_cache(ctx)
        _warm(ctx, worker)
        spinner = threading.Thread(target=spin)
        spinner.start()
        try:
            remote, free = spins_during(lambda: cache.occurrences_many([("big.py", "python")], NAME))
            assert worker.parsed == 1
            worker.close()  # from now on every parse is this process's own
            local, free_again = spins_during(lambda: cache.occurrences_many([("other.py", "python")], NAME))
        finally:
            stop.set()
            spinner.join()
    # A parse here holds the GIL throughout: the spinner barely runs. In the worker it runs freely.
    assert local < 0.5 * free_again, f"a local parse left the spinner {local:.0f}/CPU s of {free_again:.0f}"
    assert remote > 0.6 * free, f"the worker's parse left the spinner {remote:.0f}/CPU s of {free:.0f}"


def _prepared_batches(ctx: object, name: str, files: int) -> list[int]:
    """The sizes of the batches a query's prepare loop (beside the server's request) handed the
    file cache, once it parsed all `files` candidates."""
    cache = file_cache(ctx)  # type: ignore[arg-type]
    sizes: list[int] = []
    real = cache.occurrences_many

    def recording(jobs: list[tuple[str, str]], *args: object, **kwargs: object) -> object:
        found = real(jobs, *args, **kwargs)  # type: ignore[arg-type]
        sizes.append(len(jobs))  # (once parsed)
        return found

    cache.occurrences_many = recording  # type: ignore[assignment,method-assign]
    try:
        NameSearch(ctx, name, "python").start()  # type: ignore[arg-type]
        deadline = time.monotonic() + 60
        while sum(sizes) < files and time.monotonic() < deadline:
            time.sleep(0.02)
    finally:
        del cache.occurrences_many
    assert sum(sizes) == files, sizes
    return sizes


def test_background_parses_hand_over_batches_only_while_the_worker_is_free(tmp_path: Path) -> None:
    """A batch parsed in this process would hold the GIL file after file, with the stop signal
    looked at only between batches: without a free worker the background loops (the prepare pool,
    the continuation) take one file at a time."""
    from agent.semantic.name_continuation import _batches
    from agent.semantic.side_by_side import BATCH_CHARS

    for i in range(8):  # ~77 KB each: a 256 KB batch closes at its 4th file
        (tmp_path / f"m{i}.py").write_text(_big_python(i, 800), encoding="utf-8")
    rels = sorted(f"m{i}.py" for i in range(8))
    with open_context(tmp_path) as ctx:
        worker, cache = _worker_of(ctx), file_cache(ctx)
        assert cache.batch_chars() == 0  # not started yet
        assert [len(b) for b in _batches(cache, rels, NAME)] == [1] * 8
        with worker._use:  # noqa: SLF001  (as if another thread's parse held it: no hand-over starts it either)
            assert _prepared_batches(ctx, NAME, 8) == [1] * 8
        assert worker.parsed == 0
        # New files (a file parsed once answers every name from its kept tokens: nothing to parse).
        for i in range(8):
            (tmp_path / f"n{i}.py").write_text(_big_python(10 + i, 800), encoding="utf-8")
        rels = sorted(f"n{i}.py" for i in range(8))
        _warm(ctx, worker)
        assert cache.batch_chars() == BATCH_CHARS
        assert [len(b) for b in _batches(cache, rels, NAME)] == [4, 4]
        with worker._use:  # noqa: SLF001  (another thread's parse in the worker now)
            assert cache.batch_chars() == 0
            assert [len(b) for b in _batches(cache, rels, NAME)] == [1] * 8
        assert _prepared_batches(ctx, NAME, 8) == [4, 4]  # (the m files' occurrences are kept)
        assert worker.parsed == 8
        worker.close()
        assert cache.batch_chars() == 0


def test_a_killed_worker_is_replaced_and_nothing_is_lost(tmp_path: Path) -> None:
    texts = {f"m{i}.py": _big_python(i) for i in range(3)}
    for rel, text in texts.items():
        (tmp_path / rel).write_text(text, encoding="utf-8")
    with open_context(tmp_path) as ctx:
        worker, cache = _worker_of(ctx), file_cache(ctx)
        _warm(ctx, worker)
        proc = worker._proc  # noqa: SLF001
        assert proc is not None
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        # The next hand-over finds it dead before asking: that file is parsed here, a new worker starts.
        assert cache.code_occurrences("m0.py", "python", NAME) == code_occurrences(texts["m0.py"], "python", NAME)
        _ready(worker)
        assert worker._proc is not proc  # noqa: SLF001
        # One dying while it parses: that call's files are parsed here; the death is counted.
        proc = worker._proc  # noqa: SLF001
        assert proc is not None
        killer = threading.Timer(0.05, lambda: os.kill(proc.pid, signal.SIGKILL))
        killer.start()
        found = cache.occurrences_many([("m1.py", "python"), ("m2.py", "python")], NAME)
        killer.join()
        for rel in ("m1.py", "m2.py"):
            assert found[rel] == code_occurrences(texts[rel], "python", NAME)


def test_an_idle_worker_leaves_and_the_next_need_starts_another(tmp_path: Path) -> None:
    worker = ParseWorker(idle_exit_s=0.3)
    source = b"x = 1\n" * 20_000
    try:
        assert worker.parse_many([(source, "python", "x", False)]) is None  # starts it
        _ready(worker)
        proc = worker._proc  # noqa: SLF001
        assert proc is not None
        answer = worker.parse_many([(source, "python", "x", False)])
        assert answer is not None and answer[0] is not None and len(answer[0][2]) == 20_000
        assert proc.wait(timeout=10) == 0  # left by itself once idle
        assert worker.parse_many([(source, "python", "x", False)]) is None  # found gone: not a failure
        _ready(worker)
        assert worker.failures == 0 and worker._proc is not proc  # noqa: SLF001
    finally:
        worker.close()
    assert worker._proc is None  # noqa: SLF001


def test_the_worker_imports_nothing_from_the_workspace(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    marker = tmp_path / "ran"
    for module in ("tree_sitter.py", "pickle.py", "select.py"):  # what the worker imports, shadowed
        (tmp_path / module).write_text(f"open({str(marker)!r}, 'w').write('{module}')\nraise SystemExit(3)\n")
    (tmp_path / "agent").mkdir()
    (tmp_path / "agent" / "__init__.py").write_text(f"open({str(marker)!r}, 'w').write('agent')\n")
    (tmp_path / "big.py").write_text(_big_python(0), encoding="utf-8")
    monkeypatch.chdir(tmp_path)  # the session's process runs in the workspace
    with open_context(tmp_path) as ctx:
        worker = _worker_of(ctx)
        _warm(ctx, worker)
        found = file_cache(ctx).code_occurrences("big.py", "python", NAME)
        assert worker.parsed == 1 and len(found) == 6_000
        proc = worker._proc  # noqa: SLF001
    assert not marker.exists(), marker.read_text()
    assert proc is not None and proc.poll() is not None  # closing the session stopped it
