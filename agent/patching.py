"""Unified diffs: parse (with unidiff) and apply hunks to text, checking every hunk first.

Pure text in, text out: no file access here (tools/edit.py reads and commits through the
workspace). Hunks are applied like `patch` does: at the stated line if the lines match there,
else at the nearest place where they do (no content fuzz, except trailing whitespace).
A failure names the file and the hunk and shows what was expected and what is there.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field

import unidiff
from unidiff.constants import RE_PATCH_FILE_PREFIX

_HUNK_HEADER = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@(.*)$")
_LOOSE_HEADER = re.compile(r"^@@(?: .*)?@@(.*)$")
DEV_NULL = "/dev/null"


class PatchError(Exception):
    """The patch cannot be parsed or does not apply; the message says where and why."""


@dataclass(slots=True)
class Hunk:
    index: int  # 1-based within its file
    header: str
    source_start: int  # 1-based line; 0 for "insert at the top"
    source: list[str]  # line contents, no "\n"
    target: list[str]
    source_no_eol: bool = False  # "\ No newline at end of file" after the last old line
    target_no_eol: bool = False
    position_known: bool = True


@dataclass(slots=True)
class FilePatch:
    source: str | None  # None: the patch creates the file
    target: str | None  # None: the patch deletes the file
    hunks: list[Hunk] = field(default_factory=list)
    rename: bool = False  # git "rename from/to": the file moves from source to target

    @property
    def name(self) -> str:
        return self.target or self.source or "?"


# ----------------------------------------------------------------- parsing


def _strip_fences(text: str) -> str:
    lines = text.replace("\r\n", "\n").split("\n")
    while lines and not lines[0].strip():
        lines.pop(0)
    if lines and lines[0].startswith("```"):
        lines.pop(0)
        while lines and not lines[-1].strip():
            lines.pop()
        if lines and lines[-1].startswith("```"):
            lines.pop()
    return "\n".join(lines) + "\n"


def _recount(text: str) -> tuple[str, set[int], list[str]]:
    """Rewrite hunk headers with the line counts their bodies really have (models often get
    them wrong) and give headers without numbers a position. Returns the text, the global
    numbers of the hunks whose position was not given, and each hunk's header as written."""
    lines = text.split("\n")
    out: list[str] = []
    unknown: set[int] = set()
    headers: list[str] = []
    hunk_no = 0
    i = 0
    while i < len(lines):
        line = lines[i]
        m = _HUNK_HEADER.match(line)
        loose = None if m else _LOOSE_HEADER.match(line)
        if not (m or loose):
            out.append(line)
            i += 1
            continue
        body: list[str] = []
        j = i + 1
        while j < len(lines):
            nxt = lines[j]
            if nxt.startswith(("@@", "diff --git ")) or (
                nxt.startswith("--- ") and j + 1 < len(lines) and lines[j + 1].startswith("+++ ")
            ):
                break
            if nxt == "":
                nxt = " "
            elif nxt[0] not in " +-\\":
                break
            body.append(nxt)
            j += 1
        while body and lines[j - 1] == "":
            body.pop()  # blank lines after the hunk, not blank context lines
            j -= 1
        src = sum(1 for b in body if b[0] in " -")
        tgt = sum(1 for b in body if b[0] in " +")
        if m:
            start_a, start_b, rest = int(m.group(1)), int(m.group(3)), m.group(5)
        else:
            assert loose is not None
            start_a = start_b = 1 if src else 0
            rest = loose.group(1)
            unknown.add(hunk_no)
        if src == 0 and m is None:
            start_a = 0
        out.append(f"@@ -{start_a},{src} +{start_b},{tgt} @@{rest}")
        headers.append(line.strip())
        out.extend(body)
        hunk_no += 1
        i = j
    return "\n".join(out), unknown, headers


def _clean_path(raw: str | None, other: str | None) -> str | None:
    if raw is None or raw == DEV_NULL:
        return None
    path = raw.split("\t")[0].strip()
    if path.startswith('"') and path.endswith('"'):
        path = path[1:-1]
    other_prefixed = other in (None, DEV_NULL) or bool(RE_PATCH_FILE_PREFIX.match(other or ""))
    if RE_PATCH_FILE_PREFIX.match(path) and other_prefixed:
        path = path[2:]
    return path


def _hunks(pf: unidiff.PatchedFile, unknown: set[int], headers: list[str], counter: list[int]) -> list[Hunk]:
    hunks = []
    for index, h in enumerate(pf, 1):
        source: list[str] = []
        target: list[str] = []
        written = headers[counter[0]] if counter[0] < len(headers) else ""
        header = written if written.startswith("@@") else f"@@ -{h.source_start},{h.source_length} " \
            f"+{h.target_start},{h.target_length} @@"
        header = header if len(header) <= 80 else header[:77] + "..."
        hunk = Hunk(index, header, h.source_start, source, target, position_known=counter[0] not in unknown)
        counter[0] += 1
        previous = None
        for line in h:
            value = line.value[:-1] if line.value.endswith("\n") else line.value
            if line.line_type == "\\":
                if previous in (" ", "-"):
                    hunk.source_no_eol = True
                if previous in (" ", "+"):
                    hunk.target_no_eol = True
                continue
            previous = line.line_type
            if line.line_type in (" ", "-"):
                source.append(value)
            if line.line_type in (" ", "+"):
                target.append(value)
        hunks.append(hunk)
    return hunks


