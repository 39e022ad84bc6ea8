"""Start a daemon under a tracing wrapper script (daemon_trace.py, first_warm_daemon.py) for a
bench's DaemonClient, and wait until it answers. The importing bench puts the codeagent checkout
it measures on sys.path first."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from agent.daemon.client import DaemonClient
from agent.daemon.protocol import settings_json

HERE = Path(__file__).resolve().parent


def spawn(client: DaemonClient, language: str, out: Path, script: str,
          env: dict[str, str] | None = None) -> subprocess.Popen[bytes]:
    """`script` (in benchmarks/) as `client`'s daemon, warming `language`, tracing into `out`."""
    state = client.state
    state.mkdir(parents=True, exist_ok=True)
    (state / "settings.json").write_text(settings_json(client.settings), encoding="utf-8")
    (state / "root").write_text(str(client.root), encoding="utf-8")
    cmd = [sys.executable, str(HERE / script), "--root", str(client.root), "--state", str(state),
           "--warm", language]
    log = open(state / "daemon.log", "ab")  # noqa: SIM115 (the daemon's whole life)
    proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=log, cwd=str(state),
                            start_new_session=True, env={**os.environ, "CODEAGENT_TRACE_OUT": str(out), **(env or {})})
    deadline = time.monotonic() + 120
    while client.ping() is None:
        if time.monotonic() > deadline or proc.poll() is not None:
            log.flush()
            tail = (state / "daemon.log").read_text(errors="replace")[-3000:] if (state / "daemon.log").exists() else ""
            raise RuntimeError(f"traced daemon did not start; its log ends:\n{tail}")
        time.sleep(0.05)
    return proc
