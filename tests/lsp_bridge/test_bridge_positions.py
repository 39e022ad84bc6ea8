"""Code-point columns <-> UTF-16 / UTF-8 units, with non-ASCII and astral characters."""

from __future__ import annotations

from pathlib import Path

import pytest
from lsprotocol import types as lsp

from lsp_bridge import InvalidEdit, Position
from lsp_bridge.positions import TextLines, from_units, normalize_text, to_units

LINE = 'naïve = "été 🎉"; x = area_of(c)'
SYMBOL = LINE.index("area_of")  # 23 code points


def test_ascii_prefix_is_identity() -> None:
    for encoding in ("utf-16", "utf-8", "utf-32"):
        assert to_units("abc def", 4, encoding) == 4  # type: ignore[arg-type]
        assert from_units("abc def", 4, encoding) == 4  # type: ignore[arg-type]


def test_emoji_counts_two_utf16_units_and_four_utf8_bytes() -> None:
    # ï, é, é are 1 UTF-16 unit / 2 UTF-8 bytes each; 🎉 is 2 UTF-16 units / 4 UTF-8 bytes.
    assert to_units(LINE, SYMBOL, "utf-16") == SYMBOL + 1
    assert to_units(LINE, SYMBOL, "utf-8") == SYMBOL + 3 + 3
    assert to_units(LINE, SYMBOL, "utf-32") == SYMBOL
    assert len(LINE[:SYMBOL].encode("utf-16-le")) // 2 == SYMBOL + 1
    assert len(LINE[:SYMBOL].encode("utf-8")) == SYMBOL + 6


@pytest.mark.parametrize("encoding", ["utf-16", "utf-8", "utf-32"])
def test_round_trip_every_column(encoding: str) -> None:
    text = "a🎉b🧑‍💻c ü 𝔘 end"
    for column in range(len(text) + 1):
        units = to_units(text, column, encoding)  # type: ignore[arg-type]
        assert from_units(text, units, encoding) == column  # type: ignore[arg-type]


def test_units_inside_a_character_round_down_and_past_end_clamp() -> None:
    text = "🎉x"
    assert from_units(text, 1, "utf-16") == 0  # half a surrogate pair
    assert from_units(text, 2, "utf-16") == 1
    assert from_units(text, 3, "utf-8") == 0  # inside the 4-byte emoji
    assert from_units(text, 99, "utf-16") == 2
    assert to_units(text, 99, "utf-16") == 3
    assert from_units(text, -1, "utf-16") == 0


def test_text_lines_convert_lsp_positions() -> None:
    lines = TextLines("first\n" + LINE + "\n")
    server = lines.to_server(Position(1, SYMBOL), "utf-16")
    assert server == lsp.Position(line=1, character=SYMBOL + 1)
    assert lines.from_server(server, "utf-16") == Position(1, SYMBOL)
    rng = lsp.Range(start=lsp.Position(line=1, character=SYMBOL + 6), end=lsp.Position(line=1, character=SYMBOL + 13))
    converted = lines.range_from_server(rng, "utf-8")
    assert LINE[converted.start.character:converted.end.character] == "area_of"


def test_offsets_and_bounds() -> None:
    lines = TextLines("ab\ncd\n")
    assert lines.offset(Position(1, 1)) == 4
    assert lines.offset(Position(1, 99)) == 5  # clamped to the end of its line (LSP rule)
    assert lines.offset(Position(2, 0)) == 6  # the empty last line
    assert lines.offset(Position(3, 0)) == 6  # just after the last line: end of text
    with pytest.raises(InvalidEdit, match="past the end"):
        lines.offset(Position(4, 0))
    with pytest.raises(InvalidEdit, match="negative"):
        lines.offset(Position(-1, 0))


def test_normalize_text_matches_what_the_workspace_reads() -> None:
    data = "\ufeffline one\r\nline two\rthree 🎉\n".encode()
    assert normalize_text(data) == "line one\nline two\nthree 🎉\n"
    assert normalize_text(b"caf\xe9") == "caf\ufffd"  # undecodable bytes are replaced, not fatal


