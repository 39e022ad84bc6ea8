"""The pieces that need no language server: identifier rules, CLI targets, positions, the
new-file watcher and the daemon protocol (a real daemon running a tool that starts no server)."""

from __future__ import annotations

import json
import socket
import time
from pathlib import Path

import pytest
from semantic_helpers import run_cli, stop_daemon

from agent.cli import UsageError
from agent.commands.arguments import parse_target
from agent.config import LspSettings, Settings
from agent.daemon.client import DaemonClient, process_alive
from agent.daemon.protocol import DaemonError, recv_message
from agent.errors import ToolFailure
from agent.semantic.identifiers import check_identifier, identifier_problem
from agent.semantic.target import identifier_at, to_position
from agent.semantic.watch import NewFileWatcher
from agent.workspace import Workspace


@pytest.mark.parametrize("name", ["area", "_x", "été", "Σ2", "match", "case", "type", "_"])
def test_python_identifiers_accepted(name: str) -> None:
    assert identifier_problem(name, "python") is None


@pytest.mark.parametrize(("name", "why"), [
    ("class", "keyword"), ("None", "keyword"), ("async", "keyword"), ("2x", "not a valid"), ("a-b", "not a valid"),
    ("", "not an identifier"), (" x", "whitespace"), ("a b", "not a valid"),
])
def test_python_identifiers_refused(name: str, why: str) -> None:
    problem = identifier_problem(name, "python")
    assert problem is not None and why in problem


@pytest.mark.parametrize("name", ["$el", "_", "café", "x$1", "type", "of", "async"])
def test_js_identifiers_accepted(name: str) -> None:
    for language in ("typescript", "tsx", "javascript"):
        assert identifier_problem(name, language) is None


@pytest.mark.parametrize("name", ["delete", "class", "let", "await", "yield", "eval", "1a", "a.b", "a-b"])
def test_js_identifiers_refused(name: str) -> None:
    assert identifier_problem(name, "typescript") is not None
    with pytest.raises(ToolFailure, match="new_name"):
        check_identifier(name, "tsx")


def test_parse_target_forms(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path.resolve()
    (root / "pkg").mkdir()
    (root / "pkg" / "mod.py").write_text("x = 1\n")
    monkeypatch.chdir(root / "pkg")
    # A path that exists relative to the current folder (inside the root) is taken from there.
    assert parse_target("mod.py:3:7", root) == {"file_path": str(root / "pkg" / "mod.py"), "line": 3, "column": 7}
    # Otherwise it is relative to the root.
    assert parse_target("pkg/mod.py:1:1", root) == {"file_path": "pkg/mod.py", "line": 1, "column": 1}
    assert parse_target("C:/odd:name.py:10:2", root)["line"] == 10  # colons inside the path
    assert parse_target("pkg/mod.py::Thing.method", root) == {"file_path": "pkg/mod.py", "symbol": "Thing.method"}
    assert parse_target("QuerySet.filter", root) == {"symbol": "QuerySet.filter"}
    for bad, hint in [("pkg/mod.py:3", "column"), ("pkg/mod.py", "PATH:LINE:COL"), ("x.py:0:1", "1-based")]:
        with pytest.raises(UsageError, match=hint):
            parse_target(bad, root)


def test_positions_count_characters_and_identifiers_are_found_whole(tmp_path: Path) -> None:
    ws = Workspace(tmp_path)
    (tmp_path / "a.py").write_text('s = "é🎉"; value = 1\n', encoding="utf-8")
    doc = ws.read("a.py")
    line = doc.text.split("\n")[0]
    col = line.index("value") + 1  # 1-based characters: the emoji counts as one
    pos = to_position(doc, 1, col)
    assert (pos.line, pos.character) == (0, line.index("value"))
    assert identifier_at(line, pos.character + 2) == (line.index("value"), "value")  # inside the name
    assert identifier_at(line, pos.character + 5) == (line.index("value"), "value")  # right after it
    assert identifier_at(line, line.index("=")) is None
    with pytest.raises(ToolFailure, match="outside the line"):
        to_position(doc, 1, len(line) + 2)
    with pytest.raises(ToolFailure, match="outside the file"):
        to_position(doc, 3, 1)


@pytest.mark.parametrize("inotify", [True, False])
def test_new_file_watcher_sees_creations_deletions_and_new_folders(tmp_path: Path, inotify: bool) -> None:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "a.py").write_text("")
    (tmp_path / "node_modules").mkdir()
    watcher = NewFileWatcher(tmp_path)
    if inotify:
        assert watcher._watch is not None, "inotify folder watches are available on Linux"
    else:
        watcher.close()  # as after lost events: folder mtimes
    assert watcher.poll() == []
    (tmp_path / "pkg" / "b.py").write_text("")
    (tmp_path / "pkg" / "notes.txt").write_text("")
    (tmp_path / "node_modules" / "dep.js").write_text("")
    (tmp_path / "new" / "deep").mkdir(parents=True)
    (tmp_path / "new" / "deep" / "c.ts").write_text("")
    assert watcher.poll() == [tmp_path / "new" / "deep" / "c.ts", tmp_path / "pkg" / "b.py"]
    (tmp_path / "pkg" / "a.py").unlink()
    (tmp_path / "new" / "deep" / "c.ts").unlink()
    (tmp_path / "new" / "deep").rmdir()
    assert watcher.poll() == [tmp_path / "new" / "deep" / "c.ts", tmp_path / "pkg" / "a.py"]
    assert watcher.poll() == []
    (tmp_path / "pkg" / "a.py").write_text("edited, not created")
    (tmp_path / "pkg" / "b.py").write_text("edited")
    assert watcher.poll() == [tmp_path / "pkg" / "a.py"]


