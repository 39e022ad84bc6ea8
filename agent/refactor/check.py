"""A refactoring's `--check`: the errors the language server reports in the changed files after
the edit that it did not report before, waited for up to a stated timeout (a 30-file rename on a
busy 2-core machine takes a while to re-check; "server busy after 5 s" is no answer).

    before = baseline(ctx, paths, timeout)     # before anything is written
    ...commit...
    report = recheck(ctx, applied, before, timeout)

`report.failed` is true when the edit introduced errors or some file could not be checked in time:
the caller undoes the edit unless forced. Warnings are reported, never fail the check.
"""

from __future__ import annotations

import concurrent.futures
import time
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lsp_bridge import Diagnostic, LspSession
from lsp_bridge.errors import BridgeError

from ..languages import server_language
from ..semantic.diagnostics import diagnostic_dict, format_diagnostic, remember, shown
from ..semantic.sessions import running_sessions
from ..toolcontext import ToolContext
from ..workspace import Applied

MAX_SHOWN = 30
Key = tuple[str, str, str | int | None]


NO_SERVER = "no language server runs for it"


@dataclass
class CheckReport:
    """What the check found: `introduced` errors and warnings (dicts of diagnostic_dict), the files
    it checked, and those it could not (no server, or no answer within `timeout` seconds)."""

    timeout: float
    checked: list[str] = field(default_factory=list)
    introduced: list[dict[str, Any]] = field(default_factory=list)
    not_checked: list[str] = field(default_factory=list)  # "path: why"
    # files of a language no server runs for (a syntactic rename): nothing can check them, which is
    # said, not counted as a failed check (the caller chose the server-less route)
    no_server: list[str] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def errors(self) -> list[dict[str, Any]]:
        return [d for d in self.introduced if d["severity"] == "error"]

    @property
    def failed(self) -> bool:
        return bool(self.errors or self.not_checked)

    def lines(self) -> list[str]:
        out: list[str] = []
        if self.introduced:
            errors = len(self.errors)
            out.append(f"the check found {errors} new error(s) and {len(self.introduced) - errors} new warning(s) "
                       f"in {len(self.checked)} checked file(s):")
            out.extend("  " + format_diagnostic(d) for d in self.introduced[:MAX_SHOWN])
            if len(self.introduced) > MAX_SHOWN:
                out.append(f"  [... {len(self.introduced) - MAX_SHOWN} more: data `diagnostics.introduced`]")
        if self.not_checked:
            out.append(f"not checked ({len(self.not_checked)} file(s)):")
            out.extend(f"  {why}" for why in self.not_checked[:MAX_SHOWN])
            if len(self.not_checked) > MAX_SHOWN:
                out.append(f"  [... {len(self.not_checked) - MAX_SHOWN} more: data `diagnostics.not_checked`]")
        if self.no_server:
            out.append(f"not checked: no language server runs for {len(self.no_server)} file(s) "
                       f"({', '.join(self.no_server[:MAX_SHOWN])}{', ...' if len(self.no_server) > MAX_SHOWN else ''})")
        if not self.errors and not self.not_checked:
            out.append(f"no new errors in {len(self.checked)} checked file(s) ({self.seconds:.1f} s)")
        return out

    def to_dict(self) -> dict[str, Any]:
        return {"checked": self.checked, "introduced": self.introduced, "not_checked": self.not_checked,
                "no_server": self.no_server, "timeout": self.timeout, "seconds": round(self.seconds, 2), "failed": self.failed}


def baseline(ctx: ToolContext, paths: Iterable[str], timeout: float) -> dict[str, list[Diagnostic] | str]:
    """The server's diagnostics of each file as it is now (before the edit): path -> diagnostics,
    or the reason there are none (no server runs for it, no answer in time)."""
    return _ask(ctx, [p for p in paths if (ctx.workspace.root / p).exists()], timeout)


def recheck(ctx: ToolContext, applied: Applied, before: dict[str, list[Diagnostic] | str],
            timeout: float) -> CheckReport:
    """The diagnostics of the written files compared with `before` (see the module docstring)."""
    started = time.monotonic()
    report = CheckReport(timeout)
    written = [p for p in applied.paths if applied.after.get(p) is not None and server_language(p)]
    now = _ask(ctx, written, timeout)
    for rel in written:
        after = now.get(rel)
        old = before.get(rel, [])  # a created file had no diagnostics before
        if after == NO_SERVER:
            report.no_server.append(rel)
            continue
        if isinstance(after, str):
            report.not_checked.append(f"{rel}: {after}")
            continue
        if isinstance(old, str):
            report.not_checked.append(f"{rel}: nothing to compare with ({old} before the edit)")
            continue
        assert after is not None
        text = applied.after.get(rel)
        if text is not None:
            remember(ctx, ctx.workspace.root / rel, text, after)
        report.checked.append(rel)
        report.introduced.extend(diagnostic_dict(rel, d) for d in _new(old, after))
    report.introduced.sort(key=lambda d: (d["path"], d["line"], d["column"]))
    report.seconds = time.monotonic() - started
    return report


def _key(d: Diagnostic) -> Key:
    return (d.severity, " ".join(d.message.split()), d.code)


def _new(before: list[Diagnostic], after: list[Diagnostic]) -> list[Diagnostic]:
    """The errors and warnings of `after` that `before` did not have (as many times as it had them)."""
    remaining = Counter(_key(d) for d in shown(before))
    out = []
    for d in shown(after):
        if remaining[_key(d)] > 0:
            remaining[_key(d)] -= 1
        else:
            out.append(d)
    return out


def _ask(ctx: ToolContext, paths: list[str], timeout: float) -> dict[str, list[Diagnostic] | str]:
    sessions = {s.spec.language: s for s in running_sessions(ctx)}
    out: dict[str, list[Diagnostic] | str] = {}
    jobs: dict[str, LspSession] = {}
    for rel in paths:
        language = server_language(rel)
        if language is None or language not in sessions:
            out[rel] = NO_SERVER
        else:
            jobs[rel] = sessions[language]
    if not jobs:
        return out
    root = ctx.workspace.root
    pool = concurrent.futures.ThreadPoolExecutor(max_workers=min(4, len(jobs)), thread_name_prefix="codeagent-check")
    try:
        futures = {pool.submit(session.diagnostics, Path(root / rel)): rel for rel, session in jobs.items()}
        done, pending = concurrent.futures.wait(futures, timeout=timeout)
        for future in done:
            try:
                out[futures[future]] = future.result()
            except BridgeError as exc:
                out[futures[future]] = f"the server failed: {exc}"
        for future in pending:
            future.cancel()
            out[futures[future]] = f"the server had not answered after {timeout:g} s (lsp.check_timeout)"
    finally:
        pool.shutdown(wait=False, cancel_futures=True)
    return out
