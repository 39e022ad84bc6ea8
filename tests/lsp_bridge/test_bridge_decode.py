"""The bridge takes its caller's decoder: the text it sends a server and converts the server's
columns against is the caller's decoding of the bytes (lsp_bridge.positions.Decode), so a GBK file's
identifier is at the same column for the bridge as for the workspace."""

from __future__ import annotations

from pathlib import Path

from lsp_bridge.documents import read_file

LINE = "标签 = 面积; 结果 = area_of(2)\n"


def test_read_file_uses_the_decoder_it_is_given(tmp_path: Path) -> None:
    path = tmp_path / "gbk.py"
    path.write_bytes(LINE.encode("gbk"))
    default = read_file(path)
    given = read_file(path, lambda data: data.decode("gbk"))
    assert default is not None and given is not None
    assert given.lines.text == LINE
    assert given.lines.text.index("area_of") == 14
    assert default.lines.text.index("area_of") == 17  # UTF-8 with replacement: other columns
    assert given.hash == default.hash  # the hash is of the bytes, whatever the decoding
