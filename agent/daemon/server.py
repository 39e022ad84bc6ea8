"""The per-workspace daemon: one long-lived ToolContext whose language servers stay warm between
CLI calls. It serves one connection at a time on a unix socket (see protocol.py) and exits after an idle period, when its
workspace disappears, on `stop`, or on SIGTERM/SIGINT (stopping its servers on the way out).

Run by the CLI as `python -m agent.daemon.server --root ROOT --state DIR`; never by hand.
"""

from __future__ import annotations

import argparse
import contextlib
import fcntl
import gc
import json
import logging
import os
import select
import shutil
import signal
import socket
import sys
import threading
import time
from pathlib import Path
from types import FrameType
from typing import Any

import setproctitle

from ..bootstrap import open_context
from ..config import Settings
from ..languages import server_language
from ..semantic.filecache import file_cache
from ..semantic.name_occurrences import SourceListing, source_listing
from ..semantic.sessions import notify_changed, session_for
from ..semantic.upkeep import ServerUpkeep
from .cached import CachedCalls
from .codewatch import CodeWatch
from .peer import refusal as peer_refusal
from .protocol import DaemonError, await_close, install_id, recv_message, send_message, settings_id
from .toolload import ToolLoader

log = logging.getLogger("codeagent.daemon")

POLL_SECONDS = 2.0  # how often an idle daemon checks its workspace still exists
CLIENT_READ_TIMEOUT = 30.0
MAX_KNOWN_INPUTS = 64  # settings fingerprints remembered for the CLI's fast path
MAX_LOG_BYTES = 1 << 20  # the log is appended to across daemon lives and started afresh past this


