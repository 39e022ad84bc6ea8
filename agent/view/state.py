"""What the handlers share: the view's state (tool context, guard, templates, run index, flash
messages) and the Jinja2 environment with its filters; the live stream's fragment renderer."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from jinja2 import Environment, PackageLoader, select_autoescape
from starlette.responses import HTMLResponse, Response

from ..registry import Registry
from ..toolcontext import ToolContext
from ..workspace import Workspace
from . import chart, diffs
from .compare import Comparison
from .runs import RunIndex, RunView
from .security import Guard

STATIC = {"app.css": "text/css", "app.js": "text/javascript"}


@dataclass
class ViewState:
    ctx: ToolContext
    guard: Guard
    registry_factory: Callable[[], Registry]
    env: Environment
    index: RunIndex
    comparisons: dict[str, Comparison] = field(default_factory=dict)  # made by `rename --compare --view`
    flashes: dict[str, tuple[bool, str]] = field(default_factory=dict)  # undo outcomes, shown once
    eval_dir: Path | None = None  # `codeagent view --eval DIR`: the Eval page's report folder
    _registry: Registry | None = None

    @property
    def ws(self) -> Workspace:
        return self.ctx.workspace

    def registry(self) -> Registry:
        if self._registry is None:
            self._registry = self.registry_factory()
        return self._registry

    def page(self, name: str, status: int = 200, **values: Any) -> HTMLResponse:
        html = self.env.get_template(name).render(csrf=self.guard.csrf, root=str(self.ctx.workspace.root),
                                                  has_eval=self.eval_dir is not None, **values)
        return HTMLResponse(html, status_code=status)

    def fragments(self, run: RunView, touched: set[int]) -> list[tuple[str, str]]:
        """The parts of a run page that changed, for the live stream."""
        parts: list[tuple[str, str]] = []
        if 0 in touched:
            parts.append(("run-header", self.env.get_template("_run_header.html").render(run=run, csrf=self.guard.csrf)))
            parts.append(("run-chart", self.env.get_template("_chart.html").render(run=run, chart=chart.render(run))))
        step_tpl = self.env.get_template("_step.html")
        for n in sorted(touched):
            step = run.steps.get(n)
            if step is not None and n > 0:
                parts.append((f"step-{n}", step_tpl.render(run=run, step=step, diff_of=diff_of)))
        return parts


def diff_of(result: dict[str, Any] | None) -> diffs.Diff | None:
    """The rendered diff of a tool result that recorded one (edits since the view existed)."""
    if not result or not isinstance(result.get("diff"), str) or not result["diff"]:
        return None
    sites = result.get("sites") if isinstance(result.get("sites"), list) else None
    return diffs.parse(result["diff"], sites)


def _when(ts: float) -> str:
    return dt.datetime.fromtimestamp(ts).strftime("%Y-%m-%d %H:%M:%S") if ts else "?"


def _seconds(value: float) -> str:
    if value < 60:
        return f"{value:.1f} s"
    minutes, secs = divmod(int(value), 60)
    return f"{minutes} min {secs:02d} s" if minutes < 60 else f"{minutes // 60} h {minutes % 60:02d} min"


def _count(value: int) -> str:
    return f"{value / 1000:.1f}k" if value >= 10_000 else str(value)


def make_env() -> Environment:
    env = Environment(loader=PackageLoader("agent.view", "templates"), autoescape=select_autoescape(["html"]),
                      trim_blocks=True, lstrip_blocks=True)
    env.filters.update(when=_when, seconds=_seconds, count=_count)
    return env


def static_response(name: str) -> Response:
    """One of the app's own assets (a fixed list: no path from the request reaches the file system)."""
    if name == "pygments.css":
        return Response(diffs.css(), media_type="text/css")
    media = STATIC.get(name)
    if media is None:
        return Response("not found\n", status_code=404, media_type="text/plain")
    text = resources.files("agent.view").joinpath("static", name).read_text(encoding="utf-8")
    return Response(text, media_type=media)


