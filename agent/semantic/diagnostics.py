"""Diagnostics: the get_diagnostics answer, and the two edit checks every session runs after a
mutating tool — `ServerSync` (tell running servers which files changed) and `DiagnosticsDelta`
(report the errors and warnings the edit introduced). Neither ever starts a server."""

from __future__ import annotations

import concurrent.futures
import hashlib
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lsp_bridge.errors import BridgeError
from lsp_bridge.types import Diagnostic

from ..languages import server_language
from ..toolcontext import CheckOutcome, ToolContext
from ..workspace import Applied
from .filecache import forget_written
from .querycache import forget_queries
from .sessions import fallback_note, get_pool, notify_changed, running_sessions

if TYPE_CHECKING:
    from lsp_bridge import LspSession

SHOWN_SEVERITIES = ("error", "warning")
MAX_DELTA_FILES = 20
MAX_DELTA_SHOWN = 20
_BASELINES = "lsp.diagnostic_baselines"
_pool = concurrent.futures.ThreadPoolExecutor(max_workers=4, thread_name_prefix="codeagent-diagnostics")


def diagnostic_dict(rel: str, d: Diagnostic) -> dict[str, Any]:
    return {"path": rel, "line": d.range.start.line + 1, "column": d.range.start.character + 1,
            "end_line": d.range.end.line + 1, "end_column": d.range.end.character + 1,
            "severity": d.severity, "message": d.message, "source": d.source, "code": d.code}


def format_diagnostic(item: dict[str, Any]) -> str:
    tail = f" [{item['source']}{'/' + str(item['code']) if item['code'] else ''}]" if item.get("source") else ""
    message = " ".join(str(item["message"]).split())
    return f"{item['path']}:{item['line']}:{item['column']}: {item['severity']}: {message}{tail}"


def shown(diagnostics: Iterable[Diagnostic]) -> list[Diagnostic]:
    """Errors and warnings, in file order."""
    return sorted((d for d in diagnostics if d.severity in SHOWN_SEVERITIES), key=lambda d: d.range)


