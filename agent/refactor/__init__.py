"""The refactoring engine: every refactoring produces one `EditPlan` (plan.py) before anything is
written: the sites, each with its reason, the review list, the file operations, and the conflicts
that refuse it. The CLI, the agent's tools and the compare view render that one plan; `commit.py`
checks it against the files as they are now (hashes, and the text of every replaced range) and
commits it as one journaled operation.

    plan.py     EditPlan, Site, ReviewItem (positions are agent.result.Location)
    commit.py   EditPlan -> checked FileEdits -> one journaled commit
    render.py   a plan as text;  compare.py  a plan beside a word-boundary text replacement
    rename/     the rename engine
    move/       move a top-level symbol to another module (Python: ast; TypeScript: tree-sitter)

May import: lsp_bridge, and agent's lower layers (errors, result, workspace, commit, walk,
toolcontext, syntax, semantic). Never the tools, the commands, the CLI, the daemon or the loop.
"""

from .plan import EditPlan, ReviewItem, Site, location_of, range_of

__all__ = ["EditPlan", "ReviewItem", "Site", "location_of", "range_of"]
