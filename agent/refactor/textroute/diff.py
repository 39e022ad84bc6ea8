"""Two routes' results compared: the semantic plan's texts (its dry-run unified diff applied to the
files) and the text route's, each as hunks against the same original. A hunk only one route has
is a site the other misses (or changes when it should not); hunks over the same lines that differ
are the same site done differently. Hunks that only move blank lines are left out."""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass

Files = dict[str, str]
_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")


def apply_unified(diff: str, before: Files) -> Files:
    """The texts a unified diff (commit.unified_diff's form, several files) turns `before` into."""
    out: Files = {}
    delta: dict[str, int] = {}  # lines added minus removed by the file's hunks so far
    lines = _keep_ends(diff)
    i, path = 0, ""
    while i < len(lines):
        line = lines[i]
        if line.startswith("+++ "):
            target = line[4:].rstrip("\n")
            src = lines[i - 1][4:].rstrip("\n") if i > 0 and lines[i - 1].startswith("--- ") else target
            path = (target if target != "/dev/null" else src)[2:]
            out[path] = before.get(path, "") if src != "/dev/null" else ""
            i += 1
            continue
        m = _HUNK.match(line)
        if m is None or not path:
            i += 1
            continue
        old = _keep_ends(out[path])
        start = int(m[1]) - (0 if m[2] == "0" else 1) + delta.get(path, 0)
        count = int(m[2]) if m[2] is not None else 1
        new_count = int(m[4]) if m[4] is not None else 1
        new: list[str] = []
        seen_old = seen_new = 0
        i += 1
        while i < len(lines) and (seen_old < count or seen_new < new_count or lines[i].startswith("\\")):
            body = lines[i]
            if body.startswith("\\"):
                if new and lines[i - 1][:1] in (" ", "+"):
                    new[-1] = new[-1].rstrip("\n")
            elif body[:1] in (" ", "+"):
                new.append(body[1:])
                seen_new += 1
                seen_old += body[:1] == " "
            else:
                seen_old += 1
            i += 1
        out[path] = "".join(old[:start] + new + old[start + count:])
        delta[path] = delta.get(path, 0) + len(new) - count
    return out


def _keep_ends(text: str) -> list[str]:
    """Lines with their "\n" kept; only "\n" ends a line (as in commit.unified_diff)."""
    parts = [line + "\n" for line in text.split("\n")]
    parts[-1] = parts[-1][:-1]
    return parts if parts[-1] else parts[:-1]


@dataclass(frozen=True, slots=True)
class Hunk:
    path: str
    start: int  # 0-based first original line replaced
    end: int  # original lines [start, end) replaced (start == end: an insertion before start)
    new: tuple[str, ...]

    def overlaps(self, other: Hunk) -> bool:
        return self.path == other.path and self.start <= max(other.end, other.start + 1) - 1 \
            and other.start <= max(self.end, self.start + 1) - 1


def hunks(path: str, before: str, after: str) -> list[Hunk]:
    a, b = before.split("\n"), after.split("\n")
    out: list[Hunk] = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if tag == "equal":
            continue
        if all(not x.strip() for x in a[i1:i2] + b[j1:j2]):
            continue  # only blank lines differ
        if tag == "replace" and i2 - i1 == j2 - j1:  # line for line: one site per line, compared alone
            out.extend(Hunk(path, i1 + k, i1 + k + 1, (b[j1 + k],)) for k in range(i2 - i1) if a[i1 + k] != b[j1 + k])
        else:
            out.append(Hunk(path, i1, i2, tuple(b[j1:j2])))
    return out


def compare_texts(before: Files, text_after: Files, semantic_after: Files) -> dict[str, list[dict[str, object]]]:
    """{"missed": [...], "wrong": [...], "different": [...]} of the text route against the semantic
    one, each item {"path", "line" (1-based), "old", "text_route", "codeagent"} (lists of lines)."""
    text_h = {h for p, t in text_after.items() for h in hunks(p, before.get(p, ""), t)}
    sem_h = {h for p, t in semantic_after.items() for h in hunks(p, before.get(p, ""), t)}
    same = text_h & sem_h
    text_only, sem_only = sorted(text_h - same, key=_key), sorted(sem_h - same, key=_key)
    out: dict[str, list[dict[str, object]]] = {"missed": [], "wrong": [], "different": []}
    paired: set[Hunk] = set()
    for s in sem_only:
        partners = [t for t in text_only if t.overlaps(s)]
        paired.update(partners)
        old = before.get(s.path, "").split("\n")
        if partners:
            out["different"].append(_item(s, old, [line for t in partners for line in t.new], list(s.new)))
        else:
            out["missed"].append(_item(s, old, None, list(s.new)))
    for t in text_only:
        if t not in paired:
            out["wrong"].append(_item(t, before.get(t.path, "").split("\n"), list(t.new), None))
    return out


def _key(h: Hunk) -> tuple[str, int, int]:
    return (h.path, h.start, h.end)


def _item(h: Hunk, old: list[str], text_route: list[str] | None, codeagent: list[str] | None) -> dict[str, object]:
    return {"path": h.path, "line": h.start + 1, "old": old[h.start:h.end],
            "text_route": text_route if text_route is not None else old[h.start:h.end],
            "codeagent": codeagent if codeagent is not None else old[h.start:h.end]}
