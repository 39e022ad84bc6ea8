"""A literal search reads rg's plain output (agent/grep_rgtext.py): the same hits as from its
JSON, anything unexpected refused (and the batch read again from JSON), a kept file list
turned into rg's arguments once."""

from __future__ import annotations

import os
import stat
import subprocess
import time
from pathlib import Path

import pytest

from agent.grep import Query, render, search
from agent.grep_rg import _LAST, RgUnusable, rg_batches
from agent.grep_rgscan import CHUNK, CountedScan
from agent.grep_rgtext import HEADING_ARGS, HeadingScan, Inconsistent, plain_query, usable
from agent.grep_types import Budget
from agent.ripgrep import find_rg
from agent.walk import iter_file_names

needs_rg = pytest.mark.skipif(find_rg() is None, reason="ripgrep (the `ripgrep` wheel) is not installed")

FILES: dict[bytes, bytes] = {
    b"1:2:digits-and-colons.txt": b"12:30 hit at half past\n",  # a name that reads like a record
    b"a: binary file matches (x).txt": b"hit in a name like rg's notice\n",
    b"notice.txt": b"hit\n/x: binary file matches (found \"\\0\" byte around offset 3)\n",  # a line like it
    b"we:ird/colon.py": b"x = 1\nhit: 2:3: here\n",
    b"crlf.txt": b"hit one\r\nnone\r\nhit two\r\n",
    b"nonl.txt": b"first\nlast hit",
    b"lat\xe9.txt": b"caf\xe9 hit cr\xe8me\n",  # a name and a line that are not UTF-8
    b"uni.txt": "h\u00e9\u00e9 hit \u00e9t\u00e9\n".encode(),
    b"early.bin": b"hit before\n\x00hit after\n",
    b"late.bin": b"hit first\n" + b"y" * 99 + b"\n" + (b"z" * 99 + b"\n") * 3000 + b"hit late\n\x00hit after\n",
    b"long.txt": b"hit " + b"w" * 1_500_000 + b"\nhit after the long line\n",
    b"many.txt": b"".join(b"hit %d\n" % i for i in range(20_000)),
    b"empty-hit.txt": b"hit\n\nhit\n",
}
Kept = list[tuple[str, int, list[tuple[int, int, bytes]]]]


def _tree(root: Path) -> list[tuple[str, str]]:
    for rel, data in FILES.items():
        path = root / os.fsdecode(rel)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    for i in range(150):  # more groups than one read holds, in several folders
        (root / f"d{i % 5}").mkdir(exist_ok=True)
        (root / f"d{i % 5}" / f"f{i:03}.txt").write_bytes(b"".join(b"line %d hit %d\n" % (j, i) for j in range(60)))
    return sorted(iter_file_names(root, root), key=lambda item: item[1])


def _scan(reader: type[CountedScan], args: list[str], files: list[tuple[str, str]], pattern: str,
          keep: int, read: int) -> Kept:
    """One real rg run (--no-mmap: a late NUL is found after some records were printed) read by
    `reader` in reads of `read` bytes; what a result keeps of it (as grep._collect takes it):
    per file with matches, in order, its count and its first lines (number, offset, text)."""
    rg = find_rg()
    assert rg is not None
    keys = [path for path, _ in files]
    cmd = [rg, *args, "--no-config", "--crlf", "--no-messages", "--no-mmap", "--fixed-strings",
           "--case-sensitive", "-e", pattern, "--", *keys[::-1]]
    out = subprocess.run(cmd, capture_output=True, check=False).stdout
    scan = reader(dict(files), {key: i for i, key in enumerate(keys)}, keep)
    for i in range(0, len(out), read):
        scan.feed(out[i:i + read])
    scan.close()
    kept: Kept = []
    remaining = keep
    for key in keys:
        hits = scan.found.get(key)
        if hits is None or hits.binary or not hits.matched:
            continue
        hits.take(remaining)
        lines = hits.match_lines[:remaining]
        remaining -= len(lines)
        # (rg's plain output ends a file's last line when it has no line end; the result strips it)
        kept.append((key, hits.matched, [(n, hits.offsets[n], hits.texts[n].rstrip(b"\n").rstrip(b"\r")) for n in lines]))
    return kept


