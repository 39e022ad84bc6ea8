"""Turning one source file into what the index stores. Runs in worker processes too, so it
imports only the parsing side of the package."""

from __future__ import annotations

import hashlib
import json
import os
import time
from dataclasses import dataclass

from ..textcodec import decode
from .languages import encode, error_nodes, language_for, parse_bytes
from .name_match import normalize
from .symbols import Entry, outline_entries

_BOM = b"\xef\xbb\xbf"


@dataclass(slots=True)
class FileRecord:
    """What the index knows of one file, and the stat key that says whether it is still true."""

    path: str  # workspace-relative, "/"-separated
    size: int
    mtime_ns: int
    inode: int
    digest: str  # blake2b of the bytes, to settle racy timestamps
    checked_ns: int  # wall clock when the stat was taken
    language: str
    errors: int = 0
    skipped: str | None = None  # why the file was not parsed (too large, binary, unreadable)
    payload: str = "[]"  # the entries as JSON (cheap to pass between processes); "" once stored
    names: tuple[str, ...] = ()  # the distinct normalized names of the entries (the store's lookup keys)

    def entries(self) -> list[Entry]:
        return decode_entries(self.payload)

    def same_stat(self, st: os.stat_result) -> bool:
        return (self.size, self.mtime_ns, self.inode) == (st.st_size, st.st_mtime_ns, st.st_ino)


# Entries are flat tuples of str and int: the encoder's check for circular references only costs.
_encode = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), check_circular=False).encode


def encode_entries(entries: list[Entry]) -> str:
    return _encode(entries)


def decode_entries(payload: str | None) -> list[Entry]:
    return [Entry(*e) for e in json.loads(payload)] if payload else []


def digest_of(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=16).hexdigest()


def source_bytes(data: bytes, name: str) -> bytes:
    """The UTF-8 bytes to parse: the file itself when it is UTF-8 (BOM dropped), else re-encoded
    from whatever encoding the workspace detects. Raises for binary files."""
    if data.startswith(_BOM):
        data = data[len(_BOM):]
    if not data.isascii():  # ASCII is UTF-8 already (and checked much faster)
        try:
            data.decode("utf-8")
        except UnicodeDecodeError:
            text, _fmt = decode(data, name=name)
            return encode(text)
    return data.replace(b"\r\n", b"\n") if b"\r\n" in data else data


def extract(abs_path: str, rel: str, max_bytes: int, st: os.stat_result | None = None,
            checked_ns: int | None = None) -> FileRecord | None:
    """Parse one file for the index; None if it vanished or has no supported language. `st` is
    the file's stat when the caller has it (the walk's), and `checked_ns` a wall-clock time no
    later than that stat (a record is only as fresh as the stat it keeps)."""
    language = language_for(rel)
    if language is None:
        return None
    if st is None:
        try:
            st = os.stat(abs_path)
        except OSError:
            return None
        checked_ns = time.time_ns()
    record = FileRecord(rel, st.st_size, st.st_mtime_ns, st.st_ino, "",
                        time.time_ns() if checked_ns is None else checked_ns, language)
    if st.st_size > max_bytes:
        record.skipped = f"larger than {max_bytes} bytes"
        return record
    try:
        with open(abs_path, "rb") as fh:
            data = fh.read(max_bytes + 1)
    except FileNotFoundError:
        return None
    except OSError as exc:
        record.skipped = f"unreadable: {exc.strerror or exc}"
        return record
    record.digest = digest_of(data)
    try:
        source = source_bytes(data, rel)
    except Exception:  # binary or undecodable: nothing to index, and never a crash
        record.skipped = "not text"
        return record
    tree = parse_bytes(source, language)
    record.errors = len(error_nodes(tree))
    entries = outline_entries(tree, source, language)
    record.payload = encode_entries(entries)
    record.names = tuple({normalize(name) for name in {e.name for e in entries}})  # (a set: in no order)
    return record


Job = tuple[str, str, os.stat_result]  # (absolute path, workspace-relative path, stat from the walk)


def extract_many(jobs: list[Job], max_bytes: int, checked_ns: int) -> list[FileRecord]:
    """A worker process's unit of work: several files, to keep inter-process traffic low."""
    out = []
    for abs_path, rel, st in jobs:
        record = extract(abs_path, rel, max_bytes, st, checked_ns)
        if record is not None:
            out.append(record)
    return out
