"""A run in progress, live: server-sent events that tail the trajectory and carry each changed part
of the page (a step's section, the header, the chart) as HTML rendered here, so the browser only
swaps elements by id. The stream ends with an `end` event once the run has ended."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable

import anyio

from ..trajectory import read_events_from
from ..workspace import Workspace
from .runs import RunView, load_run, tail

POLL_SECONDS = 0.25
MAX_STREAM_SECONDS = 6 * 3600  # a forgotten tab does not hold a connection for ever

# (run, touched steps) → [(element id, html)] for the parts to replace or append
Render = Callable[[RunView, set[int]], list[tuple[str, str]]]


async def stream(ws: Workspace, run_id: str, offset: int, render: Render) -> AsyncIterator[dict[str, str]]:
    """Events for a page drawn from the first `offset` bytes of the trajectory."""
    view = await anyio.to_thread.run_sync(load_run, ws, run_id)
    if view.offset > offset:  # written between the page and this stream
        missed, _ = await anyio.to_thread.run_sync(read_events_from, ws, run_id, offset)
        touched = {0} | {int(ev.get("step") or 0) for ev in missed}
        yield _parts(view, touched, render)
    waited = 0.0
    while view.end is None and waited < MAX_STREAM_SECONDS:
        await anyio.sleep(POLL_SECONDS)
        waited += POLL_SECONDS
        touched = await anyio.to_thread.run_sync(tail, ws, view)
        if touched:
            yield _parts(view, touched | {0}, render)
    yield {"event": "end", "data": json.dumps({"status": view.status})}


def _parts(view: RunView, touched: set[int], render: Render) -> dict[str, str]:
    parts = render(view, touched)
    return {"event": "parts", "data": json.dumps({"offset": view.offset, "parts": parts})}