def parse_patch(text: str) -> list[FilePatch]:
    """The file patches of a unified diff (git style or plain)."""
    text = _strip_fences(text)
    if "*** Begin Patch" in text:
        raise PatchError("this is not a unified diff ('*** Begin Patch' format); give a unified diff with "
                         "'--- a/path', '+++ b/path' and '@@ -l,n +l,n @@' hunks")
    fixed, unknown, headers = _recount(text)
    try:
        patch = unidiff.PatchSet(fixed)
    except unidiff.UnidiffParseError as exc:
        raise PatchError(f"the patch cannot be parsed: {exc}") from exc
    if len(patch) == 0:
        raise PatchError("no file changes found: expected '--- a/path' and '+++ b/path' headers followed by "
                         "'@@ -l,n +l,n @@' hunks")
    files: list[FilePatch] = []
    counter = [0]
    for pf in patch:
        if pf.is_binary_file:
            raise PatchError(f"{pf.path}: binary patches are not supported")
        source = _clean_path(pf.source_file, pf.target_file)
        target = _clean_path(pf.target_file, pf.source_file)
        if pf.is_added_file:
            source = None
        if pf.is_removed_file:
            target = None
        if source is None and target is None:
            raise PatchError("a file diff has /dev/null on both sides")
        files.append(FilePatch(source, target, _hunks(pf, unknown, headers, counter), rename=pf.is_rename))
    return files


# ----------------------------------------------------------------- applying


@dataclass(slots=True)
class Lines:
    """A text as line contents plus whether it ends with a newline."""

    lines: list[str]
    eol: bool = True

    @classmethod
    def of(cls, text: str) -> Lines:
        if text == "":
            return cls([], True)
        parts = text.split("\n")
        if parts[-1] == "":
            return cls(parts[:-1], True)
        return cls(parts, False)

    def text(self) -> str:
        if not self.lines:
            return ""
        return "\n".join(self.lines) + ("\n" if self.eol else "")


def _matches_at(lines: list[str], at: int, want: list[str], loose: bool) -> bool:
    if at < 0 or at + len(want) > len(lines):
        return False
    if loose:
        return all(a.rstrip() == b.rstrip() for a, b in zip(lines[at:at + len(want)], want, strict=True))
    return lines[at:at + len(want)] == want


def _find(lines: list[str], hunk: Hunk, expected: int, floor: int) -> tuple[int, bool] | None:
    """Where the hunk's old lines are: the nearest exact match to `expected` at or after
    `floor`, else the nearest match ignoring trailing whitespace."""
    if not hunk.source:
        return (min(max(expected, floor), len(lines)), False)
    for loose in (False, True):
        places = [at for at in range(floor, len(lines) - len(hunk.source) + 1)
                  if _matches_at(lines, at, hunk.source, loose)]
        if not places:
            continue
        if not hunk.position_known and len(places) > 1:
            raise PatchError(f"its lines occur {len(places)} times (lines {', '.join(str(p + 1) for p in places[:10])}) "
                             "and the hunk header gives no line numbers; add context or line numbers")
        return (min(places, key=lambda at: (abs(at - expected), at)), loose)
    return None


def _closest(lines: list[str], want: list[str]) -> str:
    if not want or not lines:
        return "(the file is empty)" if not lines else ""
    key = want[0].strip() or (want[1].strip() if len(want) > 1 else "")
    best, best_score = 0, -1.0
    for i, line in enumerate(lines):
        sm = difflib.SequenceMatcher(None, line.strip(), key)
        if sm.real_quick_ratio() <= best_score or sm.quick_ratio() <= best_score:
            continue
        score = sm.ratio()
        if score > best_score:
            best, best_score = i, score
    shown = lines[best:best + min(len(want), 8)]
    return f"closest text in the file (line {best + 1}):\n" + "\n".join(f"  {line}" for line in shown)


def _describe(name: str, hunk: Hunk, total: int, why: str, lines: list[str]) -> str:
    expected = "\n".join(f"  {line}" for line in hunk.source[:12])
    more = f"\n  [... {len(hunk.source) - 12} more lines]" if len(hunk.source) > 12 else ""
    closest = _closest(lines, hunk.source)
    return (f"{name}: hunk {hunk.index} of {total} ({hunk.header}) {why}\n"
            f"expected these lines:\n{expected}{more}\n{closest}").rstrip()


def apply_hunks(name: str, text: str, hunks: list[Hunk]) -> tuple[str, list[str]]:
    """Apply every hunk to `text`; returns the new text and notes (offsets, whitespace)."""
    doc = Lines.of(text)
    lines = doc.lines
    notes: list[str] = []
    out: list[str] = []
    cursor = 0  # lines before this are done
    shift = 0  # how far the hunks so far landed from their stated lines
    touched_end = False
    eol = doc.eol
    for hunk in hunks:
        stated = hunk.source_start - 1 if hunk.source else hunk.source_start
        expected = max(stated + shift, 0)
        try:
            found = _find(lines, hunk, expected, cursor)
        except PatchError as exc:
            raise PatchError(_describe(name, hunk, len(hunks), str(exc), lines)) from None
        if found is None:
            why = "does not apply: its old lines are not in the file" + (
                " (after the previous hunk)" if cursor else "")
            raise PatchError(_describe(name, hunk, len(hunks), why, lines))
        at, loose = found
        if hunk.position_known and hunk.source and at != stated:
            notes.append(f"{name}: hunk {hunk.index} applied at line {at + 1} (stated {stated + 1})")
        if loose:
            notes.append(f"{name}: hunk {hunk.index} matched only when ignoring trailing whitespace")
        out.extend(lines[cursor:at])
        out.extend(hunk.target)
        cursor = at + len(hunk.source)
        shift = at - stated
        if cursor >= len(lines):
            touched_end = True
            if hunk.target_no_eol:
                eol = False
            elif hunk.source_no_eol:
                eol = True
    out.extend(lines[cursor:])
    if not lines and touched_end:
        eol = not hunks[-1].target_no_eol if hunks else True
    return Lines(out, eol).text(), notes
