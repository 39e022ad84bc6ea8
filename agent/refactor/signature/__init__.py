"""Change signature: a function's or method's new parameter list, matched to the old one by name,
followed at every call site and override the language server reports (one EditPlan).

    params.py   parameters (name, kind, default, own text) from a def or NEW_PARAMS; rendering
    calls.py    one call's arguments matched to the old list and written for the new one
    python.py   the planner for Python (family through rename/hierarchy.py, references, conflicts)
    typescript.py  the planner for TypeScript (positional arguments; overrides through `extends`)
"""

from __future__ import annotations

from ...errors import ToolFailure
from ...result import ToolResult
from ...semantic.target import Target
from ...toolcontext import ToolContext
from ..outcome import finish, refused
from .python import plan_python_signature
from .typescript import plan_ts_signature


def change_signature(ctx: ToolContext, target: Target, spec: str, values: dict[str, str], *, dry_run: bool,
                     check_diagnostics: bool = True) -> ToolResult:
    if target.language == "python":
        plan = plan_python_signature(ctx, target, spec, values)
    elif target.language in ("typescript", "tsx"):
        plan = plan_ts_signature(ctx, target, spec, values)
    else:
        raise ToolFailure(f"{target.path}: change_signature supports Python and TypeScript files")
    if plan.conflicts:
        return refused(plan, f"changing the signature of {target.name}")
    if not plan.sites:
        raise ToolFailure(f"{target.name} already has the parameters {spec}; nothing to change")
    calls = plan.reason_counts().get("call", 0)
    overrides = plan.reason_counts().get("override", 0)
    summary = (f"{'would change' if dry_run else 'changed'} the signature of {target.name} to {plan.new_name}: "
               f"{calls} call site(s), {overrides} other declaration(s), {len(plan.files())} file(s)")
    return finish(ctx, plan, summary=summary, operation=f"change_signature {target.name} {plan.new_name}",
                  dry_run=dry_run, check_diagnostics=check_diagnostics)


__all__ = ["change_signature"]
