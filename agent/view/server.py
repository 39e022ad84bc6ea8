"""Serving the view: bind the socket (so that `--port 0` knows its port before the URL is printed),
make the guard's token, print the URL, optionally open a browser, and run uvicorn until Ctrl+C."""

from __future__ import annotations

import ipaddress
import socket
import sys
import webbrowser
from collections.abc import Callable
from pathlib import Path
from typing import TextIO

import uvicorn

from ..registry import Registry
from ..toolcontext import ToolContext
from .app import create_app
from .compare import Comparison
from .security import Guard


class BindError(Exception):
    """The address cannot be bound (in use, not an address of this machine)."""


def bind(host: str, port: int) -> socket.socket:
    try:
        family = socket.AF_INET6 if ipaddress.ip_address(host).version == 6 else socket.AF_INET
    except ValueError:
        family = socket.AF_INET  # a name such as localhost
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen(128)
    except OSError as exc:
        sock.close()
        raise BindError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from exc
    return sock


def wildcard(host: str) -> bool:
    try:
        return ipaddress.ip_address(host).is_unspecified
    except ValueError:
        return False


def serve(ctx: ToolContext, *, host: str, port: int, registry_factory: Callable[[], Registry],
          open_browser: bool = False, path: str = "/runs", comparisons: dict[str, Comparison] | None = None,
          out: TextIO | None = None, eval_dir: Path | None = None) -> None:
    """Serve until interrupted. The first line on `out` is `codeagent view: URL` (tests read it)."""
    out = out or sys.stdout
    sock = bind(host, port)
    guard = Guard(host, sock.getsockname()[1])
    app = create_app(ctx, guard, registry_factory=registry_factory, comparisons=comparisons, eval_dir=eval_dir)
    if wildcard(host):
        print("codeagent view: WARNING: listening on every network interface. Anyone who can reach this "
              "machine and learns the token can read your runs and undo edits; prefer 127.0.0.1 and an SSH "
              "tunnel.", file=sys.stderr, flush=True)
    url = guard.url(path)
    print(f"codeagent view: {url}", file=out, flush=True)
    print(f"  workspace {ctx.workspace.root}; Ctrl+C stops it", file=out, flush=True)
    if open_browser:
        webbrowser.open(url)
    config = uvicorn.Config(app, log_level="warning", access_log=False, lifespan="off",
                            timeout_graceful_shutdown=2)
    try:
        uvicorn.Server(config).run(sockets=[sock])
    finally:
        sock.close()
