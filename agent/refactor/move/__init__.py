"""Move a top-level symbol to another module, fixing every import and qualified use: one
EditPlan (agent/refactor/plan.py), committed through refactor/commit.py as one undoable operation.

    tool.py       move_symbol: target -> plan -> dry run or journaled commit
    python.py     the Python move (pyblock: the block and what it needs; pyimports: the workspace's
                  imports; pyall: __all__; pymodules: module names, import graph, cycles)
    state.py      one move's files, edits and added import edges;  edits.py  offsets -> Sites
"""

from .tool import move_symbol, plan_move

__all__ = ["move_symbol", "plan_move"]