@needs_rg
@pytest.mark.parametrize("read", [CHUNK, 4096, 7])
@pytest.mark.parametrize(("pattern", "keep"), [("hit", 5000), ("hit", 3), ("12:30", 10), (": binary file matches", 1),
                                               ("hit cr", 10)])
def test_the_plain_output_gives_the_hits_the_json_gives(root: Path, read: int, pattern: str, keep: int) -> None:
    files = _tree(root)
    assert usable([path for path, _ in files])
    plain = _scan(HeadingScan, HEADING_ARGS, files, pattern, keep, read)
    assert plain == _scan(CountedScan, ["--json"], files, pattern, keep, read)
    counts = {key: matched for key, matched, _ in plain}
    assert plain and str(root / "late.bin") not in counts and str(root / "early.bin") not in counts
    if pattern == "hit" and keep == 5000:
        assert counts[str(root / "many.txt")] == 20_000 and len(counts) == len(files) - 2
        assert dict((k, lines) for k, _, lines in plain)[str(root / "crlf.txt")] == [(1, 0, b"hit one"), (3, 0, b"hit two")]


@needs_rg
def test_a_literal_search_answers_as_the_python_engine(root: Path) -> None:
    files = _tree(root)
    (root / "late.bin").unlink()  # (rg may map a file and not see a late NUL, which Python always sees)
    files = [item for item in files if not item[1].endswith("late.bin")]
    for query in (Query("hit", regex=False, max_results=40), Query("HIT", regex=False, case_sensitive=False),
                  Query("12:30", regex=False), Query("hit", regex=False, max_results=1)):
        assert plain_query(query)
        rg, py = (search(files, query, engine=engine, root=root) for engine in ("ripgrep", "python"))
        assert (render(rg, query, "."), rg.total, rg.files_with_matches) == (render(py, query, "."), py.total,
                                                                            py.files_with_matches)
        assert rg.hits == py.hits


@pytest.mark.parametrize("output", [
    b"/w/a\x001:1:hit\n/w/b\x001:1:hit\n",  # no separator between two files
    b"/w/a\x001:1:hit\n/w/b\x001:1:hit\n2:1:hit\n",  # the same, the second file's path inside the group
    b"/w/a\x001:hit\n",  # a record without its column
    b"/w/a\x001:1:hit\nWARNING: something new\n",  # a notice this reader does not know
    b"/w/a\x001:1:hit\n/w/b: binary file matches (found \"\\0\" byte around offset 3)\n",  # another file's notice
    b"/w/a\x001:1:hit",  # output cut inside a line
    b"/w/c\x001:1:hit\n",  # a path not searched
    b"w/a\x001:1:hit\n",  # a group that does not start with a path
])
def test_unexpected_plain_output_is_refused(output: bytes) -> None:
    scan = HeadingScan({"/w/a": "a", "/w/b": "b"}, {"/w/a": 0, "/w/b": 1}, 10)
    with pytest.raises(Inconsistent):
        scan.feed(output)
        scan.close()


def test_a_binary_notice_drops_its_file_and_keeps_the_others() -> None:
    scan = HeadingScan({"/w/a": "a", "/w/b": "b"}, {"/w/a": 0, "/w/b": 1}, 10)
    scan.feed(b"/w/a\x001:1:hit\n2:3:x hit\n/w/a: binary file matches (found \"\\0\" byte around offset 9)\n\n"
              b"/w/b\x004:2: hit\n")
    scan.close()
    assert list(scan.found) == ["/w/b"] and scan.found["/w/b"].matched == 1
    scan.found["/w/b"].take(10)
    assert (scan.found["/w/b"].match_lines, scan.found["/w/b"].offsets) == ([4], {4: 1})