class Daemon:
    def __init__(self, root: Path, state: Path, settings: Settings, *, warm: list[str] | None = None,
                 warm_files: list[str] | None = None):
        self.root = root
        self.state = state
        self.settings = settings
        self.idle_timeout = settings.lsp.daemon_idle_timeout
        self.code = CodeWatch()  # before anything is compared: an edit from now on is seen
        self.build = install_id()
        self.settings_id = settings_id(settings)
        self.known_inputs: set[str] = set()  # fingerprints (protocol.inputs_id) of these settings
        self.ctx = open_context(root, settings=settings)
        for language in warm or []:
            # Start the server the first request needs now: it indexes while the tools load.
            threading.Thread(target=self._warm, args=(language, warm_files or []), daemon=True).start()
        self.tools = ToolLoader()  # the first request's tools now, the others after its answer
        self.registry = self.tools.registry
        self.calls = CachedCalls(self.ctx, self.registry, self.settings_id)  # repeated queries from a cache
        self.upkeep = ServerUpkeep(self.ctx)  # memory limit and idle stop of the servers, between requests
        # The listing of source files (folder watches; the texts read into memory) serves the
        # searches for unconfirmed occurrences. It is built after the first answer, never competing
        # with it (that request searches with ripgrep; the bridge watches the tree on its own).
        self._listing: SourceListing | None = None
        self._listing_thread: threading.Thread | None = None
        self._idle = threading.Event()  # set while no request is being answered
        self._idle.set()
        self.stopping = False
        self.last_request = time.monotonic()
        self._said: tuple[str, float] | None = None  # the last tool call and its time, for the log

    def _warm(self, language: str, files: list[str]) -> None:
        started = time.monotonic()
        try:
            session = session_for(self.ctx, language)
            for file in files:  # opened at once: the server starts analysing what the request is about
                with contextlib.suppress(Exception):
                    real = self.ctx.workspace.resolve(file)
                    if server_language(real) == language:
                        session.sync(real)
            # The parse worker too: the first request's candidate files parse in it, not in here
            # beside the thread that reads the server's answer (syntax/parse_worker.py).
            file_cache(self.ctx).start_worker()
            session.ready(self.settings.lsp.ready_timeout)
        except Exception as exc:  # the request that needs it reports the problem properly
            log.warning("warming the %s server failed: %s", language, exc)
        else:
            log.info("%s server ready after %.1f s", language, time.monotonic() - started)

    def _start_listing(self) -> None:
        self._listing = source_listing(self.ctx)
        self._listing.prefetch(between=self._idle.wait)  # reads pause while a request is answered
        # What is loaded now (modules, tools, cached texts, the word index) lives as long as the
        # daemon: out of the collector's sight, a full collection during a request takes ~1 ms
        # instead of ~100 ms on a big tree.
        self.tools.join()  # the tools loading after the first answer are frozen too
        self._idle.wait()
        gc.collect()
        gc.freeze()

    def _after_request(self) -> None:
        """Once the first answer is out: watch the tree and read it into memory, so later searches
        for unconfirmed occurrences run without ripgrep."""
        self.tools.complete_later()
        if self._listing_thread is None:
            self._listing_thread = threading.Thread(target=self._start_listing, daemon=True)
            self._listing_thread.start()

    def serve(self, listener: socket.socket) -> None:
        while not self.stopping:
            idle = time.monotonic() - self.last_request
            if idle >= self.idle_timeout:
                log.info("idle for %.0f s: exiting", idle)
                return
            if not self.ctx.workspace.root.is_dir():
                log.info("workspace %s is gone: exiting", self.root)
                return
            wait = min(POLL_SECONDS, self.idle_timeout - idle)
            try:
                readable, _, _ = select.select([listener], [], [], max(wait, 0.05))
            except InterruptedError:
                continue
            if not readable:
                if self.code.changed():  # the next call gets a daemon with the new code at once
                    log.info("codeagent's code changed: exiting")
                    return
                self.upkeep.stop_idle()
                continue
            try:
                conn, _ = listener.accept()
            except OSError:
                continue
            why = peer_refusal(conn)
            if why is not None:  # another user, or a command in a sandbox: never served
                log.warning("refused a connection: %s", why)
                conn.close()
                continue
            self._idle.clear()
            try:
                with conn:
                    op = self.handle(conn)
            finally:
                self._idle.set()
            if op == "tool":  # a status ping must not keep an idle daemon alive
                self.upkeep.after_request()
                self.last_request = time.monotonic()
                self._after_request()  # (a starting CLI's ping comes before its first request)

    def handle(self, conn: socket.socket) -> str | None:
        """Answer one connection; returns its op."""
        conn.settimeout(CLIENT_READ_TIMEOUT)
        try:
            request = recv_message(conn)
        except (DaemonError, OSError) as exc:
            log.warning("bad request: %s", exc)
            with contextlib.suppress(OSError):
                send_message(conn, {"ok": False, "error": f"bad request: {exc}"})
            return None
        conn.settimeout(None)
        reply = self.answer(request)
        try:
            send_message(conn, reply)
            await_close(conn)  # the after-work below waits until the client has its reply
        except OSError as exc:  # the client gave up (Ctrl-C); the next one is served normally
            log.warning("client went away: %s", exc)
        if self._said is not None:  # (a file write: after the reply, not before it)
            log.info("%s %.3f s", *self._said)
            self._said = None
        op = request.get("op")
        return op if isinstance(op, str) else None

    def answer(self, request: dict[str, Any]) -> dict[str, Any]:
        op = request.get("op")
        if request.get("build") != self.build or self.code.changed() or ("settings" in request and request["settings"] != self.settings_id):
            self.stopping = True
            return {"ok": False, "restart": True, "error": "daemon runs other code or settings; restarting"}
        inputs = request.get("inputs")
        if "settings" in request:
            if isinstance(inputs, str):  # these config files and variables make this daemon's settings
                if len(self.known_inputs) >= MAX_KNOWN_INPUTS:
                    self.known_inputs.clear()
                self.known_inputs.add(inputs)
        elif inputs not in self.known_inputs:  # the fast path: the CLI did not build its settings
            return {"ok": False, "unknown_inputs": True, "error": "settings not known to match; ask with them"}
        if op == "ping":
            return {"ok": True, "result": {"pid": os.getpid(), "root": str(self.root)}}
        if op == "stop":
            self.stopping = True
            return {"ok": True, "result": {"stopped": os.getpid()}}
        if op != "tool":
            return {"ok": False, "error": f"unknown op {op!r}"}
        name, args = request.get("name"), request.get("args")
        if not isinstance(name, str) or not isinstance(args, dict):
            return {"ok": False, "error": "a tool request needs a name and an args object"}
        self.tools.ensure(name)  # a tool not loaded yet: load them all first, then look it up
        if request.get("read_only") and self.tools.has(name) and not self.registry.get(name).read_only:
            return {"ok": False, "not_read_only": True, "error": f"{name} changes files or runs commands: run it "
                    "in the calling process"}
        started = time.monotonic()
        try:
            listing = self._listing  # None until its folder walk is done: that walk sees everything
            created_or_deleted = listing.poll() if listing is not None else []
            if created_or_deleted:
                notify_changed(self.ctx, created_or_deleted)
            result = self.calls.call(name, args, listing)
        except Exception as exc:  # the registry converts tool errors; this is a daemon bug
            log.exception("request failed")
            return {"ok": False, "error": f"daemon error: {type(exc).__name__}: {exc}"}
        self._said = (name, time.monotonic() - started)  # logged once the reply is out (handle)
        if notes := self.upkeep.take_notes():  # added to a copy: never into a kept answer
            said = json.loads(result) if isinstance(result, bytes) else result
            result = {**said, "data": {**(said.get("data") or {}), "server_notes": notes}}
        return {"ok": True, "result": result}

    def close(self) -> None:
        self.code.close()
        self.ctx.close()


