"""Bytes ↔ text for workspace files: encoding detection, BOM and line endings kept.

Text handed to tools always uses "\n"; on write it goes back to the file's own line ending,
encoding and BOM, so a CRLF/GBK/UTF-8-BOM file round-trips byte for byte.
"""

from __future__ import annotations

import codecs
from dataclasses import dataclass

from charset_normalizer import from_bytes

from .errors import BinaryFileError, EncodingError

_BOMS: tuple[tuple[bytes, str], ...] = (
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)


@dataclass(frozen=True, slots=True)
class TextFormat:
    """How a file's text is stored on disk."""

    encoding: str = "utf-8"
    bom: bytes = b""
    newline: str = "\n"


DEFAULT_FORMAT = TextFormat()


def _dominant_newline(text: str) -> str:
    crlf = text.count("\r\n")
    lf = text.count("\n") - crlf
    cr = text.count("\r") - crlf
    if crlf > lf and crlf >= cr:
        return "\r\n"
    if cr > lf and cr > crlf:
        return "\r"
    return "\n"


def _normalise(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\r", "\n")


def decode(data: bytes, *, name: str = "file") -> tuple[str, TextFormat]:
    """Decode file bytes to "\n"-text and the format to write it back with."""
    for bom, encoding in _BOMS:
        if data.startswith(bom):
            try:
                raw = data[len(bom):].decode(encoding)
            except UnicodeDecodeError as exc:
                raise BinaryFileError(f"{name}: starts with a {encoding} BOM but does not decode: {exc}") from exc
            return _normalise(raw), TextFormat(encoding, bom, _dominant_newline(raw))
    if b"\x00" in data:
        raise BinaryFileError(f"{name}: binary file (contains NUL bytes); not shown as text")
    try:
        raw = data.decode("utf-8")
        encoding = "utf-8"
    except UnicodeDecodeError:
        best = from_bytes(data).best()
        if best is None or best.encoding is None:
            raise BinaryFileError(f"{name}: binary file (no text encoding fits); not shown as text") from None
        encoding = codecs.lookup(best.encoding).name
        raw = data.decode(encoding)
    return _normalise(raw), TextFormat(encoding, b"", _dominant_newline(raw))


def encode(text: str, fmt: TextFormat, *, name: str = "file") -> bytes:
    """Encode "\n"-text back to bytes in `fmt`; refuses characters the encoding cannot hold."""
    raw = _normalise(text)
    if fmt.newline != "\n":
        raw = raw.replace("\n", fmt.newline)
    try:
        return fmt.bom + raw.encode(fmt.encoding)
    except UnicodeEncodeError as exc:
        bad = exc.object[exc.start:exc.end]
        raise EncodingError(
            f"{name}: the new text has {bad!r}, which the file's encoding {fmt.encoding} cannot hold; "
            "nothing was written"
        ) from exc
