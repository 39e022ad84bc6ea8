"""A small language server that misbehaves on purpose (tests only; stdlib only).

usage: fake_server.py MODE [LOGFILE]
  ok            answers initialize, shutdown and textDocument/references (one fixed location)
  invalid-json  answers requests after initialize with a frame that is not JSON
  die           exits with code 3 (after a line on stderr) on the first request after initialize
  hang          never answers requests after initialize (records $/cancelRequest in LOGFILE)
  huge          answers requests after initialize with a Content-Length over the bridge's limit
  no-init       writes a line on stderr and exits before answering initialize
  chatty        like ok, but first writes 2 MiB to stderr (a client that never reads it would block)
  creates-on-init  like ok, but 1.5 s after initialize arrives creates created_at_init.py in its
                folder, then answers
                and logs each file a didChangeWatchedFiles names ("created NAME", "changed NAME", ...)
  asks-config   like ok, but on `initialized` asks workspace/configuration (section "python",
                then none) and logs each answer it gets ("answer ID JSON")
  diagnostics-in-parts  like ok, but publishes a file's diagnostics as typescript-language-server
                does under load: on didOpen/didChange no errors at once (the syntax part), then
                after 0.8 s one error on line 0 (the semantic part)
  bad-locations answers the n-th textDocument/references with BAD_ANSWERS[n] (an error response,
                then results no protocol type fits), then as `ok`
"""

from __future__ import annotations

import json
import sys
import time

MODE = sys.argv[1]
_POS = {"line": 0, "character": 0}
BAD_ANSWERS = [
    {"error": {"code": -32603, "message": "the fake's own failure"}},
    {"result": {"uri": "file:///x.py", "range": {"start": _POS, "end": _POS}}},  # a Location, not a list
    {"result": [{"range": {"start": _POS, "end": _POS}}]},  # no uri
    {"result": [{"uri": 7, "range": {"start": _POS, "end": _POS}}]},
    {"result": [{"uri": "file:///x.py", "range": {"start": {"line": -1, "character": 0}, "end": _POS}}]},
    {"result": [{"uri": "file:///x.py", "range": {"start": {"line": "0", "character": 0}, "end": _POS}}]},
    {"result": [{"uri": "file:///x.py", "range": {"start": {"line": True, "character": 0}, "end": _POS}}]},
    {"result": [{"uri": "file:///x.py", "range": {"start": _POS}}]},  # no end
    {"result": ["file:///x.py"]},
]
LOG = sys.argv[2] if len(sys.argv) > 2 else None


def log(line: str) -> None:
    if LOG:
        with open(LOG, "a") as handle:
            handle.write(line + "\n")


def read() -> dict | None:
    length = None
    while True:
        line = sys.stdin.buffer.readline()
        if not line:
            return None
        if line in (b"\r\n", b"\n"):
            break
        name, _, value = line.decode().partition(":")
        if name.lower() == "content-length":
            length = int(value)
    return json.loads(sys.stdin.buffer.read(length or 0))


def send_raw(body: bytes, length: int | None = None) -> None:
    sys.stdout.buffer.write(f"Content-Length: {len(body) if length is None else length}\r\n\r\n".encode() + body)
    sys.stdout.buffer.flush()


def send(message: dict) -> None:
    send_raw(json.dumps({"jsonrpc": "2.0", **message}).encode())


def main() -> None:
    if MODE == "no-init":
        sys.stderr.write("fake server: cannot start, missing configuration\n")
        sys.exit(2)
    if MODE == "chatty":
        sys.stderr.write(("x" * 1023 + "\n") * 2048)
        sys.stderr.flush()
    while True:
        message = read()
        if message is None:
            return
        method, msg_id = message.get("method"), message.get("id")
        log(f"{method} {msg_id}")
        if method is None:  # an answer to a request of ours
            log(f"answer {msg_id} {json.dumps(message.get('result'), sort_keys=True)}")
            continue
        if method == "initialized" and MODE == "asks-config":
            send({"id": "cfg-1", "method": "workspace/configuration",
                  "params": {"items": [{"section": "python"}, {}]}})
        if method == "$/cancelRequest":
            log(f"cancel {message['params']['id']}")
            continue
        if MODE == "diagnostics-in-parts" and method in ("textDocument/didOpen", "textDocument/didChange"):
            doc = message["params"]["textDocument"]
            publish = {"uri": doc["uri"], "version": doc.get("version")}
            send({"method": "textDocument/publishDiagnostics", "params": {**publish, "diagnostics": []}})
            time.sleep(0.8)
            error = {"range": {"start": _POS, "end": {"line": 0, "character": 3}}, "severity": 1,
                     "message": "the semantic part"}
            send({"method": "textDocument/publishDiagnostics", "params": {**publish, "diagnostics": [error]}})
            continue
        if method == "workspace/didChangeWatchedFiles":
            for change in message["params"]["changes"]:
                kind = {1: "created", 2: "changed", 3: "deleted"}[change["type"]]
                log(f"{kind} {change['uri'].rsplit('/', 1)[-1]}")
        if msg_id is None:
            if method == "exit":
                return
            continue
        if method == "initialize":
            if MODE == "creates-on-init":
                time.sleep(1.5)  # the client's walk of the folder (if it runs now) is long done
                with open("created_at_init.py", "w") as handle:
                    handle.write("made = 1\n")
            send({"id": msg_id, "result": {"capabilities": {"referencesProvider": True, "textDocumentSync": 1}}})
        elif method == "shutdown":
            send({"id": msg_id, "result": None})
        elif MODE == "bad-locations" and BAD_ANSWERS:
            send({"id": msg_id, **BAD_ANSWERS.pop(0)})
        elif MODE in ("ok", "chatty", "creates-on-init", "bad-locations", "asks-config", "diagnostics-in-parts"):
            uri = message["params"]["textDocument"]["uri"]
            send({"id": msg_id, "result": [{"uri": uri, "range": {"start": {"line": 0, "character": 0},
                                                                  "end": {"line": 0, "character": 3}}}]})
        elif MODE == "invalid-json":
            send_raw(b"{this is not json")
        elif MODE == "die":
            sys.stderr.write("fake server: fatal error, giving up\n")
            sys.stderr.flush()
            sys.exit(3)
        elif MODE == "huge":
            send_raw(b"{}", length=1 << 40)
        # hang: never answer


if __name__ == "__main__":
    main()
