"""Bytes ↔ text for workspace files: encoding detection, BOM and line endings kept.

Text handed to tools always uses "\n"; on write it goes back to the file's own line endings,
encoding and BOM, so a CRLF/GBK/UTF-8-BOM file round-trips byte for byte. A file with mixed line
endings keeps the ending of every line an edit did not touch.
"""

from __future__ import annotations

import codecs
import difflib
import re
from dataclasses import dataclass

from .errors import BinaryFileError, EncodingError

_BOMS: tuple[tuple[bytes, str], ...] = (
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)
_NEWLINE = re.compile(r"\r\n|\r|\n")
# C0 controls other than tab, newlines, form feed, escape: text files almost never hold them
_CONTROL = re.compile(r"[\x00-\x08\x0e-\x1a\x1c-\x1f\x7f]")
_LATIN_LOOKALIKES = frozenset({
    "cp1250", "cp1254", "cp1257", "cp775", "iso8859_2", "iso8859_4", "iso8859_9", "iso8859_10", "iso8859_13",
    "iso8859_16", "mac_latin2", "mac_iceland", "mac_turkish", "mac_roman", "hp_roman8",
})
_MAX_MIXED_LINES = 50_000  # beyond this, a mixed-endings file is written with its dominant ending


@dataclass(frozen=True, slots=True)
class TextFormat:
    """How a file's text is stored on disk. `mixed`: more than one line-ending style."""

    encoding: str = "utf-8"
    bom: bytes = b""
    newline: str = "\n"
    mixed: bool = False


DEFAULT_FORMAT = TextFormat()


def _newline_style(raw: str) -> tuple[str, bool]:
    crlf = raw.count("\r\n")
    lf = raw.count("\n") - crlf
    cr = raw.count("\r") - crlf
    mixed = sum(1 for n in (crlf, lf, cr) if n) > 1
    if crlf > lf and crlf >= cr:
        return "\r\n", mixed
    if cr > lf and cr > crlf:
        return "\r", mixed
    return "\n", mixed


def normalise(text: str) -> str:
    """"\r\n" and lone "\r" become "\n"."""
    return text.replace("\r\n", "\n").replace("\r", "\n")


def _format(raw: str, encoding: str, bom: bytes) -> TextFormat:
    newline, mixed = _newline_style(raw)
    return TextFormat(encoding, bom, newline, mixed)


def decode_raw(data: bytes, *, name: str = "file") -> tuple[str, TextFormat]:
    """Decode without touching line endings: the text exactly as stored, and its format."""
    for bom, encoding in _BOMS:
        if data.startswith(bom):
            try:
                raw = data[len(bom):].decode(encoding)
            except UnicodeDecodeError as exc:
                raise BinaryFileError(f"{name}: starts with a {encoding} BOM but does not decode: {exc}") from exc
            return raw, _format(raw, encoding, bom)
    if b"\x00" in data:
        raise BinaryFileError(f"{name}: binary file (contains NUL bytes); not shown as text")
    try:
        raw = data.decode("utf-8")
    except UnicodeDecodeError:
        pass
    else:
        return raw, _format(raw, "utf-8", b"")
    from charset_normalizer import from_bytes  # (here: ~15 ms of imports a UTF-8 workspace never needs)

    for match in from_bytes(data):
        if match.encoding is None:
            continue
        encoding = codecs.lookup(_prefer_cp1252(data, match.encoding)).name
        try:
            raw = data.decode(encoding)
        except (UnicodeDecodeError, LookupError):
            continue
        # only an encoding that gives back the very same bytes is safe to write with
        if raw.encode(encoding, errors="strict") != data:
            continue
        if len(_CONTROL.findall(raw)) > max(2, len(raw) // 20):
            break
        return raw, _format(raw, encoding, b"")
    raise BinaryFileError(f"{name}: binary file (no text encoding fits); not shown as text")


def _prefer_cp1252(data: bytes, encoding: str) -> str:
    """charset-normalizer ranks Latin code pages that decode a Western text equally well in
    alphabetical order (cp1250 before cp1252); the far more common cp1252 wins such ties."""
    if encoding not in _LATIN_LOOKALIKES:
        return encoding
    from charset_normalizer.md import mess_ratio

    try:
        western = data.decode("cp1252")
    except UnicodeDecodeError:
        return encoding
    return "cp1252" if mess_ratio(western, 1.0) <= mess_ratio(data.decode(encoding), 1.0) else encoding


def decode(data: bytes, *, name: str = "file") -> tuple[str, TextFormat]:
    """Decode file bytes to "\n"-text and the format to write it back with."""
    raw, fmt = decode_raw(data, name=name)
    return normalise(raw), fmt


def decode_text(data: bytes) -> str:
    """The "\n"-text of a file exactly as the tools see it, for the language-server bridge
    (lsp_bridge.positions.Decode): the server is sent this text and its columns index it. Bytes that
    are no text (NUL bytes, no encoding fits) fall back to UTF-8 with replacement, as the bridge's
    own default does: they are never edited, only indexed."""
    try:
        return decode(data)[0]
    except BinaryFileError:
        text = data.decode("utf-8", errors="replace")
        return normalise(text[1:] if text.startswith("\ufeff") else text)


def _lines_with_endings(raw: str) -> tuple[list[str], list[str]]:
    contents: list[str] = []
    endings: list[str] = []
    pos = 0
    for m in _NEWLINE.finditer(raw):
        contents.append(raw[pos:m.start()])
        endings.append(m.group())
        pos = m.end()
    contents.append(raw[pos:])
    endings.append("")
    return contents, endings


def _restore_endings(text: str, original: str, default: str) -> str:
    """`text` ("\n"-separated) with each line unchanged from `original` keeping its old ending."""
    old, old_endings = _lines_with_endings(original)
    new = text.split("\n")
    if len(old) > _MAX_MIXED_LINES or len(new) > _MAX_MIXED_LINES:
        return text.replace("\n", default)
    endings = [default] * (len(new) - 1) + [""]
    matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
    for block in matcher.get_matching_blocks():
        for k in range(block.size):
            i, j = block.a + k, block.b + k
            if j < len(new) - 1 and old_endings[i]:
                endings[j] = old_endings[i]
    return "".join(line + end for line, end in zip(new, endings, strict=True))


def encode(text: str, fmt: TextFormat, *, name: str = "file", original: str | None = None) -> bytes:
    """Encode "\n"-text back to bytes in `fmt`; refuses characters the encoding cannot hold.
    For a file with mixed line endings, pass its `original` raw text to keep untouched lines'."""
    raw = normalise(text)
    if fmt.mixed and original is not None:
        raw = _restore_endings(raw, original, fmt.newline)
    elif fmt.newline != "\n":
        raw = raw.replace("\n", fmt.newline)
    try:
        return fmt.bom + raw.encode(fmt.encoding)
    except UnicodeEncodeError as exc:
        bad = exc.object[exc.start:exc.end]
        raise EncodingError(
            f"{name}: the new text has {bad!r}, which the file's encoding {fmt.encoding} cannot hold; "
            "nothing was written"
        ) from exc