def test_watched_file_cache_trusts_texts_until_an_event_names_them(tmp_path: Path) -> None:
    """A daemon-like session (listing + watch): a same-size edit that keeps the old mtime fools a
    stat check but not the watch; a file a tool wrote is read afresh at once; lost events bring
    back the stat check."""
    import os
    import shutil

    from agent.bootstrap import open_context
    from agent.semantic.filecache import file_cache, forget_written
    from agent.semantic.name_occurrences import source_listing

    (tmp_path / "pkg").mkdir()
    target = tmp_path / "pkg" / "a.py"
    target.write_text("value = 1\n")
    with open_context(tmp_path) as ctx:
        listing = source_listing(ctx)
        cache = file_cache(ctx)
        listing.poll()
        assert cache.text("pkg/a.py") == "value = 1\n"
        st = target.stat()
        target.write_text("value = 2\n")
        os.utime(target, ns=(st.st_atime_ns, st.st_mtime_ns))  # same size, same mtime: stat sees nothing
        listing.poll()
        assert cache.text("pkg/a.py") == "value = 2\n"
        target.write_text("value = 3\n")  # no poll yet (a tool's own write within one request)
        forget_written(ctx, ["pkg/a.py"])
        assert cache.text("pkg/a.py") == "value = 3\n"
        shutil.rmtree(tmp_path / "pkg")  # the folder goes, and comes back: watched again
        (tmp_path / "pkg").mkdir()
        target.write_text("value = 4\n")
        listing.poll()
        assert cache.text("pkg/a.py") == "value = 4\n"
        st = target.stat()
        target.write_text("value = 5\n")
        os.utime(target, ns=(st.st_atime_ns, st.st_mtime_ns))
        listing.poll()
        assert cache.text("pkg/a.py") == "value = 5\n"
        listing.watcher.close()  # as after lost events: the mtime fallback, and stat checks again
        listing.poll()
        target.write_text("value = 44\n")
        assert cache.text("pkg/a.py") == "value = 44\n"


def test_word_index_follows_edits_deletions_and_new_files(tmp_path: Path) -> None:
    """The listing's word index (a daemon's name searches) answers like a scan of the texts, as
    files are edited, created and deleted; whole words only, and in the listing's order."""
    import re

    from agent.bootstrap import open_context
    from agent.semantic import filecache
    from agent.semantic.filecache import file_cache
    from agent.semantic.name_occurrences import NameSearch, source_listing
    from agent.toolcontext import ToolContext

    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "a.py").write_text("class Order:\n    pass\n")
    (tmp_path / "pkg" / "b.py").write_text("from .a import Order\nOrderLine = Order  # é\n")
    (tmp_path / "c.py").write_text("x = 'OrderLine'\n")
    (tmp_path / "d.ts").write_text("let $order = 1;\n")

    def scan(ctx: ToolContext, name: str) -> list[str]:  # what the index must agree with
        listed = source_listing(ctx).files("python") or []
        word = re.compile(rf"(?<![\w$]){re.escape(name)}(?![\w$])")
        return [rel for rel in listed if word.search((tmp_path / rel).read_text())]

    def search(ctx: ToolContext, name: str, family: str = "python") -> list[str]:
        source_listing(ctx).poll()
        return NameSearch(ctx, name, family).files()

    with open_context(tmp_path) as ctx:
        listing = source_listing(ctx)
        listing.prefetch()
        listing.poll()
        cache = file_cache(ctx)
        assert cache._words is not None, "prefetch turns the word index on"
        assert search(ctx, "Order") == ["pkg/a.py", "pkg/b.py"] == scan(ctx, "Order")
        assert search(ctx, "OrderLine") == ["c.py", "pkg/b.py"] == scan(ctx, "OrderLine")
        assert search(ctx, "Orde") == []  # a part of a word is not the word
        assert search(ctx, "$order", "typescript") == ["d.ts"]
        (tmp_path / "pkg" / "a.py").write_text("class Invoice:\n    pass\n")
        (tmp_path / "pkg" / "e.py").write_text("Order = None\n")
        (tmp_path / "c.py").unlink()
        assert search(ctx, "Order") == ["pkg/b.py", "pkg/e.py"] == scan(ctx, "Order")
        assert search(ctx, "Invoice") == ["pkg/a.py"] == scan(ctx, "Invoice")
        assert cache.with_word_trusted(["pkg/a.py", "pkg/b.py"], "Invoice") == (["pkg/a.py"], True)  # read once: indexed
        assert cache.with_word_trusted(["pkg/a.py", "pkg/b.py"], "Order") == (["pkg/b.py"], True)
        assert search(ctx, "OrderLine") == ["pkg/b.py"] == scan(ctx, "OrderLine")
        assert cache.with_word_trusted(["pkg/a.py"], "not a word") is None  # no index answer: callers scan

    monkey = pytest.MonkeyPatch()
    monkey.setattr(filecache, "MAX_INDEX_POSTINGS", 3)  # a tree too big to index: the scan answers
    try:
        with open_context(tmp_path) as ctx:
            listing = source_listing(ctx)
            listing.prefetch()
            listing.poll()
            assert file_cache(ctx)._words is None
            assert search(ctx, "Order") == ["pkg/b.py", "pkg/e.py"]
    finally:
        monkey.undo()


