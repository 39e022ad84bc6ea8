"""`--compare` for `codeagent move|signature|delete`: after the command's dry run, the text
route's result beside it (agent/refactor/textroute), printed and added to the JSON as `compare`."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from ..config import Settings
from .code import _emit

COMPARE_HELP = ("dry run, beside what the text-only route would do: the sites it misses, the ones it changes "
                "that it should not, and (delete) whether it would delete a referenced symbol")


def emit_compared(args: argparse.Namespace, root: Path, settings: Settings, result: dict[str, Any], op: str,
                  **params: Any) -> int:
    data = result.get("data") or {}
    if "name" not in data or "target" not in data:  # failed before planning: nothing to compare
        return _emit(args, result)
    from ..refactor.textroute.report import compare_op, format_op_compare
    from ..toolcontext import ToolContext
    from ..workspace import Workspace

    ctx = ToolContext(Workspace(root, max_read_bytes=settings.workspace.max_read_bytes), settings)
    compared = data["compare"] = compare_op(ctx, op, data, **params)
    text = f"{format_op_compare(op, str(data['name']), compared)}\n(nothing was written: --compare is a dry run)"
    if result.get("success"):
        return _emit(args, result, text)
    result["output"] = text
    return _emit(args, result)