def text_key(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


@dataclass
class Baseline:
    """Diagnostics known for one exact text of a file."""

    text_hash: str
    diagnostics: list[Diagnostic]


def baselines(ctx: ToolContext) -> dict[Path, Baseline]:
    return ctx.service(_BASELINES, dict)


def remember(ctx: ToolContext, path: Path, text: str, diagnostics: list[Diagnostic]) -> None:
    """Record what the server said about this text of `path`, the 'before' of a later delta."""
    baselines(ctx)[path] = Baseline(text_key(text), diagnostics)


class ServerSync:
    """Tells every running server about the files a mutating tool just wrote, so the next request
    (and the diagnostics delta) sees the new content."""

    name = "lsp_sync"

    def check(self, ctx: ToolContext, applied: Applied) -> CheckOutcome:
        root = ctx.workspace.root
        forget_written(ctx, applied.paths)
        forget_queries(ctx)
        notify_changed(ctx, [root / p for p in applied.paths if server_language(p)])
        return CheckOutcome()


class DiagnosticsDelta:
    """After an edit, the errors and warnings that are new in the files it changed — for files a
    running server handles. Reports only; never rejects."""

    name = "diagnostics"

    def check(self, ctx: ToolContext, applied: Applied) -> CheckOutcome:
        if not ctx.settings.lsp.diagnostics_delta:
            return CheckOutcome()
        sessions = {s.spec.language: s for s in running_sessions(ctx)}
        root = ctx.workspace.root
        jobs: list[tuple[str, LspSession, str | None, str]] = []
        for rel in applied.paths:
            language = server_language(rel)
            after = applied.after.get(rel)
            if language is None or language not in sessions or after is None:
                continue
            jobs.append((rel, sessions[language], applied.before.get(rel), after))
        if not jobs:
            return CheckOutcome()
        skipped = max(0, len(jobs) - MAX_DELTA_FILES)
        jobs = jobs[:MAX_DELTA_FILES]
        wait = ctx.settings.lsp.diagnostics_wait
        futures = {_pool.submit(session.diagnostics, root / rel): (rel, before, after)
                   for rel, session, before, after in jobs}
        done, pending = concurrent.futures.wait(futures, timeout=wait)
        introduced: list[dict[str, Any]] = []
        unknown_before: list[str] = []
        failed: list[str] = []
        for future in done:
            rel, before, after = futures[future]
            try:
                now = future.result()
            except BridgeError as exc:
                failed.append(f"{rel}: {exc}")
                continue
            remember(ctx, root / rel, after, now)
            new = _introduced(ctx, root / rel, before, after, now)
            if new is None:
                unknown_before.append(rel)
                new = _on_changed_lines(before, after, now)
            introduced.extend(diagnostic_dict(rel, d) for d in new)
        late = sorted(futures[f][0] for f in pending)
        introduced.sort(key=lambda d: (d["path"], d["line"], d["column"]))
        notes = []
        if introduced:
            notes.append(f"diagnostics the edit introduced ({len(introduced)}):")
            notes.extend("  " + format_diagnostic(d) for d in introduced[:MAX_DELTA_SHOWN])
            if len(introduced) > MAX_DELTA_SHOWN:
                notes.append(f"  [... {len(introduced) - MAX_DELTA_SHOWN} more ...]")
        if late:
            notes.append(f"diagnostics not checked (server busy after {wait:g} s): {', '.join(late)}")
        data: dict[str, Any] = {"introduced": introduced, "checked": sorted(futures[f][0] for f in done)}
        if unknown_before:
            data["changed_lines_only"] = sorted(unknown_before)
        if late or skipped:
            data["not_checked"] = late + ([f"{skipped} more files"] if skipped else [])
        if failed:
            data["failed"] = failed
        return CheckOutcome(notes=notes, data=data)


def _key(d: Diagnostic) -> tuple[str, str, str | None]:
    return (d.severity, " ".join(d.message.split()), d.code)


def _introduced(ctx: ToolContext, path: Path, before: str | None, after: str,
                now: list[Diagnostic]) -> list[Diagnostic] | None:
    """New errors/warnings compared with the diagnostics known for the text before the edit
    (matched by severity, message and code, as many times as they occurred); None when nothing
    is known of the earlier text."""
    current = shown(now)
    if before is None:
        return current
    base = baselines(ctx).get(path)
    if base is None or base.text_hash != text_key(before):
        return None
    remaining = Counter(_key(d) for d in shown(base.diagnostics))
    out = []
    for d in current:
        if remaining[_key(d)] > 0:
            remaining[_key(d)] -= 1
        else:
            out.append(d)
    return out


def _on_changed_lines(before: str | None, after: str, now: list[Diagnostic]) -> list[Diagnostic]:
    """Without a 'before', the best guess: errors and warnings on the lines the edit touched."""
    import difflib

    old = [] if before is None else before.split("\n")
    new = after.split("\n")
    touched: set[int] = set()
    for tag, _i1, _i2, j1, j2 in difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes():
        if tag != "equal":
            touched.update(range(j1, max(j2, j1 + 1)))
    return [d for d in shown(now) if any(line in touched for line in range(d.range.start.line, d.range.end.line + 1))]


def file_diagnostics(ctx: ToolContext, file_path: str) -> tuple[str, str, list[Diagnostic]]:
    """(workspace-relative path, its text, every diagnostic the server has for it now)."""
    from ..errors import ToolFailure
    from .sessions import UNAVAILABLE, server_unavailable, session_for

    ws = ctx.workspace
    real = ws.resolve(file_path)
    doc = ws.read(real)
    language = server_language(real)
    if language is None:
        raise ToolFailure(f"{doc.path}: no language server handles this kind of file (Python, TypeScript, JavaScript)")
    try:
        found = session_for(ctx, language).diagnostics(real)
    except UNAVAILABLE as exc:
        raise ToolFailure(f"get_diagnostics {doc.path}: {server_unavailable(exc)}") from exc
    except BridgeError as exc:  # the registry turns it into the result; say which file
        exc.add_note(doc.path)
        raise
    return doc.path, doc.text, found


def project_config_diagnostics(ctx: ToolContext, rel: str) -> tuple[str | None, list[dict[str, Any]]] | None:
    """For a file of a language whose server judged the workspace's config file (tsconfig.json):
    the fallback note (or None) and that file's diagnostics as result dicts; None otherwise."""
    language = server_language(rel)
    if language is None:
        return None
    pool = get_pool(ctx)
    found = pool.config_diagnostics(ctx.workspace.root, language)
    note = fallback_note(ctx, language)
    if not found and not note:
        return None
    return note, [diagnostic_dict(ctx.workspace.rel(d.path), d) for d in found]
