"""The rename: the language server's rename, completed (stubs, method families, aliases,
`__all__`/`__slots__`, attribute-name strings, keyword arguments), every site with its reason, and
a review list of occurrences no rule confirmed, as one EditPlan.

    engine.py       plan_rename(server, workspace, path, position, new_name) -> EditPlan
    symbol.py       the plan for a tool's target: engine, or the syntactic fallback; rename passes
    tool_result.py  rename_symbol: the plan checked, shown (dry run) or committed
    the rest        what the engine is made of: collector, sources (file texts), server (what it
                    asks of a server), python_rename, passes, hierarchy, stubs, embedded, shorthands,
                    pysource / pystrings (Python syntax), review, reasons, limits, builtin_members

May import: lsp_bridge, agent.refactor's plan/commit, and agent's lower layers (errors, result,
workspace, commit, walk, toolcontext, syntax, semantic). Never tools, commands, the CLI or the daemon.
"""

from .engine import complete_references, plan_rename
from .limits import RenameLimits
from .reasons import REASONS
from .symbol import RenamePass, plan_symbol_rename, rename_passes
from .tool_result import rename_symbol

__all__ = ["REASONS", "RenameLimits", "RenamePass", "complete_references", "plan_rename", "plan_symbol_rename",
           "rename_passes", "rename_symbol"]
