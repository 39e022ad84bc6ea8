"""Semantic commands: `codeagent def|refs|rename|diagnostics TARGET`, `codeagent servers install`,
`codeagent daemon start|stop|status`.

TARGET is `PATH:LINE:COL` (1-based, columns in characters), `PATH::NAME_PATH`, or a bare name path
such as `QuerySet.filter`. Calls run in the workspace's daemon (servers stay warm between calls)
and in-process when it cannot start; `--json` prints the same single object either way.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from ..cli import make_context
from ..config import ConfigError, Settings, load_settings
from ..errors import ToolUsageError
from ..registry import load_all_tools
from .light import (
    EXIT_FAILED,
    EXIT_OK,
    LINE_ONLY,
    POSITION_ONLY,
    UsageError,
    emit,
    file_arg,
    parse_target,
    print_json,
)


# ---------------------------------------------------------------------------------- running a tool
def _root(raw: str) -> Path:
    root = Path(raw).expanduser().resolve()
    if not root.is_dir():
        raise UsageError(f"--root {raw!r} is not a folder")
    return root


def _settings(root: Path) -> Settings:
    try:
        return load_settings(root)
    except ConfigError as exc:
        raise UsageError(str(exc)) from exc


def run_tool(root: Path, name: str, tool_args: dict[str, Any], *, use_daemon: bool) -> dict[str, Any]:
    """Run one tool in the daemon (or in-process) and return its result as a JSON-ready dict.
    The daemon path imports no tool code here: a warm call costs little more than the answer."""
    settings = _settings(root)
    if use_daemon and settings.lsp.daemon == "auto":
        from ..semantic.daemon_client import DaemonClient
        from ..semantic.daemon_protocol import DaemonError

        try:
            result = DaemonClient(root, settings, fork=True).call_tool(name, tool_args)
        except DaemonError as exc:
            print(f"codeagent: daemon unavailable ({exc}); running in-process", file=sys.stderr)
        else:
            if not result.get("success") and (result.get("data") or {}).get("usage_error"):
                raise UsageError(str(result.get("error")))
            return result
    file_path = tool_args.get("file_path")
    if isinstance(file_path, str):  # the server boots while the tools load (lsp_bridge.prespawn)
        from ..semantic.early import start_server_early

        start_server_early(settings, root, file_path)
    registry = load_all_tools()
    try:
        tool, params = registry.validate(name, tool_args)
    except ToolUsageError as exc:
        raise UsageError(str(exc)) from exc
    with make_context(str(root)) as ctx:
        result = registry.execute(ctx, tool, params).to_dict()
    # The same JSON round trip the daemon's answer makes, so both print exactly the same.
    out: dict[str, Any] = json.loads(json.dumps(result, default=str))
    return out


def _emit(args: argparse.Namespace, result: dict[str, Any], text: str | None = None) -> int:
    return emit(bool(args.json), result, text)


def cmd_def(args: argparse.Namespace) -> int:
    root = _root(args.root)
    result = run_tool(root, "find_definition", parse_target(args.target, root), use_daemon=not args.no_daemon)
    return _emit(args, result)


def cmd_refs(args: argparse.Namespace) -> int:
    root = _root(args.root)
    tool_args = {**parse_target(args.target, root), "include_declaration": not args.no_declaration}
    result = run_tool(root, "find_references", tool_args, use_daemon=not args.no_daemon)
    return _emit(args, result)


def cmd_rename(args: argparse.Namespace) -> int:
    root = _root(args.root)
    tool_args = {**parse_target(args.target, root), "new_name": args.new_name,
                 "dry_run": bool(args.dry_run or args.compare), "allow_syntactic": args.allow_syntactic,
                 "check_diagnostics": args.check, "force": args.force}
    result = run_tool(root, "rename_symbol", tool_args, use_daemon=not args.no_daemon)
    if not args.compare or not result.get("success"):
        return _emit(args, result)
    text = _compare(root, result)
    return _emit(args, result, text)


def _compare(root: Path, result: dict[str, Any]) -> str:
    from ..refactor.compare import compare_rename, format_compare
    from ..result import Location
    from ..semantic.languages import server_language
    from ..toolcontext import ToolContext
    from ..workspace import Workspace

    data = result["data"]
    settings = _settings(root)
    ctx = ToolContext(Workspace(root, max_read_bytes=settings.workspace.max_read_bytes), settings)
    planned = [Location(s["path"], s["line"], s["column"], s["end_line"], s["end_column"])
               for s in data.get("sites", [])]
    family = server_language(data["target"].rsplit(":", 2)[0])
    compared = compare_rename(ctx, data["old_name"], family, planned)
    if data.get("site_count", 0) > len(planned):
        compared["note"] = f"only the first {len(planned)} of {data['site_count']} semantic sites were compared"
    data["compare"] = compared
    text = format_compare(ctx, compared, data["old_name"], data["new_name"])
    return f"{text}\n(nothing was written: --compare is a dry run)"


def cmd_diagnostics(args: argparse.Namespace) -> int:
    root = _root(args.root)
    raw = args.path
    m = POSITION_ONLY.match(raw) or LINE_ONLY.match(raw)
    path = m["path"] if m else raw
    result = run_tool(root, "get_diagnostics", {"file_path": file_arg(path, root)}, use_daemon=not args.no_daemon)
    return _emit(args, result)


# ---------------------------------------------------------------------------------- servers, daemon
def cmd_servers_install(args: argparse.Namespace) -> int:
    from lsp_bridge.errors import BridgeError
    from lsp_bridge.servers import install_servers

    settings = _settings(_root(args.root))
    lsp = settings.lsp
    names = args.names or [lsp.python_server, lsp.typescript_server]
    folder = args.dir or lsp.install_dir
    cache = Path(folder).expanduser() if folder else None
    try:
        results = install_servers(names, cache_dir=cache, force=args.force,
                                  log=lambda msg: print(msg, file=sys.stderr))
    except BridgeError as exc:
        if args.json:
            print_json({"success": False, "error": str(exc)})
        else:
            print(f"codeagent: {exc}", file=sys.stderr)
        return EXIT_FAILED
    if args.json:
        print_json({"success": True, "servers": results})
    else:
        for name, what in results.items():
            print(f"{name}: {what}")
    return EXIT_OK


def cmd_daemon(args: argparse.Namespace) -> int:
    from ..semantic.daemon_client import DaemonClient
    from ..semantic.daemon_protocol import DaemonError

    root = _root(args.root)
    client = DaemonClient(root, _settings(root), fork=True)
    out: dict[str, Any]
    if args.action == "start":
        try:
            client.ensure_running()
        except DaemonError as exc:
            out = {"success": False, "error": str(exc)}
        else:
            out = {"success": True, **(client.ping() or {})}
    elif args.action == "stop":
        out = {"success": True, "stopped": client.stop()}
    else:
        info = client.ping()
        out = {"success": True, "running": info is not None, **(info or {}), "state": str(client.state)}
    if args.json:
        print_json(out)
    elif not out["success"]:
        print(f"codeagent: {out['error']}", file=sys.stderr)
    elif args.action == "status":
        print(f"daemon for {root}: " + (f"running (pid {out['pid']})" if out["running"] else "not running"))
    elif args.action == "start":
        print(f"daemon for {root}: running (pid {out.get('pid')})")
    else:
        print(f"daemon for {root}: {'stopped' if out['stopped'] else 'was not running'}")
    return EXIT_OK if out["success"] else EXIT_FAILED


def _common(p: argparse.ArgumentParser, *, daemon: bool = True) -> None:
    p.add_argument("--root", default=".", help="workspace root (default: the current folder)")
    p.add_argument("--json", action="store_true", help="print one JSON object (the tool result)")
    if daemon:
        p.add_argument("--no-daemon", action="store_true", help="run in this process (no background server)")


def register(sub: Any) -> None:
    target_help = "PATH:LINE:COL (1-based, columns in characters), PATH::NAME or a name such as Class.method"

    p = sub.add_parser("def", help="where a symbol is defined")
    p.add_argument("target", help=target_help)
    _common(p)
    p.set_defaults(func=cmd_def)

    p = sub.add_parser("refs", help="every reference to a symbol, grouped by file")
    p.add_argument("target", help=target_help)
    p.add_argument("--no-declaration", action="store_true", help="leave the definition itself out")
    _common(p)
    p.set_defaults(func=cmd_refs)

    p = sub.add_parser("rename", help="rename a symbol everywhere (language server; one undo)")
    p.add_argument("target", help=target_help)
    p.add_argument("new_name", help="the new identifier")
    p.add_argument("--dry-run", action="store_true", help="print the diff; write nothing")
    p.add_argument("--compare", action="store_true",
                   help="dry run, side by side with a word-boundary text replacement: what it would wrongly "
                   "change and what it would miss")
    p.add_argument("--allow-syntactic", action="store_true",
                   help="without a language server, rename same-named identifiers in other files too")
    p.add_argument("--check", action="store_true",
                   help="after writing, wait for the language server to re-check the changed files and report "
                   "the errors the rename introduced (off by default: a full re-check of every changed file "
                   "costs seconds on big files; the agent's rename_symbol tool always checks)")
    p.add_argument("--force", action="store_true",
                   help="write the rename even when the new name conflicts with an existing one (refused otherwise)")
    _common(p)
    p.set_defaults(func=cmd_rename)

    p = sub.add_parser("diagnostics", help="errors and warnings of a file")
    p.add_argument("path", help="PATH (PATH:LINE:COL is accepted; the whole file is checked)")
    _common(p)
    p.set_defaults(func=cmd_diagnostics)

    p = sub.add_parser("servers", help="language servers")
    servers = p.add_subparsers(dest="servers_command", required=True, metavar="ACTION")
    q = servers.add_parser("install", help="install the npm-based servers (pinned versions) into the cache")
    q.add_argument("names", nargs="*", help="servers to install (default: the configured ones), e.g. tsc pyright")
    q.add_argument("--dir", help="install folder (default: settings lsp.install_dir or the user cache)")
    q.add_argument("--force", action="store_true", help="reinstall even if present")
    _common(q, daemon=False)
    q.set_defaults(func=cmd_servers_install)

    p = sub.add_parser("daemon", help="the background process keeping language servers warm")
    p.add_argument("action", choices=["start", "stop", "status"])
    _common(p, daemon=False)
    p.set_defaults(func=cmd_daemon)