def _bind(path: Path) -> socket.socket:
    with contextlib.suppress(FileNotFoundError):
        path.unlink()
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    old_umask = os.umask(0o077)
    try:
        listener.bind(str(path))
    finally:
        os.umask(old_umask)
    listener.listen(8)
    return listener


def run(root: Path, state: Path, settings: Settings, warm: list[str], warm_files: list[str] | None = None) -> int:
    """Serve until idle, stopped or orphaned. `settings` are the starting CLI's, exactly."""
    # `ps` and `top` name the daemon and its workspace, not the `codeagent refs ...` it forked from.
    setproctitle.setproctitle(f"codeagent daemon {root}")
    log_file = state / "daemon.log"
    if log_file.exists() and log_file.stat().st_size > MAX_LOG_BYTES:
        log_file.unlink()
    logging.basicConfig(filename=log_file, filemode="a", level=logging.WARNING, force=True,
                        format="%(asctime)s %(name)s %(levelname)s %(message)s")
    for ours in (log, logging.getLogger("codeagent.servers")):  # our own lines only: pygls logs every message at INFO
        ours.setLevel(logging.INFO)
    with open(state / "daemon.lock", "a+") as singleton:  # held for this daemon's life
        try:
            fcntl.flock(singleton, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:  # another daemon serves this workspace (two CLIs started one each)
            log.info("another daemon serves %s: exiting", root)
            return 0
        return _serve(root, state, Daemon(root, state, settings, warm=warm, warm_files=warm_files))


def _serve(root: Path, state: Path, daemon: Daemon) -> int:
    def on_signal(signum: int, frame: FrameType | None) -> None:
        daemon.stopping = True

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    sock_path = state / "sock"
    listener = _bind(sock_path)
    (state / "pid").write_text(str(os.getpid()), encoding="ascii")
    log.info("serving %s on %s (pid %d)", root, sock_path, os.getpid())
    try:
        daemon.serve(listener)
    finally:
        listener.close()
        # Only remove what is still ours: a successor may already have bound a new socket.
        with contextlib.suppress(OSError):
            if (state / "pid").read_text(encoding="ascii") == str(os.getpid()):
                sock_path.unlink()
                (state / "pid").unlink()
        daemon.close()
        log.info("stopped")
        if not root.is_dir():  # nobody will ask for this workspace's daemon again
            logging.shutdown()
            shutil.rmtree(state, ignore_errors=True)
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="codeagent-daemon")
    parser.add_argument("--root", required=True)
    parser.add_argument("--state", required=True)
    parser.add_argument("--warm", action="append", default=[], choices=["python", "typescript"],
                        help="start this language's server right away")
    parser.add_argument("--warm-file", action="append", default=[], help="a file to open in the warm server")
    args = parser.parse_args(argv)
    state = Path(args.state)
    settings = Settings.model_validate_json((state / "settings.json").read_text(encoding="utf-8"))
    from ..semantic.processes import start_language_early

    for language in args.warm:  # the server boots while this process loads the tools
        start_language_early(settings, Path(args.root), language)
    return run(Path(args.root), state, settings, args.warm, args.warm_file)


if __name__ == "__main__":
    sys.exit(main())
