"""The ASGI app: a Starlette application with Jinja2 templates (autoescaped), behind the guard.

`create_app` takes everything from its caller (the tool context, the guard, a registry factory
for the Compare page, comparisons the CLI already made) and reads only what the workspace's
`.codeagent/` holds: trajectories through `agent.trajectory`, operations through the journal."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from starlette.applications import Starlette
from starlette.routing import Route

from ..registry import Registry
from ..toolcontext import ToolContext
from .compare import Comparison
from .routes import ROUTES
from .runs import RunIndex
from .security import Guard, GuardMiddleware
from .state import ViewState, make_env


def create_app(ctx: ToolContext, guard: Guard, *, registry_factory: Callable[[], Registry],
               comparisons: dict[str, Comparison] | None = None, eval_dir: Path | None = None) -> GuardMiddleware:
    state = ViewState(ctx, guard, registry_factory, make_env(), RunIndex(ctx.workspace),
                      comparisons=dict(comparisons or {}), eval_dir=eval_dir)
    app = Starlette(routes=[Route(path, handler(state), methods=methods) for path, handler, methods in ROUTES])
    return GuardMiddleware(app, guard)