def test_paths_rg_could_print_ambiguously_are_read_from_json() -> None:
    assert usable(["/w/a", "/w/b c"])
    assert not usable(["/w/a", "rel/b"]) and not usable(["/w/new\nline"]) and not usable([])
    assert not plain_query(Query("x")) and not plain_query(Query("x", regex=False, context_lines=1))
    assert not plain_query(Query("a\rb", regex=False)) and plain_query(Query("a:b", regex=False))


@needs_rg
def test_output_rg_gives_in_a_form_not_known_is_searched_again_from_json(root: Path, tmp_path: Path) -> None:
    """An rg whose plain output is not what the reader knows (a fake, which passes --json runs to
    the real rg): the batch is searched again and read from JSON, with the same hits."""
    files = _tree(root)
    fake = tmp_path / "rg"
    fake.write_text(f"#!/bin/sh\ncase \" $* \" in *' --heading '*) echo 'rg 99: a new format'; exit 0;; esac\n"
                    f"exec {find_rg()} \"$@\"\n")
    fake.chmod(fake.stat().st_mode | stat.S_IXUSR)
    query = Query("hit", regex=False, max_results=30)
    got = [hits for batch in rg_batches(str(fake), files, query, Budget(30, time.monotonic() + 60)) for hits in batch]
    real = [hits for batch in rg_batches(str(find_rg()), list(files), query, Budget(30, time.monotonic() + 60))
            for hits in batch]
    assert [(h.path, h.matched) for h in got if not h.binary] == [(h.path, h.matched) for h in real]
    assert any(h.binary for h in got)  # (JSON says a file is binary; the plain reader drops it)
    assert sum(h.matched for h in got) > 20_000
    broken = tmp_path / "rg-broken"
    broken.write_text("#!/bin/sh\necho 'no such option' >&2\nexit 2\n")
    broken.chmod(broken.stat().st_mode | stat.S_IXUSR)
    with pytest.raises(RgUnusable, match="no such option"):
        list(rg_batches(str(broken), files, query, Budget(30, time.monotonic() + 60)))


@needs_rg
def test_a_kept_file_list_is_prepared_once_and_a_new_one_afresh(root: Path) -> None:
    files = tuple(_tree(root))
    query = Query("hit", regex=False)
    first = search(files, query, engine="ripgrep", root=root)
    batches = _LAST.batches_of(files)
    assert _LAST.batches_of(files) is batches  # the same tuple: its arguments are not made again
    fewer = tuple(item for item in files if not item[1].startswith("d"))  # a new list: new arguments
    second = search(fewer, query, engine="ripgrep", root=root)
    assert _LAST.batches_of(fewer) is not batches
    assert second.total == first.total - 150 * 60 and second.files_with_matches == first.files_with_matches - 150


def test_output_split_anywhere_between_reads_reads_the_same() -> None:
    """Every cut of the output in two reads (inside a path, a record, between a group's last
    newline and the separator) gives the hits one read gives."""
    out = (b"/w/a\x001:1:hit\n2:5:x hit\n\n/w/b: binary file matches (found \"\\0\" byte around offset 3)\n\n"
           b"/w/c\x007:2: hit\n\n/w/d\x003:1:hit\n")
    names = {f"/w/{c}": c for c in "abcd"}

    def read(*parts: bytes) -> list[tuple[str, int, list[bytes]]]:
        scan = HeadingScan(names, {key: i for i, key in enumerate(names)}, 10)
        for part in parts:
            scan.feed(part)
        scan.close()
        return [(key, hits.matched, hits.pending) for key, hits in scan.found.items()]

    whole = read(out)
    assert whole == [("/w/a", 2, [b"1:1:hit\n", b"2:5:x hit\n"]), ("/w/c", 1, [b"7:2: hit\n"]), ("/w/d", 1, [b"3:1:hit\n"])]
    for cut in range(1, len(out)):
        assert read(out[:cut], out[cut:]) == whole, cut
