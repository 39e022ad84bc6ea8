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

from ..config import ConfigError, Settings, load_settings
from ..errors import ToolUsageError
from .arguments import COMMAND_HELP, TOOLS, add_arguments, add_common, tool_args
from .output import EXIT_FAILED, EXIT_OK, UsageError, emit, print_json, print_undo_hint
from .servers_status import cmd_servers_status


# ---------------------------------------------------------------------------------- running a tool
def _root(raw: str) -> Path:
    root = Path(raw).expanduser().resolve()
    if not root.is_dir():
        raise UsageError(f"--root {raw!r} is not a folder")
    return root


def _settings(root: Path) -> Settings:
    try:
        settings = load_settings(root)
    except ConfigError as exc:
        raise UsageError(str(exc)) from exc
    from .context import show_config_warnings  # (the tool context's module: loaded when a command runs)

    show_config_warnings(settings)
    return settings


def run_tool(root: Path, settings: Settings, name: str, tool_args: dict[str, Any], *,
             use_daemon: bool, early_server: bool = True, tool_module: str | None = None) -> dict[str, Any]:
    """Run one tool in the daemon (or in-process) and return its result as a JSON-ready dict.
    The daemon path imports no tool code here: a warm call costs little more than the answer.
    `tool_module` (in agent.tools.TOOL_MODULES): in-process, load only that module's tools."""
    if use_daemon and settings.lsp.daemon == "auto":
        from ..daemon.client import DaemonClient
        from ..daemon.protocol import DaemonError

        try:
            result = DaemonClient(root, settings, fork=True).call_tool(name, tool_args)
        except DaemonError as exc:
            print(f"codeagent: daemon unavailable ({exc}); running in-process", file=sys.stderr)
        else:
            if not result.get("success") and (result.get("data") or {}).get("usage_error"):
                raise UsageError(str(result.get("error")))
            return result
    file_path = tool_args.get("file_path")
    if isinstance(file_path, str) and early_server:  # the server boots while the tools load (lsp_bridge.processes)
        from ..semantic.processes import start_server_early

        start_server_early(settings, root, file_path)
    from ..bootstrap import load_all_tools, load_tools
    from .context import make_context

    registry = load_tools(tool_module) if tool_module else load_all_tools()
    try:
        tool, params = registry.validate(name, tool_args)
    except ToolUsageError as exc:
        raise UsageError(str(exc)) from exc
    with make_context(str(root), settings=settings) as ctx:
        result = registry.execute(ctx, tool, params).to_dict()
    # The same JSON round trip the daemon's answer makes, so both print exactly the same.
    out: dict[str, Any] = json.loads(json.dumps(result, default=str))
    return out


def _emit(args: argparse.Namespace, result: dict[str, Any], text: str | None = None) -> int:
    code = emit(bool(args.json), result, text)
    print_undo_hint(result, args.root)
    return code


def cmd_semantic(args: argparse.Namespace) -> int:
    """def, refs, rename, diagnostics: the command's tool, in the daemon or in this process."""
    root = _root(args.root)
    settings = _settings(root)  # once per command: the daemon and the tools get these
    if args.command == "rename" and args.view and not args.compare:
        raise UsageError("--view shows a comparison: use it with --compare")
    result = run_tool(root, settings, TOOLS[args.command], tool_args(args.command, args, root),
                      use_daemon=not args.no_daemon)
    if args.command != "rename" or not args.compare or not result.get("success"):
        return _emit(args, result)
    text = _compare(root, settings, result)
    code = _emit(args, result, text)
    if args.view:  # the same comparison as a page (agent/view), served until Ctrl+C
        from ..view.launch import view_comparison

        return view_comparison(root, result["data"]) or code
    return code


def _compare(root: Path, settings: Settings, result: dict[str, Any]) -> str:
    from ..refactor.compare import compare_plan, format_compare
    from ..toolcontext import ToolContext
    from ..workspace import Workspace

    data = result["data"]
    ctx = ToolContext(Workspace(root, max_read_bytes=settings.workspace.max_read_bytes), settings)
    compared = data["compare"] = compare_plan(ctx, data)
    text = format_compare(ctx, compared, data["old_name"], data["new_name"])
    return f"{text}\n(nothing was written: --compare is a dry run)"


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
    from ..daemon.client import DaemonClient
    from ..daemon.protocol import DaemonError

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


def register(sub: Any) -> None:
    for command in ("def", "refs", "rename", "diagnostics"):
        p = sub.add_parser(command, help=COMMAND_HELP[command])
        add_arguments(p, command)
        p.set_defaults(func=cmd_semantic)

    p = sub.add_parser("servers", help="language servers")
    servers = p.add_subparsers(dest="servers_command", required=True, metavar="ACTION")
    q = servers.add_parser("install", help="install the npm-based servers (pinned versions) into the cache")
    q.add_argument("names", nargs="*", help="servers to install (default: the configured ones), e.g. tsc pyright")
    q.add_argument("--dir", help="install folder (default: settings lsp.install_dir or the user cache)")
    q.add_argument("--force", action="store_true", help="reinstall even if present")
    add_common(q, daemon=False)
    q.set_defaults(func=cmd_servers_install)

    q = servers.add_parser("status", help="installed servers, versions, which one each language uses, "
                           "running daemons with their memory")
    add_common(q, daemon=False)
    q.set_defaults(func=lambda args: cmd_servers_status(args, _settings(_root(args.root))))

    p = sub.add_parser("daemon", help="the background process keeping language servers warm")
    p.add_argument("action", choices=["start", "stop", "status"])
    add_common(p, daemon=False)
    p.set_defaults(func=cmd_daemon)
