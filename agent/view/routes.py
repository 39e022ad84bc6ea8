"""The pages and their handlers: Runs, a Run (with its live stream and full tool outputs),
Operations (with undo, the one POST), Compare, and the app's own static files.

Every identifier that comes from a URL goes through the reader that validates it (`run_path` for
run ids, `Journal.get` for operation ids, a fixed list for static names): none reaches the file
system as a path."""

from __future__ import annotations

import secrets
from collections.abc import Awaitable, Callable
from typing import Any

from sse_starlette import EventSourceResponse
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import PlainTextResponse, RedirectResponse, Response

from ..errors import CodeagentError
from ..trajectory import TrajectoryError
from . import chart, evalreport
from .compare import request_args, run_compare
from .live import stream
from .operations import operations, undo
from .runs import load_run
from .security import Forbidden
from .state import ViewState, diff_of, static_response

STATUSES = ("finished", "limit", "stuck", "model_error", "interrupted", "unfinished")
Handler = Callable[[Request], Awaitable[Response] | Response]


def _index(state: ViewState) -> Handler:
    def page(request: Request) -> Response:
        return RedirectResponse("/runs", status_code=303)
    return page


def _runs(state: ViewState) -> Handler:
    def page(request: Request) -> Response:
        status = request.query_params.get("status") or None
        if status is not None and status not in STATUSES:
            status = None
        runs = state.index.runs(status)
        return state.page("runs.html", runs=runs, selected=status, statuses=STATUSES, tab="runs")
    return page


def _not_found(state: ViewState, message: str) -> Response:
    return state.page("error.html", status=404, message=message, tab="")


def _run(state: ViewState) -> Handler:
    def page(request: Request) -> Response:
        run_id = request.path_params["run_id"]
        try:
            run = load_run(state.ws, run_id)
        except TrajectoryError as exc:
            return _not_found(state, str(exc))
        # edits recorded before trajectories kept their diff: drawn from the journal, read only then
        old_edits = any(t.result and t.result.get("journal_id") and not t.result.get("diff")
                        for step in run.steps.values() for t in step.tools)
        ops = {op.entry.id: op for op in operations(state.ws, run_id=run_id)[0]} if old_edits else {}
        return state.page("run.html", run=run, chart=chart.render(run), diff_of=diff_of, ops=ops, tab="runs")
    return page


def _run_events(state: ViewState) -> Handler:
    async def events(request: Request) -> Response:
        run_id = request.path_params["run_id"]
        raw = request.query_params.get("offset", "0")
        offset = int(raw) if raw.isdigit() else 0
        try:
            load_run(state.ws, run_id)  # an unknown id is a 404 here, not a stream that fails
        except TrajectoryError as exc:
            return PlainTextResponse(f"{exc}\n", status_code=404)
        return EventSourceResponse(stream(state.ws, run_id, offset, state.fragments), ping=15)
    return events


def _tool_output(state: ViewState) -> Handler:
    def text(request: Request) -> Response:
        run_id, call_id = request.path_params["run_id"], request.path_params["call_id"]
        try:
            run = load_run(state.ws, run_id)
        except TrajectoryError as exc:
            return PlainTextResponse(f"{exc}\n", status_code=404)
        for step in run.steps.values():
            for t in step.tools:
                if t.call_id == call_id and t.result is not None:
                    return PlainTextResponse(str(t.result.get("raw_output") or ""))
        return PlainTextResponse("no such tool call in this run\n", status_code=404)
    return text


def _operations(state: ViewState) -> Handler:
    def page(request: Request) -> Response:
        run_id = request.query_params.get("run") or None
        ops, total = operations(state.ws, run_id=run_id)
        flash = state.flashes.pop(request.query_params.get("flash", ""), None)
        return state.page("operations.html", ops=ops, total=total, run_id=run_id, flash=flash, tab="ops")
    return page


def _safe_next(value: Any) -> str:
    """Where to go back after a POST: a path of this app only (never another host)."""
    if isinstance(value, str) and value.startswith("/") and not value.startswith("//") and "\\" not in value:
        return value
    return "/ops"


def _undo(state: ViewState) -> Handler:
    async def post(request: Request) -> Response:
        form = await request.form()
        try:
            state.guard.check_csrf(form.get("csrf"))
        except Forbidden as exc:
            return PlainTextResponse(f"refused: {exc}\n", status_code=403)
        entry_id, run_id = form.get("entry"), form.get("run")
        outcome = await run_in_threadpool(
            undo, state.ws, entry_id=entry_id if isinstance(entry_id, str) and entry_id else None,
            run_id=run_id if isinstance(run_id, str) and run_id else None)
        flash = secrets.token_urlsafe(8)
        state.flashes[flash] = (outcome.ok, outcome.message)
        while len(state.flashes) > 50:  # shown once; a tab that never came back does not pile them up
            state.flashes.pop(next(iter(state.flashes)))
        target = _safe_next(form.get("next"))
        sep = "&" if "?" in target else "?"
        return RedirectResponse(f"{target}{sep}flash={flash}", status_code=303)
    return post


def _compare(state: ViewState) -> Handler:
    def page(request: Request) -> Response:
        form = {k: v for k, v in request.query_params.items()}
        if not form.get("new_name"):
            return state.page("compare.html", form=form, result=None, error=None, tab="compare")
        try:
            result = run_compare(state.ctx, state.registry(), request_args(form))
        except (ValueError, CodeagentError) as exc:
            return state.page("compare.html", status=400, form=form, result=None, error=str(exc), tab="compare")
        return state.page("compare.html", form=form, result=result, error=None, tab="compare")
    return page


def _compare_saved(state: ViewState) -> Handler:
    def page(request: Request) -> Response:
        result = state.comparisons.get(request.path_params["cid"])
        if result is None:
            return _not_found(state, "no such comparison (it lives only as long as the `codeagent` that made it)")
        return state.page("compare.html", form={}, result=result, error=None, tab="compare")
    return page


def _eval(state: ViewState) -> Handler:
    def page(request: Request) -> Response:
        if state.eval_dir is None:
            return _not_found(state, "no evaluation to show: start the view with `codeagent view --eval DIR`")
        return state.page("eval.html", report=evalreport.load(state.eval_dir), tab="eval")
    return page


def _static(state: ViewState) -> Handler:
    def asset(request: Request) -> Response:
        return static_response(request.path_params["name"])
    return asset


ROUTES: list[tuple[str, Callable[[ViewState], Handler], list[str]]] = [
    ("/", _index, ["GET"]),
    ("/runs", _runs, ["GET"]),
    ("/runs/{run_id}", _run, ["GET"]),
    ("/runs/{run_id}/events", _run_events, ["GET"]),
    ("/runs/{run_id}/output/{call_id}", _tool_output, ["GET"]),
    ("/ops", _operations, ["GET"]),
    ("/undo", _undo, ["POST"]),
    ("/compare", _compare, ["GET"]),
    ("/compare/{cid}", _compare_saved, ["GET"]),
    ("/eval", _eval, ["GET"]),
    ("/static/{name}", _static, ["GET"]),
]
