"""One parse of a candidate file serves every name's "same name in code" check (the file cache
keeps its identifier tokens, agent/syntax/identifier_spans.py), and no file is parsed by two
threads at once: the occurrences are exactly the syntax layer's, a second name's query finds the
files the first one parsed already checked, and a thread that needs a file another is parsing
waits for that parse instead of doing its own beside it."""

from __future__ import annotations

import re
import threading
import time
from pathlib import Path

import pytest
import tree_sitter as ts

from agent.bootstrap import open_context
from agent.languages import syntax_language
from agent.semantic.filecache import file_cache
from agent.semantic.name_occurrences import NameSearch, unconfirmed_hits
from agent.semantic.side_by_side import BATCH_CHARS, side_by_side
from agent.syntax import code_occurrences
from agent.syntax.identifier_spans import identifier_spans
from agent.syntax.languages import encode, get_query, parse_bytes
from agent.syntax.positions import LineMap

REPO = Path(__file__).resolve().parents[2]
SAMPLES = "total = 1\ncount = total\nlabel = 'total count'  # total, count\ndef é(total): return count\n"


def _token_by_token(text: str, language: str, name: str) -> list[tuple[int, int]]:
    """The reference: each identifier capture's own text compared with `name` (the way the syntax
    layer found occurrences before the kept tokens, which code_occurrences now uses too)."""
    query = get_query(language, "identifiers")
    assert query is not None
    source, wanted = encode(text), encode(name)
    lines = LineMap(source)
    found = {(node.start_point[0], lines.char_column(*node.start_point))
             for nodes in ts.QueryCursor(query).captures(parse_bytes(source, language).root_node).values()
             for node in nodes if source[node.start_byte:node.end_byte] == wanted}
    return sorted(found)


def test_the_tokens_give_every_name_the_syntax_layers_occurrences() -> None:
    files = [p for p in sorted((REPO / "fixtures" / "syntax").iterdir()) if syntax_language(p.name)]
    files += [REPO / "agent" / "semantic" / "filecache.py", REPO / "fixtures" / "tsproj" / "src" / "index.ts"]
    compared = 0
    for path in files:
        language = syntax_language(path.name)
        assert language is not None
        text = path.read_text(encoding="utf-8")
        source = encode(text)
        spans, _tree = identifier_spans(source, language)
        for name in sorted(set(re.findall(r"[\w$]+", text))):  # every word: names, keywords, numbers
            expected = _token_by_token(text, language, name)
            assert spans.occurrences(source, name) == expected, (path.name, name)
            assert code_occurrences(text, language, name) == expected, (path.name, name)
            compared += 1
    assert compared > 800
    assert any(not line.isascii() for path in files for line in path.read_text(encoding="utf-8").splitlines())


def _tree(root: Path) -> None:
    for name in "abcde":  # 3,010 characters each: a 5,000-character budget parses two per query
        (root / f"{name}.py").write_text("total = count = 1\n" + "x = 0\n" * 500, encoding="utf-8")


def _query(ctx: object, name: str, max_chars: int) -> tuple[list[tuple[str, int, int]], int]:
    found = unconfirmed_hits(ctx, NameSearch(ctx, name, "python"), {}, max_chars=max_chars)  # type: ignore[arg-type]
    return sorted((h.path, h.line, h.column) for h in found.hits), found.unchecked


def test_a_second_names_query_finds_the_files_parsed_for_the_first_checked(tmp_path: Path) -> None:
    _tree(tmp_path)
    with open_context(tmp_path) as unbounded:
        everything, none_left = _query(unbounded, "count", 10**9)
    assert none_left == 0 and len(everything) == 5
    with open_context(tmp_path) as ctx:
        assert _query(ctx, "total", 10**9)[1] == 0  # every candidate parsed, for `total`
        assert _query(ctx, "count", 5_000) == (everything, 0)  # within its budget: nothing parsed again
        (tmp_path / "c.py").write_text("x = 1\ncount = 2\n", encoding="utf-8")  # an edit: parsed afresh
        hits, left = _query(ctx, "count", 5_000)
        assert left == 0 and ("c.py", 1, 0) in hits and ("c.py", 0, 8) not in hits


def _thread_cpu(thread: threading.Thread) -> float:
    assert thread.native_id is not None
    return int(Path(f"/proc/self/task/{thread.native_id}/schedstat").read_text().split()[0]) / 1e9


def test_a_file_being_parsed_is_not_parsed_again_beside_it(tmp_path: Path) -> None:
    body = "".join(f"def f{i}(total, count):\n    return [total, count, {i}]\n" for i in range(40_000))
    (tmp_path / "big.py").write_text(body, encoding="utf-8")
    started = time.thread_time()
    expected = code_occurrences(body, "python", "count")
    alone = time.thread_time() - started
    assert alone > 0.1, f"big.py parses in {alone:.3f} s: too fast for the check below to tell"
    with open_context(tmp_path) as ctx:
        cache = file_cache(ctx)
        got: dict[str, object] = {}
        cpu: dict[str, float] = {}

        def occurrences(name: str) -> None:
            begun = time.thread_time()
            got[name] = cache.code_occurrences("big.py", "python", name)
            cpu[name] = time.thread_time() - begun

        first = threading.Thread(target=occurrences, args=("total",))
        first.start()
        deadline = time.monotonic() + 30
        while _thread_cpu(first) < min(0.05, alone / 4) and first.is_alive() and time.monotonic() < deadline:
            time.sleep(0.002)  # until it is well inside its parse
        assert first.is_alive(), "the parse ended before the second thread could ask"
        second = threading.Thread(target=occurrences, args=("count",))
        second.start()
        first.join(60)
        second.join(60)
        assert got["count"] == expected
        assert cpu["count"] < alone / 3, f"the second thread spent {cpu['count']:.3f} s (a parse: {alone:.3f} s)"


def test_the_post_answer_parses_side_by_side_give_each_files_result_and_its_error() -> None:
    jobs = [(f"f{i}.ts", 100_000 * (i % 3 + 1)) for i in range(12)]  # past MIN_CHARS: the helper takes part
    threads: dict[str, list[list[str]]] = {}

    def work(rels: list[str]) -> dict[str, str]:
        threads.setdefault(threading.current_thread().name, []).append(rels)
        time.sleep(0.01)
        return {rel: rel.upper() for rel in rels}

    assert side_by_side(jobs, work) == {rel: rel.upper() for rel, _ in jobs}
    mine = threads.pop(threading.current_thread().name)
    assert all(len(batch) == 1 for batch in mine)  # the request's thread: one file at a time
    sizes = dict(jobs)
    for batches in threads.values():  # a helper: batches of up to BATCH_CHARS (or one bigger file)
        assert all(len(batch) == 1 or sum(sizes[rel] for rel in batch) <= BATCH_CHARS for batch in batches)
    handed = [rel for batches in [mine, *threads.values()] for batch in batches for rel in batch]
    assert sorted(handed) == sorted(sizes)  # each file once

    def failing(rels: list[str]) -> dict[str, str]:
        if "f7.ts" in rels:
            raise ValueError("unreadable")
        return {rel: rel for rel in rels}

    with pytest.raises(ValueError, match="unreadable"):
        side_by_side(jobs, failing)