def test_server_locations_are_converted_deduplicated_and_sorted(tmp_path: Path) -> None:
    """One file named by two spellings of its URI, a LocationLink, a duplicate and a non-file URI:
    code-point columns, one entry per place, sorted by path and range; each file looked up once."""
    from lsp_bridge.convert import locations
    from lsp_bridge.uris import path_to_uri

    a, b = tmp_path / "a.py", tmp_path / "b.py"
    uri_a = path_to_uri(a)
    odd_a = uri_a[: -len("a.py")] + "%61.py"  # the same file, percent-encoded
    looked_up: list[object] = []

    def lines_of(path: Path) -> TextLines | None:
        looked_up.append(path)
        return TextLines(LINE) if path == a else None

    def loc(uri: str, start: int, end: int) -> lsp.Location:
        return lsp.Location(uri=uri, range=lsp.Range(start=lsp.Position(line=0, character=start),
                                                     end=lsp.Position(line=0, character=end)))

    start16 = SYMBOL + 1  # UTF-16 units of area_of's start on LINE
    answer = [
        loc(path_to_uri(b), 4, 6),
        loc(uri_a, start16, start16 + 7),
        loc(odd_a, start16, start16 + 7),
        lsp.LocationLink(target_uri=uri_a, target_range=lsp.Range(start=lsp.Position(line=0, character=0),
                                                                  end=lsp.Position(line=0, character=40)),
                         target_selection_range=lsp.Range(start=lsp.Position(line=0, character=0),
                                                          end=lsp.Position(line=0, character=5))),
        loc("untitled:Untitled-1", 0, 1),
        loc(uri_a, start16, start16 + 7),
    ]
    found = locations(answer, lines_of, "utf-16")
    assert [(f.path, str(f.range)) for f in found] == [
        (a, "0:0-0:5"), (a, f"0:{SYMBOL}-0:{SYMBOL + 7}"), (b, "0:4-0:6")]
    assert sorted(map(str, looked_up)) == sorted([str(a), str(a), str(b)])  # per URI spelling, not per location
    assert locations(None, lines_of, "utf-16") == []


def test_a_plain_references_answer_converts_as_its_typed_form(tmp_path: Path) -> None:
    """plain_locations (a references result as parsed JSON) gives exactly what locations gives for
    the same answer structured into protocol types: UTF-16 and UTF-8 columns past non-ASCII and
    astral characters, a line past the end, duplicates, an unreadable file, a non-file URI, order."""
    from pygls.lsp.client import LanguageClient

    from lsp_bridge.convert import locations, plain_locations
    from lsp_bridge.uris import path_to_uri

    a, b, gone = tmp_path / "a.py", tmp_path / "b.py", tmp_path / "gone.py"

    def lines_of(path: Path) -> TextLines | None:
        return TextLines(f"{LINE}\nplain line\n") if path == a else TextLines("x\n") if path == b else None

    def site(uri: str, sl: int, sc: int, el: int, ec: int) -> dict[str, object]:
        return {"uri": uri, "range": {"start": {"line": sl, "character": sc}, "end": {"line": el, "character": ec}},
                "extra": "ignored"}

    unit = SYMBOL + 1
    answer = [site(path_to_uri(b), 0, 0, 0, 1), site(path_to_uri(a), 0, unit, 0, unit + 7),
              site(path_to_uri(a), 1, 0, 1, 5), site(path_to_uri(a), 0, unit, 0, unit + 7),
              site(path_to_uri(a), 0, 3, 0, 4), site(path_to_uri(a), 7, 2, 7, 9), site(path_to_uri(gone), 3, 4, 3, 9),
              site("untitled:Untitled-1", 0, 0, 0, 1), site(path_to_uri(a), 0, unit, 1, 99)]
    typed = LanguageClient("t", "1").protocol._converter.structure(answer, list[lsp.Location])
    for encoding in ("utf-16", "utf-8", "utf-32"):
        assert plain_locations(answer, lines_of, encoding) == locations(typed, lines_of, encoding)
    got = [(f.path.name, str(f.range)) for f in plain_locations(answer, lines_of, "utf-16")]
    assert got == [("a.py", "0:3-0:4"), ("a.py", f"0:{SYMBOL}-0:{SYMBOL + 7}"), ("a.py", f"0:{SYMBOL}-1:10"),
                   ("a.py", "1:0-1:5"), ("a.py", "7:0-7:0"), ("b.py", "0:0-0:1"), ("gone.py", "3:4-3:9")]
    assert plain_locations(None, lines_of, "utf-16") == [] and plain_locations([], lines_of, "utf-16") == []
