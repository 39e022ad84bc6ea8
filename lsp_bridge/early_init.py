"""The `initialize` request an early-started server is sent at once (processes.start_early).

A raw client writes `initialize` the moment it spawns the server; a bridge that first imports its
protocol layer (~0.5 s of CPU, more on a loaded machine) would leave the booted server waiting for
it. So the early path builds the same message on the standard library and writes it with the
spawn. When the session gets to its own start it compares the params it would send (through the
protocol layer) with these: equal, it takes the early request's answer; different, it starts the
server again, so an early message can make a start faster but never different. The capabilities
are the protocol layer's own encoding of wire.client_capabilities(), kept in capabilities.json (a
test regenerates it and fails when the two differ)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from lsp_bridge.uris import path_to_uri

EARLY_ID = "lb-early"  # the bridge's own ids are "lb-<n>": never this one
CLIENT_NAME, CLIENT_VERSION = "codeagent", "0.1"
CAPABILITIES = Path(__file__).with_name("capabilities.json")


def initialize_params(root: Path, options: Any = None) -> dict[str, Any]:
    """The params of the session's `initialize` for `root` (resolved), as JSON values."""
    params: dict[str, Any] = {
        "processId": os.getpid(),
        "clientInfo": {"name": CLIENT_NAME, "version": CLIENT_VERSION},
        "rootPath": str(root),
        "rootUri": path_to_uri(root),
        "capabilities": json.loads(CAPABILITIES.read_text(encoding="utf-8")),
        "workspaceFolders": [{"uri": path_to_uri(root), "name": root.name}],
    }
    if options is not None:
        params["initializationOptions"] = options
    return params


def frame(params: dict[str, Any]) -> bytes:
    """The whole `initialize` message, header and body."""
    return frame_message({"jsonrpc": "2.0", "id": EARLY_ID, "method": "initialize", "params": params})


def frame_message(message: dict[str, Any]) -> bytes:
    """One JSON-RPC message as the base protocol sends it: header and compact UTF-8 body."""
    body = json.dumps(message, separators=(",", ":")).encode("utf-8")
    return b"Content-Length: %d\r\n\r\n" % len(body) + body
