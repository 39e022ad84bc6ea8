"""The rest of an early-started server's handshake, done before a session adopts it.

An early server gets the session's `initialize` with its spawn (early_init). A raw client sends
`initialized` the moment that answer comes and answers the server's `workspace/configuration`
at once; the server waits for both before it looks at the workspace. A daemon that does it only
once its protocol layer is imported (~0.4 s quiet, over a second on a loaded machine) keeps the
server idle that long. So a thread, on the standard library, reads the server's output until the
session adopts the process: on the answer to the early `initialize` it writes `initialized` (and
the settings push, for a server that wants one), and it answers `workspace/configuration` from
the settings the session will have. Everything it read is handed over (`handover`) and read
again by the session's client, which thus sees every message as if it had read it itself; only
the answers already given are not given twice.

The session takes the process only if its own settings give the answers that were given (else it
starts another server, as for different `initialize` params): never a different start.
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import IO, Any

from lsp_bridge.early_init import EARLY_ID, frame_message

Lookup = Callable[[str | None], Any]  # a settings lookup: section (None: all) -> value
MAX_BUFFER = 16 * 1024 * 1024  # read before adoption (logs, a few requests); past it, stop reading
HANDOVER_TIMEOUT = 5.0
CONFIGURATION = "workspace/configuration"


@dataclass
class Handover:
    """What the early reader did and read, for the adopting client."""

    data: bytes  # everything read from the server's stdout, from its first byte
    initialized: bool = False  # `initialized` (and the push, if any) was written
    pushed: Any = None  # the settings pushed with it (didChangeConfiguration), if any
    # id of each configuration request answered -> (the sections asked, the answer given)
    answered: dict[int | str, tuple[list[str | None], list[Any]]] = field(default_factory=dict)


class EarlyHandshake:
    """Reads `stdout` of a process that was written the early `initialize`, and completes the
    handshake on the session's behalf (see the module docstring). `settings` answers
    configuration requests (None: they are left to the client); `push`: the server wants
    didChangeConfiguration with all settings after `initialized`."""

    def __init__(self, stdout: IO[bytes], stdin: IO[bytes], settings: Lookup | None, *, push: bool) -> None:
        self._fd = stdout.fileno()
        self._stdin = stdin
        self._settings = settings
        self._push = push
        self._buffer = bytearray()
        self._parsed = 0  # offset of the first byte not yet understood as a whole message
        self._broken = False  # something we could not read as LSP: the client will say what
        self._done = Handover(b"")
        self._wake_r, self._wake_w = os.pipe()
        self._thread = threading.Thread(target=self._run, name="lsp-early-handshake", daemon=True)
        self._thread.start()

    @property
    def answered(self) -> int:
        """How many configuration requests were answered so far."""
        return len(self._done.answered)

    def handover(self) -> Handover | None:
        """Stop reading and return what was read and done; None when the reader would not stop
        (it is stuck writing to a server that does not read: that process must not be used)."""
        with contextlib.suppress(OSError):
            os.write(self._wake_w, b"x")
        self._thread.join(HANDOVER_TIMEOUT)
        if self._thread.is_alive():
            return None
        for fd in (self._wake_r, self._wake_w):
            with contextlib.suppress(OSError):
                os.close(fd)
        self._done.data = bytes(self._buffer)
        return self._done

    def _run(self) -> None:
        with contextlib.suppress(OSError, ValueError):
            while len(self._buffer) < MAX_BUFFER:
                ready, _, _ = select.select([self._fd, self._wake_r], [], [])
                if self._wake_r in ready:
                    return
                chunk = os.read(self._fd, 65536)
                if not chunk:  # the server exited: the client reports it
                    return
                self._buffer += chunk
                if not self._broken:
                    self._read_messages()

    def _read_messages(self) -> None:
        buf = self._buffer
        while True:
            end = buf.find(b"\r\n\r\n", self._parsed)
            if end < 0:
                return
            length = None
            for line in bytes(buf[self._parsed:end]).split(b"\r\n"):
                name, sep, value = line.partition(b":")
                if sep and name.strip().lower() == b"content-length" and value.strip().isdigit():
                    length = int(value.strip())
            if length is None:
                self._broken = True
                return
            start = end + 4
            if len(buf) < start + length:
                return
            try:
                message = json.loads(bytes(buf[start:start + length]))
            except ValueError:
                self._broken = True
                return
            self._parsed = start + length
            if isinstance(message, dict):
                self._handle(message)

    def _handle(self, message: dict[str, Any]) -> None:
        done = self._done
        if message.get("id") == EARLY_ID and "method" not in message:
            if "result" in message and not done.initialized:  # an error: the session reports it
                self._write({"jsonrpc": "2.0", "method": "initialized", "params": {}})
                if self._push and self._settings is not None:
                    done.pushed = self._settings(None)
                    self._write({"jsonrpc": "2.0", "method": "workspace/didChangeConfiguration",
                                 "params": {"settings": done.pushed}})
                done.initialized = True
            return
        msg_id = message.get("id")
        if (message.get("method") != CONFIGURATION or not done.initialized or self._settings is None
                or not isinstance(msg_id, int | str) or msg_id in done.answered):
            return  # anything else is the client's to answer, when it reads it again
        params = message.get("params")
        items = params.get("items") if isinstance(params, dict) else None
        if not isinstance(items, list) or not all(isinstance(i, dict) for i in items):
            return
        sections = [i.get("section") if isinstance(i.get("section"), str) else None for i in items]
        answer = [self._settings(section) for section in sections]
        self._write({"jsonrpc": "2.0", "id": msg_id, "result": answer})
        done.answered[msg_id] = (sections, answer)

    def _write(self, message: dict[str, Any]) -> None:
        data = frame_message(message)
        while data:  # a blocking pipe: a short write only when interrupted
            data = data[os.write(self._stdin.fileno(), data):]


def answered_early(ids: set[int | str], message: dict[str, Any]) -> bool:
    """`message` (read again by the adopting client) is a request the early reader answered
    (`ids`: those of Handover.answered not seen again yet; the one found is removed)."""
    msg_id = message.get("id")
    if message.get("method") != CONFIGURATION or not isinstance(msg_id, int | str) or msg_id not in ids:
        return False
    ids.discard(msg_id)
    return True


def early_settings_agree(done: Handover, settings: Lookup, push: bool) -> bool:
    """The early reader's answers and push are what `settings` (the session's) would give."""
    if done.initialized and done.pushed != (settings(None) if push else None):
        return False
    return all([settings(section) for section in sections] == answer for sections, answer in done.answered.values())
