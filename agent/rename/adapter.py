"""The hook between the semantic tools' rename (agent/semantic/rename.py) and this engine:
`engine_plan` takes the place of the server-only plan and returns the semantic layer's plan,
every site with the engine's reason, the engine's notes, and the string literals it saw but did
not change (the semantic layer lists unconfirmed identifiers in code itself)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from lsp_bridge import LspSession
from lsp_bridge.errors import BridgeError, InvalidEdit, NotReady, RenameRefused, StaleFile

from ..errors import StaleFileError, ToolFailure
from ..toolcontext import ToolContext
from .engine import plan_rename
from .model import RenamePlan as EnginePlan

if TYPE_CHECKING:
    from ..semantic.rename import RenamePlan
    from ..semantic.target import Target

MAX_SITES_LISTED = 60
MAX_STRINGS_LISTED = 20


def engine_plan(ctx: ToolContext, session: LspSession, target: Target, new_name: str) -> RenamePlan:
    """The complete rename plan for `target` (raises ToolFailure with the reason when impossible)."""
    from ..semantic.references import UNAVAILABLE
    from ..semantic.rename import RenamePlan
    from ..semantic.target import display_path
    from ..semantic.textscan import CodeHit

    try:
        found = plan_rename(session, ctx.workspace, target.real, target.pos, new_name)
    except RenameRefused as exc:
        raise ToolFailure(f"the language server refuses to rename {target.name!r} at {target.location}: {exc}") from exc
    except NotReady as exc:
        raise ToolFailure(f"{exc}; nothing was renamed, try again when it has finished indexing") from exc
    except StaleFile as exc:
        raise ToolFailure(f"{exc}; nothing was written, run the rename again") from exc
    except InvalidEdit as exc:
        raise ToolFailure(f"the server's rename edit is unsafe ({exc}); nothing was written") from exc
    except UNAVAILABLE:
        raise
    except BridgeError as exc:
        raise ToolFailure(f"rename_symbol: {exc}") from exc
    plan = RenamePlan(target, new_name, "lsp", complete=True)
    for path, edits in found.by_file().items():
        rel = display_path(ctx, path)
        doc = plan.doc(ctx, rel)
        seen = found.seen_hashes.get(path)
        if seen is not None and doc.hash != seen:
            raise StaleFileError(f"{rel} changed while the rename was planned; nothing was written. "
                                 "Run the rename again.")
        for e in edits:
            plan.add(ctx, rel, e.range, e.new_text, e.reason)
    plan.file_ops.extend(found.file_ops)
    if not plan.sites and not plan.file_ops:
        raise ToolFailure(f"the language server returned no edits for renaming {target.name!r} at {target.location}")
    plan.notes.extend(explain(found, lambda p: display_path(ctx, p)))
    # The semantic layer lists unconfirmed identifiers in code itself; the engine adds the strings
    # (exact spellings, code held in strings) it saw and did not change.
    plan.unconfirmed.extend(CodeHit(display_path(ctx, r.path), r.line, r.character)
                            for r in found.review if r.kind != "code")
    return plan


def explain(found: EnginePlan, show: Callable[[Path], str]) -> list[str]:
    """What the engine added beyond the server's own answer (each site with its reason), the
    string literals left for review, and its notes. Bounded."""
    out: list[str] = []
    every = [e for edits in found.by_file().values() for e in edits]
    counts = ", ".join(f"{r} {n}" for r, n in sorted(found.reason_counts().items()))
    if counts:
        out.append(f"sites by reason: {counts} (lsp = the language server's own answer; the rest completes it)")
    # the engine's additions are what needs explaining; the server's own sites are in the diff (or
    # the changed lines) and, each with its reason, in the result's `sites`
    added = [e for e in every if e.reason != "lsp"]
    listed = added[:MAX_SITES_LISTED]
    for e in listed:
        out.append(f"  {show(e.path)}:{e.range.start.line + 1}:{e.range.start.character + 1} [{e.reason}]")
    if len(added) > len(listed):
        out.append(f"  ... {len(added) - len(listed)} more (all listed in `sites`)")
    strings = [r for r in found.review if r.kind != "code"]
    if strings:
        out.append(f"{found.old_name!r} in strings that no rule tied to the symbol (not changed; review):")
        for r in strings[:MAX_STRINGS_LISTED]:
            where = "code in a string" if r.kind == "embedded" else "string"
            out.append(f"  {show(r.path)}:{r.line + 1}:{r.character + 1} [{where}] {r.line_text[:100]}")
    out.extend(found.notes)
    return out
