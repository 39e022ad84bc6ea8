"""Edit tools: replace_in_file (exact text) and apply_patch (unified diff over many files)."""

from __future__ import annotations

import difflib
import re

from pydantic import BaseModel, Field

from ..commit import commit
from ..errors import ToolFailure, WorkspaceError
from ..patching import FilePatch, PatchError, apply_hunks, parse_patch
from ..registry import tool
from ..result import FileEdit, ToolResult
from ..textcodec import normalise
from ..toolcontext import ToolContext
from ..workspace import TextDoc, Workspace

MAX_LISTED = 20
FORCE_DESCRIPTION = "Keep the edit even if the syntax check finds new errors in the result."


class ReplaceInFileInput(BaseModel):
    file_path: str = Field(description="Path of the file to edit, relative to the workspace root.")
    old_text: str = Field(description="The exact text to replace, including indentation; must occur exactly once "
                          "unless replace_all is true. Include surrounding lines to make it unique.")
    new_text: str = Field(description="The text to put in its place (may be empty to delete old_text).")
    replace_all: bool = Field(False, description="Replace every occurrence instead of requiring exactly one.")
    force: bool = Field(False, description=FORCE_DESCRIPTION)


def _line_of(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


def _occurrences(text: str, old: str) -> list[int]:
    found, at = [], text.find(old)
    while at != -1:
        found.append(at)
        at = text.find(old, at + len(old))
    return found


def _no_match_hint(doc: TextDoc, old: str) -> str:
    """Why old_text was not found: whitespace differences, or the closest lines."""
    squash = re.compile(r"\s+")
    flat_old = squash.sub(" ", old).strip()
    lines = doc.text.split("\n")
    if flat_old:
        n = old.count("\n") + 1
        hits = [i + 1 for i in range(len(lines)) if squash.sub(" ", "\n".join(lines[i:i + n])).strip() == flat_old]
        if hits:
            return (f"old_text matches only if whitespace/indentation is ignored, at line(s) "
                    f"{', '.join(map(str, hits[:MAX_LISTED]))}; copy the exact text from read_file")
    first = next((line.strip() for line in old.split("\n") if line.strip()), "")
    scored = []
    for i, line in enumerate(lines):
        sm = difflib.SequenceMatcher(None, line.strip(), first)
        if sm.real_quick_ratio() >= 0.6 and sm.quick_ratio() >= 0.6 and (score := sm.ratio()) >= 0.6:
            scored.append((score, i))
    if not scored:
        return "no similar lines either; read the file again to see its current content"
    best = sorted(scored, key=lambda p: (-p[0], p[1]))[:3]
    shown = "\n".join(f"  {i + 1}: {lines[i][:200]}" for _, i in sorted(best, key=lambda p: p[1]))
    return f"the closest lines are:\n{shown}"


@tool(name="replace_in_file", model=ReplaceInFileInput, mutating=True)
def replace_in_file(ctx: ToolContext, args: ReplaceInFileInput) -> ToolResult:
    """Replace an exact piece of text in a file. old_text must occur exactly once (or pass
    replace_all); otherwise nothing is written and the error gives the line numbers of the
    matches or the closest lines. The file keeps its encoding and line endings."""
    doc = ctx.workspace.read(args.file_path)
    old, new = normalise(args.old_text), normalise(args.new_text)
    if not old:
        raise ToolFailure("old_text is empty; to create or overwrite a whole file use write_file")
    if old == new:
        raise ToolFailure("old_text and new_text are the same; nothing to change")
    found = _occurrences(doc.text, old)
    if not found:
        raise ToolFailure(f"{doc.path}: old_text was not found; nothing was written. {_no_match_hint(doc, old)}")
    if len(found) > 1 and not args.replace_all:
        listed = ", ".join(str(_line_of(doc.text, at)) for at in found[:MAX_LISTED])
        more = f" and {len(found) - MAX_LISTED} more" if len(found) > MAX_LISTED else ""
        raise ToolFailure(
            f"{doc.path}: old_text occurs {len(found)} times (at lines {listed}{more}); nothing was written. "
            "Include more surrounding lines to make it unique, or pass replace_all=true."
        )
    new_text = doc.text.replace(old, new) if args.replace_all else doc.text.replace(old, new, 1)
    lines = sorted({_line_of(doc.text, at) for at in found})
    n = len(found)
    summary = f"replaced {n} occurrence{'s' if n > 1 else ''} in {doc.path} (line{'s' if n > 1 else ''} " \
              f"{', '.join(map(str, lines[:MAX_LISTED]))})"
    return commit(ctx, [ctx.workspace.edit_for(doc, new_text)], operation=f"replace_in_file {doc.path}",
                  summary=summary, force=args.force)


class ApplyPatchInput(BaseModel):
    patch: str = Field(description="A unified diff ('--- a/path', '+++ b/path', '@@ -l,n +l,n @@' hunks) over one "
                       "or more files; '--- /dev/null' creates a file, '+++ /dev/null' deletes one.")
    force: bool = Field(False, description=FORCE_DESCRIPTION)


def _read_existing(ws: Workspace, path: str, fp: FilePatch, errors: list[str]) -> TextDoc | None:
    try:
        return ws.read(path)
    except WorkspaceError as exc:
        errors.append(f"{fp.name}: {exc}")
        return None


def _plan_file(ws: Workspace, fp: FilePatch, errors: list[str], notes: list[str]) -> list[FileEdit]:
    """The edits for one file of the patch, or none (with the reason in `errors`)."""
    try:
        for path in (fp.source, fp.target):
            if path is not None:
                ws.resolve(path, for_write=True)
    except WorkspaceError as exc:
        errors.append(f"{fp.name}: {exc}")
        return []
    if fp.source is None:  # a new file
        assert fp.target is not None
        if ws.exists(fp.target):
            errors.append(f"{fp.target}: the patch creates this file, but it already exists")
            return []
        try:
            text, _ = apply_hunks(fp.target, "", fp.hunks)
        except PatchError as exc:
            errors.append(str(exc))
            return []
        return [FileEdit(ws.rel(fp.target), text, old_hash=None)]
    source = fp.source
    if not fp.rename and fp.target is not None and fp.target != source and not ws.exists(source):
        source = fp.target  # a plain `diff -u old new`: the file to patch is the one that exists
    doc = _read_existing(ws, source, fp, errors)
    if doc is None:
        return []
    try:
        text, more = apply_hunks(doc.path, doc.text, fp.hunks)
    except PatchError as exc:
        errors.append(str(exc))
        return []
    notes.extend(more)
    if fp.target is None:
        if text.strip():
            errors.append(f"{doc.path}: the patch deletes this file, but it has lines the patch does not remove")
            return []
        return [FileEdit(doc.path, None, doc.hash)]
    target = ws.rel(fp.target)
    if target == doc.path or not fp.rename:
        return [FileEdit(doc.path, text, doc.hash)]
    if ws.exists(target):
        errors.append(f"{fp.source}: the patch renames it to {target}, which already exists")
        return []
    return [FileEdit(doc.path, None, doc.hash), FileEdit(target, text, old_hash=None)]


@tool(name="apply_patch", model=ApplyPatchInput, mutating=True)
def apply_patch(ctx: ToolContext, args: ApplyPatchInput) -> ToolResult:
    """Apply a unified diff to one or many files, including new and deleted files. Every hunk
    of every file is checked first: if any fails, nothing is written and the error names the
    file and hunk. Hunks may land a few lines off their stated position; context must match."""
    ws = ctx.workspace
    try:
        files = parse_patch(args.patch)
    except PatchError as exc:
        raise ToolFailure(f"apply_patch: {exc}") from exc
    errors: list[str] = []
    notes: list[str] = []
    edits: list[FileEdit] = []
    seen: set[str] = set()
    for fp in files:
        for path in (fp.source, fp.target):
            if path is not None and path in seen:
                errors.append(f"{path}: appears more than once in the patch; give all its hunks in one file diff")
        seen.update(p for p in (fp.source, fp.target) if p is not None)
        edits.extend(_plan_file(ws, fp, errors, notes))
    if errors:
        shown = "\n\n".join(errors[:10]) + (f"\n\n[... {len(errors) - 10} more failures]" if len(errors) > 10 else "")
        raise ToolFailure(f"apply_patch: nothing was written; {len(errors)} of {len(files)} file(s) failed.\n\n{shown}")
    names = sorted({e.path for e in edits})
    summary = f"patched {len(names)} file{'s' if len(names) != 1 else ''}: {', '.join(names[:MAX_LISTED])}"
    if notes:
        summary += "\n" + "\n".join(notes[:MAX_LISTED])
    return commit(ctx, edits, operation="apply_patch " + ", ".join(names[:5]), summary=summary, force=args.force)
