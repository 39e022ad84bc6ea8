"""The `rename_symbol` tool's work: plan (symbol.py), check and turn the plan into the workspace's
edits (refactor/commit.py), then show it (dry run) or commit it through the journal and the edit
checks. The result's `sites`, `reasons` and `unconfirmed` are the plan's, bounded."""

from __future__ import annotations

from typing import Any

from ...commit import MAX_DIFF_CHARS, changed_lines, unified_diff
from ...result import ToolResult
from ...semantic.diagnostics import ServerSync
from ...semantic.target import Target
from ...toolcontext import ToolContext
from ...workspace import Applied
from ..check import CheckReport, baseline, recheck
from ..commit import commit_plan, file_edits
from ..shown_text import changed_lines_shown, whole_files
from .review_groups import ranked_review
from .review_text import textual_counts, textual_lines, unconfirmed_lines
from .symbol import plan_symbol_rename

MAX_SITES_LISTED = 500
MAX_UNCONFIRMED = 30
SHOWN_CHARS = MAX_DIFF_CHARS - 1000  # of the diff a model reads: room for the note saying what was left out


def rename_symbol(ctx: ToolContext, target: Target, new_name: str, *, dry_run: bool,
                  allow_syntactic: bool, check_diagnostics: bool = True, force: bool = False,
                  include_strings: bool = False, include_comments: bool = False) -> ToolResult:
    plan = plan_symbol_rename(ctx, target, new_name, allow_syntactic=allow_syntactic,
                              include_strings=include_strings, include_comments=include_comments)
    checked = file_edits(ctx.workspace, plan)
    sites = [s.to_dict() for sites in plan.by_file().values() for s in sites]
    unconfirmed = [{"path": r.location.path, "line": r.location.line, "column": r.location.column}
                   for r in plan.review]
    files = sorted(e.path for e in checked.edits)
    summary = (f"{'would rename' if dry_run else 'renamed'} {plan.old_name} -> {new_name}: {len(plan.sites)} "
               f"site(s) in {len(files)} file(s) [{plan.method}{'' if plan.complete else ', incomplete'}]")
    extra = list(plan.notes)
    ranked = ranked_review(ctx, plan, target)
    extra.extend(unconfirmed_lines(ranked))
    extra.extend(textual_lines(plan))
    data: dict[str, Any] = {
        "old_name": plan.old_name, "new_name": new_name, "target": str(target.location), "method": plan.method,
        "complete": plan.complete, "sites": sites[:MAX_SITES_LISTED], "site_count": len(sites),
        "reasons": plan.reason_counts(), "unconfirmed": unconfirmed[:MAX_UNCONFIRMED],
        "unconfirmed_count": len(unconfirmed), "dry_run": dry_run,
        "unconfirmed_ranked": [{"path": r.item.location.path, "line": r.item.location.line,
                                "column": r.item.location.column, "rank": r.rank, "why": r.why}
                               for r in ranked[:MAX_SITES_LISTED]],
        "textual": [t.to_dict() for t in plan.textual[:MAX_SITES_LISTED]], "textual_count": len(plan.textual),
        "textual_counts": textual_counts(plan),
    }
    if dry_run:
        diffs = [(e.path, unified_diff(e.path, checked.before.get(e.path), e.new_text)) for e in checked.edits]
        diff = "".join(d for _, d in diffs)
        call = f"codeagent rename {target.location} {new_name} --dry-run"
        shown, cut = whole_files(diffs, SHOWN_CHARS, rest=f"the whole diff is in data `diff`; `{call}` prints it")
        if cut:  # the CLI prints the whole diff
            data["full_output"] = "\n".join([summary, *extra, diff])
        return ToolResult.ok("\n".join([summary, *extra, shown]), files=files, diff=diff, **data)
    # the model reads each changed line once; the full diff is in data (and `--dry-run` shows it)
    every: list[str] = []
    written: list[Applied] = []

    def show(applied: Applied) -> str:
        written.append(applied)
        every.append(changed_lines(applied))
        return changed_lines_shown(every[0], SHOWN_CHARS, rest="every change is in data `diff`")[0]

    timeout = ctx.settings.lsp.check_timeout
    before = baseline(ctx, [e.path for e in checked.edits], timeout) if check_diagnostics else {}
    head = "\n".join([summary, *extra])
    # the rename's own check (check.py) replaces the generic diagnostics delta: it waits longer
    # and compares with what the server said before the rename
    result = commit_plan(ctx, plan, summary=head, edits=checked, show=show, skip=("diagnostics",),
                         operation=f"rename_symbol {plan.old_name} -> {new_name}")
    shown_part = show_cut(every)
    if shown_part is not None and result.output.endswith(shown_part):
        result.data["full_output"] = result.output[: len(result.output) - len(shown_part)] + every[0]
    result.data.update(data)
    if check_diagnostics and result.success and written:
        return checked_result(ctx, result, written[0], recheck(ctx, written[0], before, timeout), head, force=force)
    return result


def checked_result(ctx: ToolContext, result: ToolResult, applied: Applied, report: CheckReport, head: str, *,
                   force: bool) -> ToolResult:
    """The result with the check's report; undone (a failed result) when the check failed, unless forced."""
    lines = report.lines()
    result.data["diagnostics"] = report.to_dict()  # the key the generic delta used
    if report.failed and not force:
        ctx.workspace.undo(applied.entry_id, force=True)
        ServerSync().check(ctx, applied)  # the servers saw the renamed files: show them the restored ones
        why = ("Pass force=true (`codeagent rename ... --force`) to keep it anyway"
               + (f", or raise lsp.check_timeout ({report.timeout:g} s)" if report.not_checked else "") + ".")
        return ToolResult.fail("\n".join([*lines, f"The rename was undone; nothing changed. {why}"]),
                               **{**result.data, "files": [], "journal_id": None, "rejected_by": "check"})
    if report.failed:
        lines.append("kept anyway (force)")
    for key in ("full_output",):
        if isinstance(result.data.get(key), str):
            result.data[key] = result.data[key].replace(head, "\n".join([head, *lines]), 1)
    result.output = result.output.replace(head, "\n".join([head, *lines]), 1)
    return result


def show_cut(every: list[str]) -> str | None:
    """The shown part of the changed lines when it was cut (None when they were shown whole)."""
    if not every:
        return None
    shown, cut = changed_lines_shown(every[0], SHOWN_CHARS, rest="every change is in data `diff`")
    return shown if cut else None
