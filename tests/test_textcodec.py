"""Text decoding and encoding: files round-trip byte for byte, edits keep the file's format."""

from __future__ import annotations

import codecs
from pathlib import Path

import pytest

from agent.errors import BinaryFileError, EncodingError
from agent.result import FileEdit
from agent.textcodec import DEFAULT_FORMAT, decode, decode_raw, encode
from agent.workspace import Workspace

CHINESE = "# 这是一个中文注释，用于测试编码检测是否可靠。\nprint('你好，世界！欢迎使用这个程序。')\n" * 3

SAMPLES = {
    "lf": b"a\nb\n",
    "crlf": b"a\r\nb\r\n",
    "cr": b"a\rb\r",
    "no_final_newline": b"a\r\nb",
    "utf8_bom": codecs.BOM_UTF8 + "h\u00e9llo\r\nw\u00f6rld\r\n".encode(),
    "utf16le_bom": codecs.BOM_UTF16_LE + "caf\u00e9\r\n\U0001f600\r\n".encode("utf-16-le"),
    "utf16be_bom": codecs.BOM_UTF16_BE + "caf\u00e9\n".encode("utf-16-be"),
    "gbk": CHINESE.encode("gbk"),
    "gbk_crlf": CHINESE.replace("\n", "\r\n").encode("gbk"),
    "latin1": "caf\u00e9 cr\u00e8me br\u00fbl\u00e9e, na\u00efve fa\u00e7ade\n".encode("latin-1") * 4,
    "mixed": b"one\r\ntwo\nthree\r\nfour\rfive\n",
    "empty": b"",
    "emoji": "x = '\U0001f600'  # \u00e9\n".encode(),
}


@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_decode_encode_round_trips_byte_for_byte(name: str) -> None:
    data = SAMPLES[name]
    text, fmt = decode(data)
    assert "\r" not in text
    raw, _ = decode_raw(data)
    assert encode(text, fmt, original=raw) == data


@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_workspace_edit_keeps_format_of_untouched_lines(root: Path, name: str) -> None:
    """Write each sample, append a line through the workspace, and check that the old bytes are a
    prefix of the new file (same encoding, BOM and line endings) and undo restores them."""
    data = SAMPLES[name]
    (root / "f.txt").write_bytes(data)
    ws = Workspace(root)
    doc = ws.read("f.txt")
    sep = "" if doc.text.endswith("\n") or not doc.text else "\n"
    ws.apply([ws.edit_for(doc, doc.text + sep + "added\n")], operation="append")
    new = (root / "f.txt").read_bytes()
    if name != "no_final_newline":
        assert new.startswith(data), (new, data)
    assert ws.read("f.txt").fmt.encoding == doc.fmt.encoding
    ws.undo()
    assert (root / "f.txt").read_bytes() == data


def test_detected_formats() -> None:
    assert decode(SAMPLES["crlf"])[1].newline == "\r\n"
    assert decode(SAMPLES["cr"])[1].newline == "\r"
    assert decode(SAMPLES["utf8_bom"])[1].bom == codecs.BOM_UTF8
    text, fmt = decode(SAMPLES["gbk"])
    assert fmt.encoding in ("gb18030", "gbk", "gb2312") and "你好" in text
    assert decode(SAMPLES["utf16le_bom"])[0] == "caf\u00e9\n\U0001f600\n"
    assert decode(SAMPLES["mixed"])[1].mixed


def test_gbk_file_edit_writes_gbk(root: Path) -> None:
    (root / "zh.py").write_bytes(SAMPLES["gbk_crlf"])
    ws = Workspace(root)
    doc = ws.read("zh.py")
    ws.apply([ws.edit_for(doc, doc.text.replace("你好", "再见"))], operation="t")
    expected = CHINESE.replace("你好", "再见").replace("\n", "\r\n").encode("gbk")
    assert (root / "zh.py").read_bytes() == expected


def test_mixed_endings_keep_each_untouched_line(root: Path) -> None:
    (root / "m.txt").write_bytes(b"one\r\ntwo\nthree\r\nfour\n")
    ws = Workspace(root)
    doc = ws.read("m.txt")
    ws.apply([ws.edit_for(doc, doc.text.replace("two", "TWO"))], operation="t")
    # the changed line takes the dominant ending (a tie between CRLF and LF goes to LF)
    assert (root / "m.txt").read_bytes() == b"one\r\nTWO\nthree\r\nfour\n"


NO_NUL_NOISE = bytes((i * 7919 + 13) % 255 + 1 for i in range(3000))  # binary without a single NUL


@pytest.mark.parametrize("data", [b"\x00\x01\x02binary", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR",
                                  bytes(range(256)) * 4, NO_NUL_NOISE])
def test_binary_is_refused_clearly(data: bytes) -> None:
    with pytest.raises(BinaryFileError, match="binary file"):
        decode(data, name="img.png")


def test_unencodable_text_is_refused(root: Path) -> None:
    (root / "l1.txt").write_bytes(SAMPLES["latin1"])
    ws = Workspace(root)
    doc = ws.read("l1.txt")
    with pytest.raises(EncodingError, match="cannot hold"):
        ws.apply([ws.edit_for(doc, doc.text + "\U0001f600\n")], operation="t")
    assert (root / "l1.txt").read_bytes() == SAMPLES["latin1"]
    with pytest.raises(EncodingError):
        encode("\udc80", DEFAULT_FORMAT)


def test_new_file_is_utf8_lf(root: Path) -> None:
    ws = Workspace(root)
    ws.apply([FileEdit("n.txt", "a\r\nb\n\u00e9", check_old=False)], operation="t")
    assert (root / "n.txt").read_bytes() == "a\nb\n\u00e9".encode()


@pytest.mark.parametrize(("text", "encoding", "detected"), [
    ("Le café est très chaud; la crème brûlée est délicieuse.\n", "latin-1", "cp1252"),
    ("Größe Straße über Äpfel\n", "latin-1", "cp1252"),
    ("Příliš žluťoučký kůň úpěl ďábelské ódy. Zażółć gęślą jaźń.\n", "cp1250", "cp1250"),
    ("Привет, как дела? Это тест кодировки.\n", "cp1251", "cp1251"),
    ("这是一个中文文件，用于测试编码检测。\n", "gbk", "gb18030"),
])
def test_legacy_encodings_are_detected_and_shown_right(text: str, encoding: str, detected: str) -> None:
    data = text.encode(encoding)
    decoded, fmt = decode(data)
    assert decoded == text and fmt.encoding == detected
    assert encode(decoded, fmt) == data
