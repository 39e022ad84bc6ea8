"""A minimal LSP client over stdio (standard library only), the "raw server" side of refs_bench:
no pooling, no position conversion beyond ASCII, no retries — just the requests, timed."""

from __future__ import annotations

import json
import os
import subprocess
import threading
import time
from pathlib import Path
from typing import Any


class RawLsp:
    def __init__(self, cmd: list[str], root: Path, settings: dict[str, Any] | None = None):
        self.root = root
        self.settings = settings or {}
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, cwd=str(root))
        self._next = 0
        self._pending: dict[int, threading.Event] = {}
        self._results: dict[int, Any] = {}
        self._lock = threading.Lock()
        self.logs: list[str] = []
        self.ready = threading.Event()
        threading.Thread(target=self._reader, daemon=True).start()

    # ------------------------------------------------------------ wire
    def _send(self, obj: dict[str, Any]) -> None:
        body = json.dumps(obj).encode()
        assert self.proc.stdin is not None
        with self._lock:
            self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
            self.proc.stdin.flush()

    def _reader(self) -> None:
        out = self.proc.stdout
        assert out is not None
        while True:
            length = 0
            while True:
                line = out.readline()
                if not line:
                    return
                if line in (b"\r\n", b"\n"):
                    break
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":")[1])
            msg = json.loads(out.read(length))
            if "id" in msg and "method" in msg:
                self._answer(msg)
            elif "id" in msg:
                self._results[msg["id"]] = msg.get("result", msg.get("error"))
                event = self._pending.pop(msg["id"], None)
                if event:
                    event.set()
            else:
                self._notification(msg)

    def _answer(self, msg: dict[str, Any]) -> None:
        result: Any = None
        if msg["method"] == "workspace/configuration":
            result = [self._section(item.get("section")) for item in msg["params"]["items"]]
        self._send({"jsonrpc": "2.0", "id": msg["id"], "result": result})

    def _section(self, section: str | None) -> Any:
        node: Any = self.settings
        for part in (section or "").split(".") if section else []:
            node = node.get(part, {}) if isinstance(node, dict) else {}
        return node

    def _notification(self, msg: dict[str, Any]) -> None:
        method = msg.get("method")
        if method == "window/logMessage":
            text = msg["params"]["message"]
            self.logs.append(text)
            if "source file" in text and text.lstrip().startswith("Found"):
                self.ready.set()
        elif method == "$/progress" and msg["params"].get("value", {}).get("kind") == "end":
            self.ready.set()

    def request(self, method: str, params: Any, timeout: float = 300) -> Any:
        with self._lock:
            self._next += 1
            rid = self._next
        event = threading.Event()
        self._pending[rid] = event
        self._send({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
        if not event.wait(timeout):
            raise TimeoutError(method)
        return self._results.pop(rid)

    def notify(self, method: str, params: Any) -> None:
        self._send({"jsonrpc": "2.0", "method": method, "params": params})

    # ------------------------------------------------------------ LSP
    def initialize(self) -> None:
        uri = self.root.as_uri()
        self.request("initialize", {
            "processId": os.getpid(), "rootUri": uri,
            "workspaceFolders": [{"uri": uri, "name": self.root.name}],
            "capabilities": {"workspace": {"configuration": True, "workspaceFolders": True},
                             "window": {"workDoneProgress": True},
                             "textDocument": {"references": {}, "synchronization": {}}},
        })
        self.notify("initialized", {})

    def open(self, path: Path, language_id: str = "python") -> None:
        self.notify("textDocument/didOpen", {"textDocument": {
            "uri": path.as_uri(), "languageId": language_id, "version": 1, "text": path.read_text()}})

    def references(self, path: Path, line0: int, col0: int) -> list[Any]:
        result = self.request("textDocument/references", {
            "textDocument": {"uri": path.as_uri()}, "position": {"line": line0, "character": col0},
            "context": {"includeDeclaration": True}})
        return list(result or [])

    def close(self) -> None:
        try:
            self.request("shutdown", None, timeout=10)
            self.notify("exit", None)
            self.proc.wait(timeout=10)
        except Exception:
            self.proc.kill()
            self.proc.wait()


def timed(fn: Any, *args: Any) -> tuple[float, Any]:
    t0 = time.perf_counter()
    value = fn(*args)
    return time.perf_counter() - t0, value