@pytest.fixture
def daemon_root(tmp_path: Path):  # type: ignore[no-untyped-def]
    root = (tmp_path / "ws").resolve()
    root.mkdir()
    (root / "hello.txt").write_text("hello\n")
    yield root
    stop_daemon(root)


def test_daemon_runs_tools_and_restarts_for_other_settings(daemon_root: Path) -> None:
    settings = Settings(lsp=LspSettings(daemon_idle_timeout=60))
    client = DaemonClient(daemon_root, settings)
    result = client.call_tool("read_file", {"file_path": "hello.txt"})
    assert result["success"] and "hello" in result["output"]
    first = client.ping()
    assert first is not None and first["root"] == str(daemon_root)
    # A client with other settings gets a fresh daemon, never an answer computed under other rules.
    other = DaemonClient(daemon_root, Settings(lsp=LspSettings(daemon_idle_timeout=61)))
    assert other.call_tool("read_file", {"file_path": "hello.txt"})["success"]
    second = other.ping()
    assert second is not None and second["pid"] != first["pid"]
    # Usage errors come back as failed results marked as such (the CLI exits 2 on them).
    bad = other.call_tool("read_file", {"nope": 1})
    assert bad["success"] is False and bad["data"]["usage_error"] is True
    assert other.stop() is True
    assert other.ping() is None
    assert not process_alive(int(second["pid"]))


def test_daemon_survives_garbage_and_answers_the_next_client(daemon_root: Path) -> None:
    client = DaemonClient(daemon_root, Settings())
    client.ensure_running()
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.connect(str(client.sock_path))
        sock.sendall(b"this is not json\n")
        reply = recv_message(sock)
    assert reply["ok"] is False and "bad request" in reply["error"]
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.connect(str(client.sock_path))
        sock.sendall(json.dumps({"op": "dance", "build": client._build, "settings": client._settings_id}).encode() + b"\n")
        assert "unknown op" in recv_message(sock)["error"]
    assert client.call_tool("read_file", {"file_path": "hello.txt"})["success"]


def test_daemon_exits_when_its_workspace_is_deleted(tmp_path: Path) -> None:
    root = (tmp_path / "gone").resolve()
    root.mkdir()
    client = DaemonClient(root, Settings())
    client.ensure_running()
    info = client.ping()
    assert info is not None
    for path in sorted(root.rglob("*"), reverse=True):
        path.rmdir() if path.is_dir() else path.unlink()
    root.rmdir()
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and process_alive(int(info["pid"])):
        time.sleep(0.2)
    assert not process_alive(int(info["pid"])), "the daemon outlived its workspace"


def test_daemon_client_reports_unreachable_daemon(tmp_path: Path) -> None:
    client = DaemonClient(tmp_path.resolve(), Settings())
    with pytest.raises(DaemonError):
        client.request("ping", timeout=2)
    assert client.stop() is False


def test_cli_daemon_status_start_stop(daemon_root: Path) -> None:
    assert run_cli("daemon", "status", "--root", str(daemon_root), "--json").json["running"] is False
    started = run_cli("daemon", "start", "--root", str(daemon_root))
    assert started.returncode == 0 and "running (pid" in started.stdout
    assert run_cli("daemon", "status", "--root", str(daemon_root), "--json").json["running"] is True
    stopped = run_cli("daemon", "stop", "--root", str(daemon_root))
    assert stopped.returncode == 0 and "stopped" in stopped.stdout


