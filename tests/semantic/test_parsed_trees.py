"""Position tools keep the parse tree of the file they point at while its text is the same
(agent/semantic/parsed.py), and never answer from the tree of an older text."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.bootstrap import open_context
from agent.config import Settings
from agent.errors import ToolFailure
from agent.semantic.parsed import tree_for
from agent.semantic.target import resolve_target


def test_a_tree_is_reused_only_for_the_same_text(tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text("def f():\n    return g()\n")
    ctx = open_context(tmp_path, settings=Settings())
    try:
        text = ctx.workspace.read("m.py").text
        tree = tree_for(ctx, "m.py", text, "python")
        assert tree_for(ctx, "m.py", "".join(text), "python") is tree  # an equal text read again
        assert resolve_target(ctx, "m.py", 2, 12, None).name == "g"
        # The same position now sits in a comment: the answer follows the new text.
        (tmp_path / "m.py").write_text("def f():\n    # eturn g()\n    return 1\n")
        with pytest.raises(ToolFailure, match="a comment"):
            resolve_target(ctx, "m.py", 2, 13, None)
        changed = ctx.workspace.read("m.py").text
        assert tree_for(ctx, "m.py", changed, "python") is not tree
    finally:
        ctx.close()
