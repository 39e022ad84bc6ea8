"""The first search of a watched session (an agent run, the MCP server) lists the tree once: the
folder watch lists each folder once it watches it, and hands those listings to the search's walk
(agent/semantic/watch.py `take_listings`) if nothing changed since. The watch still lists what it
must watch (gitignored folders, which a .gitignore edit can bring back), the walk still lists
what the watch leaves out (hidden folders), and a change made before the hand-over is in the
answer, which is a fresh session's. Listings are counted by Python's `os.scandir` audit event;
the files, the inotify watch and ripgrep are real."""

from __future__ import annotations

import sys
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from test_tools_search import needs_rg

from agent.bootstrap import load_all_tools, open_context
from agent.config import Settings
from agent.semantic.querycache import RACY_NS
from agent.semantic.session_watch import watch_later
from agent.semantic.watch import NewFileWatcher
from agent.toolcontext import ToolContext
from agent.walk import iter_file_names

SEARCH = {"pattern": "needle", "regex": False}
REGISTRY = load_all_tools()
# What the audit hook does on each os.scandir (an audit hook cannot be removed: it stays idle).
_ON_SCANDIR: list[Callable[[str], None]] = []


def _hook(event: str, args: tuple[Any, ...]) -> None:
    if event == "os.scandir" and _ON_SCANDIR:
        _ON_SCANDIR[-1](str(args[0]))


sys.addaudithook(_hook)


def _tree(root: Path) -> None:
    for rel, text in {"pkg/a.py": "needle = 1\n", "pkg/deep/b.txt": "needle two\n", "notes.md": "a needle\n",
                      "build/out.py": "needle built\n", ".gitignore": "build/\n",
                      ".config/inner/h.txt": "hidden needle\n"}.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    time.sleep(RACY_NS / 1e9 + 0.1)  # older than the racy window: a walk may be kept


def _search(ctx: ToolContext) -> dict[str, Any]:
    result = REGISTRY.call(ctx, "search_in_files", dict(SEARCH))
    assert result.success, result.error
    return {"output": result.output, **result.data}


def _fresh(root: Path) -> dict[str, Any]:
    with open_context(root, settings=Settings()) as ctx:
        return _search(ctx)


def _listed_during(action: Callable[[], Any], then: Callable[[str], None] | None = None) -> tuple[Any, Counter[str]]:
    counts: Counter[str] = Counter()

    def seen(folder: str) -> None:
        counts[folder] += 1
        if then is not None:
            then(folder)

    _ON_SCANDIR.append(seen)
    try:
        return action(), counts
    finally:
        _ON_SCANDIR.pop()


@needs_rg
def test_the_first_search_lists_each_folder_once_and_answers_as_a_fresh_session(root: Path) -> None:
    _tree(root)
    with open_context(root, settings=Settings()) as ctx:
        watch_later(ctx)
        first, counts = _listed_during(lambda: _search(ctx))
        expected = {str(root / rel) for rel in ("", "pkg", "pkg/deep", "build", ".config", ".config/inner")}
        assert set(counts) == expected  # the ignored folder (for the watch), the hidden ones (for the walk)
        assert max(counts.values()) == 1, counts
        assert first == _fresh(root) and "build/out.py" not in first["output"]
        again = _search(ctx)
        assert again.pop("walk_reused") is True and again == first
        # the ignored folder is watched: brought back by a .gitignore edit, then changed
        (root / ".gitignore").write_text("# nothing ignored\n", encoding="utf-8")
        back = _search(ctx)
        assert "walk_reused" not in back and "build/out.py:1" in back["output"] and back == _fresh(root)
        (root / "build" / "new.py").write_text("needle new\n", encoding="utf-8")
        after = _search(ctx)
        assert "walk_reused" not in after and "build/new.py:1" in after["output"] and after == _fresh(root)


@needs_rg
def test_a_change_made_while_the_watch_lists_is_in_the_first_answer(root: Path) -> None:
    """A file created in the root after the watch listed it (while it lists a sub-folder): the
    watch saw an event, so the walk lists the root itself."""
    _tree(root)
    made: list[Path] = []

    def create_once(folder: str) -> None:
        if folder != str(root) and not made:
            made.append(root / "late.md")
            made[0].write_text("a late needle\n", encoding="utf-8")

    with open_context(root, settings=Settings()) as ctx:
        watch_later(ctx)
        first, _ = _listed_during(lambda: _search(ctx), then=create_once)
        assert made and "late.md:1" in first["output"] and first == _fresh(root)
        again = _search(ctx)
        assert again.pop("walk_reused", None) in (None, True) and again == first


def test_the_watch_hands_its_listings_over_only_while_nothing_changed(tmp_path: Path) -> None:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "a.py").write_text("")
    root = tmp_path.resolve()
    fresh = lambda: list(iter_file_names(root))  # noqa: E731

    quiet = NewFileWatcher(root)
    assert quiet.poll() == []
    listed = quiet.take_listings()
    assert listed is not None and set(listed) == {str(root), str(root / "pkg")}
    assert list(iter_file_names(root, listed=listed)) == fresh() and listed == {}  # each taken, none listed again
    assert quiet.take_listings() is None  # once
    quiet.close()

    queued = NewFileWatcher(root)
    queued.poll()
    (root / "pkg" / "b.py").write_text("")  # queued, not drained yet
    got = queued.take_listings()
    assert got is None and list(iter_file_names(root, listed=got)) == fresh()
    queued.close()

    drained = NewFileWatcher(root)
    (root / "pkg" / "c.py").write_text("")
    assert drained.poll() == [root / "pkg" / "c.py"]  # the first poll saw it: the listings are old
    got = drained.take_listings()
    assert got is None and list(iter_file_names(root, listed=got)) == fresh()
    drained.close()