def test_edit_checks_never_start_a_server(tmp_path: Path) -> None:
    from agent.bootstrap import load_all_tools, open_context
    from agent.semantic.sessions import running_sessions

    with open_context(tmp_path, settings=Settings()) as ctx:
        r = load_all_tools().call(ctx, "write_file", {"file_path": "m.py", "content": "x = undefined_name\n"})
        assert r.success, r.error
        assert "diagnostics" not in r.data and not running_sessions(ctx)
        assert "diagnostics the edit introduced" not in r.output


def test_servers_install_reports_the_pip_installed_server() -> None:
    r = run_cli("servers", "install", "basedpyright", "--json")
    assert r.returncode == 0, r.stderr
    assert r.json["servers"]["basedpyright"].startswith("ok (")
    bad = run_cli("servers", "install", "no-such-server")
    assert bad.returncode == 1 and "unknown language server" in bad.stderr


def test_prune_states_removes_folders_of_gone_workspaces(tmp_path: Path) -> None:
    from agent.daemon.protocol import prune_states

    daemons = tmp_path / "daemons"
    alive_root = tmp_path / "still-here"
    alive_root.mkdir()
    for name, root, pid in [("keep", None, False), ("gone", tmp_path / "deleted", False),
                            ("present", alive_root, False), ("running", tmp_path / "deleted", True)]:
        folder = daemons / name
        folder.mkdir(parents=True)
        if root is not None:
            (folder / "root").write_text(str(root))
        if pid:
            (folder / "pid").write_text("1")
    prune_states(daemons / "keep")
    assert sorted(p.name for p in daemons.iterdir()) == ["keep", "present", "running"]


def test_unconfirmed_hits_agree_with_and_without_cached_occurrences(tmp_path: Path) -> None:
    """The review list ("same name in code, not confirmed") is the same whether the files were
    parsed during the request (cached occurrences) or are parsed afterwards."""
    from agent.bootstrap import open_context
    from agent.semantic.filecache import file_cache
    from agent.semantic.name_occurrences import NameSearch, unconfirmed_hits
    from agent.toolcontext import ToolContext

    (tmp_path / "a.py").write_text("def total(x):\n    return x  # total\n\nprint(total(1), 'total')\n")
    (tmp_path / "b.py").write_text("from a import total\ngetattr(m, 'total')\nt = total\n")
    confirmed = {"a.py": {(0, 4)}, "b.py": {(0, 14)}}

    def hits(ctx: ToolContext) -> list[tuple[str, int, int]]:
        found = unconfirmed_hits(ctx, NameSearch(ctx, "total", "python"), confirmed)
        return [(h.path, h.line, h.column) for h in found.hits]

    with open_context(tmp_path) as ctx:
        cache = file_cache(ctx)
        assert cache.cached_occurrences("a.py", "total") is None
        fresh = hits(ctx)
        assert fresh == [("a.py", 3, 6), ("b.py", 2, 4)]  # strings and comments are not code
        assert cache.cached_occurrences("a.py", "total") == [(0, 4), (3, 6)]
        assert hits(ctx) == fresh
        (tmp_path / "b.py").write_text("from a import total\nu = total\n")  # changed: not cached any more
        assert cache.cached_occurrences("b.py", "total") is None
        assert hits(ctx) == [("a.py", 3, 6), ("b.py", 1, 4)]


def test_unconfirmed_hits_parse_a_bounded_number_of_characters_per_query(tmp_path: Path) -> None:
    """Big candidate files (bundles, generated models) are parsed up to a character budget per
    query; the rest are counted as unchecked, and the next query goes on where this one stopped
    (what was parsed is cached), until every candidate has been checked."""
    from agent.bootstrap import open_context
    from agent.semantic.name_occurrences import NameSearch, unconfirmed_hits

    for name in "abcde":
        (tmp_path / f"{name}.py").write_text("total = 1\n" + "x = 0\n" * 500, encoding="utf-8")  # 3,010 chars
    with open_context(tmp_path) as ctx:
        def query() -> tuple[list[str], int]:
            found = unconfirmed_hits(ctx, NameSearch(ctx, "total", "python"), {}, max_chars=5_000)
            return sorted({h.path for h in found.hits}), found.unchecked

        assert query() == (["a.py", "b.py"], 3)  # the second file takes the budget past 5,000
        assert query() == (["a.py", "b.py", "c.py", "d.py"], 1)
        assert query() == (["a.py", "b.py", "c.py", "d.py", "e.py"], 0)
