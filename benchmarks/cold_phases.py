"""The phases of a cold daemon start, timed in one process (not part of the test suite).

    python benchmarks/cold_phases.py ROOT PATH LINE COLUMN [--profile]

Does what a daemon forked by a cold `codeagent refs` does — load the settings, spawn the server
early, import the protocol layer and the daemon, build the Daemon (which warms the server on a
thread), answer find_references — and prints when each step ends and when each LSP message is
sent or answered (seconds since start, thread name). The LSP client's methods are wrapped here to
time them; nothing else changes. --profile: cProfile of the find_references call.
"""

from __future__ import annotations

import argparse
import cProfile
import json
import os
import pstats
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
import bench_code  # noqa: E402

bench_code.use()  # an installed codeagent, else this checkout
T0 = time.perf_counter()


def say(what: str) -> None:
    print(f"{time.perf_counter() - T0:7.3f} [{threading.current_thread().name[:12]}] {what}", flush=True)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("root", type=Path)
    ap.add_argument("path")
    ap.add_argument("line", type=int)
    ap.add_argument("column", type=int)
    ap.add_argument("--profile", action="store_true")
    args = ap.parse_args()
    root = args.root.resolve()
    from agent.config import load_settings

    settings = load_settings(root)
    say("settings loaded")
    from agent.semantic.processes import start_server_early

    start_server_early(settings, root, args.path)
    say("server spawned")
    import lsp_bridge.client as bridge_client

    say("lsp_bridge imported")
    request, notify = bridge_client.BridgeClient.request, bridge_client.BridgeClient.notify

    async def timed_request(self: Any, method: str, *a: Any, **k: Any) -> Any:
        say(f"-> {method}")
        result = await request(self, method, *a, **k)
        say(f"<- {method}")
        return result

    def timed_notify(self: Any, method: str, *a: Any, **k: Any) -> Any:
        if not method.startswith("$/"):
            say(f"-> {method}")
        return notify(self, method, *a, **k)

    bridge_client.BridgeClient.request = timed_request  # type: ignore[method-assign]
    bridge_client.BridgeClient.notify = timed_notify  # type: ignore[method-assign]
    from agent.daemon.server import Daemon
    from agent.languages import server_language

    say("daemon module imported")
    language = server_language(args.path)
    daemon = Daemon(root, Path(tempfile.mkdtemp()), settings, warm=[language] if language else [],
                    warm_files=[args.path])
    say("Daemon built")
    call = {"file_path": args.path, "line": args.line, "column": args.column, "include_declaration": True, "limit": 0}
    profile = cProfile.Profile() if args.profile else None
    if profile:
        profile.enable()
    result = daemon.calls.call("find_references", call, None)
    if profile:
        profile.disable()
    said = json.loads(result) if isinstance(result, bytes) else result
    say(f"answered: {str(said.get('output', '')).splitlines()[0][:100]}")
    times = os.times()
    print(f"CPU of this process: user {times.user:.2f} s, sys {times.system:.2f} s")
    if profile:
        pstats.Stats(profile).sort_stats("cumulative").print_stats(40)
    daemon.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
