"""`codeagent servers status`: the language servers the bridge knows (installed or not, version,
where), which one each language uses here, and the running daemons with their memory (the
daemon and its language servers together)."""

from __future__ import annotations

import argparse
import contextlib
import importlib.metadata
import os
from pathlib import Path
from typing import Any

from lsp_bridge.memory import children, tree_rss
from lsp_bridge.servers import SERVERS, ServerSpec, get_spec, install_dir

from ..config import Settings
from ..daemon.protocol import DaemonError, runtime_base
from .output import EXIT_OK, print_json


def _version(spec: ServerSpec) -> str:
    if spec.npm_packages:
        return " + ".join(spec.npm_packages)
    with contextlib.suppress(importlib.metadata.PackageNotFoundError):
        return f"{spec.name}=={importlib.metadata.version(spec.name)}"
    return "?"


def _shown(command: list[str] | None) -> str | None:
    """The program that is the server: for `node script.js --stdio`, the script."""
    if not command:
        return None
    return command[1] if len(command) > 1 and os.path.basename(command[0]) == "node" else command[0]


def servers(settings: Settings) -> list[dict[str, Any]]:
    cache = Path(settings.lsp.install_dir).expanduser() if settings.lsp.install_dir else None
    out = []
    for spec in SERVERS.values():
        command = spec.locate(install_dir(spec, cache))
        out.append({"name": spec.name, "language": spec.language, "installed": command is not None,
                    "version": _version(spec), "command": _shown(command),
                    "install_hint": None if command else spec.install_hint})
    return out


def languages(settings: Settings) -> dict[str, dict[str, Any]]:
    lsp = settings.lsp
    out: dict[str, dict[str, Any]] = {}
    for language, name in (("python", lsp.python_server), ("typescript", lsp.typescript_server)):
        spec = get_spec(name)
        custom = lsp.server_commands.get(language)
        out[language] = {"server": spec.name, "command": custom or None,
                         "fallback": spec.fallback if spec.fallback and lsp.server_fallback and not custom else None}
    return out


def daemons() -> list[dict[str, Any]]:
    try:
        folder = runtime_base() / "daemons"
    except DaemonError:
        return []
    out = []
    for state in sorted(folder.iterdir()) if folder.is_dir() else []:
        try:
            pid = int((state / "pid").read_text(encoding="ascii").strip())
            root = (state / "root").read_text(encoding="utf-8").strip()
            os.kill(pid, 0)
        except (OSError, ValueError):
            continue
        out.append({"pid": pid, "root": root, "rss_mib": round((tree_rss(pid) or 0) / 2**20, 1),
                    "processes": 1 + len(children(pid))})
    return out


def cmd_servers_status(args: argparse.Namespace, settings: Settings) -> int:
    known, used, running = servers(settings), languages(settings), daemons()
    if args.json:
        print_json({"success": True, "servers": known, "languages": used, "daemons": running})
        return EXIT_OK
    print("language servers:")
    for s in known:
        where = s["command"] if s["installed"] else f"not installed: {s['install_hint']}"
        print(f"  {s['name']:28} {s['language']:10} {s['version']:48} {where}")
    print("used here:")
    for language, use in used.items():
        extra = f" (falls back to {use['fallback']} when it rejects the project's config)" if use["fallback"] else ""
        custom = f" run as {' '.join(use['command'])}" if use["command"] else ""
        print(f"  {language:10} {use['server']}{custom}{extra}")
    print("running daemons:" if running else "running daemons: none")
    for d in running:
        print(f"  pid {d['pid']:<8} {d['rss_mib']:>8.1f} MiB  {d['processes']} process(es)  {d['root']}")
    return EXIT_OK
