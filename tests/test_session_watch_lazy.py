"""An agent run and the MCP server watch the workspace's folders from their first search, not at
start-up (agent/semantic/session_watch.watch_later): a session that has not searched yet has made
no inotify instance (its folders were not walked for one), the first search puts the watch in
place, and a change made before it (nothing was kept: the walk sees it) or after it (an event)
is in the very next answer, which is a fresh session's."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

from test_mcp import _text, server_tree, with_session
from test_tools_search import needs_rg

from agent.bootstrap import load_all_tools, open_context
from agent.config import Settings
from agent.semantic.querycache import RACY_NS
from agent.semantic.session_watch import watch_later

SEARCH = {"pattern": "needle", "regex": False}
REGISTRY = load_all_tools()


def inotify_instances(pid: int | str = "self") -> int:
    """How many inotify instances process `pid` holds open (what a folder watch is made of)."""
    fds = Path(f"/proc/{pid}/fd")
    count = 0
    for fd in fds.iterdir():
        try:
            count += os.readlink(fd) == "anon_inode:inotify"
        except OSError:  # (closed meanwhile)
            continue
    return count


def _tree(root: Path) -> None:
    (root / "pkg" / "deep").mkdir(parents=True)
    (root / "pkg" / "a.py").write_text("needle = 1\n", encoding="utf-8")
    (root / "pkg" / "deep" / "b.txt").write_text("no match\n", encoding="utf-8")
    (root / "notes.md").write_text("a needle in notes\n", encoding="utf-8")
    time.sleep(RACY_NS / 1e9 + 0.1)  # older than the racy window: a walk may be kept


def _fresh(root: Path) -> dict[str, Any]:
    with open_context(root, settings=Settings()) as ctx:
        result = REGISTRY.call(ctx, "search_in_files", dict(SEARCH))
        assert result.success, result.error
        return {"output": result.output, **result.data}


@needs_rg
def test_a_session_watches_from_its_first_search(root: Path) -> None:
    _tree(root)
    before = inotify_instances()
    with open_context(root, settings=Settings()) as ctx:
        watch_later(ctx)
        assert inotify_instances() == before and ctx.before_call == []  # start-up walked nothing
        read = REGISTRY.call(ctx, "read_file", {"file_path": "notes.md"})  # (a call that keeps no walk)
        assert read.success and inotify_instances() == before and ctx.before_call == []

        def search() -> dict[str, Any]:
            result = REGISTRY.call(ctx, "search_in_files", dict(SEARCH))
            assert result.success, result.error
            return {"output": result.output, **result.data}

        (root / "pkg" / "deep" / "early.txt").write_text("needle before the watch\n")
        first = search()
        assert inotify_instances() == before + 1 and len(ctx.before_call) == 1  # the watch is in place
        assert "pkg/deep/early.txt:1" in first["output"] and first == _fresh(root)
        again = search()
        assert again.pop("walk_reused") is True and again == first  # kept under the watch
        (root / "pkg" / "deep" / "late.txt").write_text("needle after the watch\n")
        after = search()
        assert "walk_reused" not in after and "pkg/deep/late.txt:1" in after["output"] and after == _fresh(root)
    assert inotify_instances() == before  # closed with the session


@needs_rg
def test_the_mcp_server_starts_without_a_watch_and_watches_from_its_first_search(tmp_path: Path) -> None:
    root = (tmp_path / "proj").resolve()
    root.mkdir()
    _tree(root)

    async def body(session: Any) -> dict[str, Any]:
        await session.list_tools()
        read = await session.call_tool("read_file", {"file_path": "notes.md"})
        assert not read.is_error, _text(read)
        pids = [pid for pid, cmd in server_tree(root).items() if " mcp " in cmd]
        assert len(pids) == 1, server_tree(root)
        out: dict[str, Any] = {"started": inotify_instances(pids[0])}
        (root / "pkg" / "early.txt").write_text("needle before the watch\n")
        out["first"] = await session.call_tool("search_in_files", dict(SEARCH))
        out["watching"] = inotify_instances(pids[0])
        out["fresh_first"] = _fresh(root)
        out["again"] = await session.call_tool("search_in_files", dict(SEARCH))
        (root / "pkg" / "deep" / "late.txt").write_text("needle after the watch\n")
        out["after"] = await session.call_tool("search_in_files", dict(SEARCH))
        return out

    out = with_session(root, body)
    assert out["started"] == 0 and out["watching"] == 1
    first, again, after = (out[k].structured_content["data"] for k in ("first", "again", "after"))
    assert _text(out["first"]) == out["fresh_first"]["output"] and "pkg/early.txt:1" in _text(out["first"])
    assert again.get("walk_reused") is True and _text(out["again"]) == _text(out["first"])
    fresh = _fresh(root)
    assert "walk_reused" not in after and "pkg/deep/late.txt:1" in _text(out["after"])
    assert _text(out["after"]) == fresh["output"] and first["total_matches"] + 1 == after["total_matches"]
