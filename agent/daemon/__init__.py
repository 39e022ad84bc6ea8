"""The per-workspace daemon: a background process hosting the tool registry with warm language
servers, and the CLI's way to reach it.

    wire.py      the client's side of the protocol on strings and builtin modules only (the CLI's
                 warm fast path runs on it): where the socket is, who asks, one request and reply
    protocol.py  the socket protocol, state folders, build and settings fingerprints (stdlib only;
                 re-exports what both sides share from wire.py)
    client.py    DaemonClient: start (fork), ping, stop, call_tool from the CLI
    server.py    Daemon: one ToolContext and the registry, serving calls on a unix socket
    toolload.py  the first request's tool module before its answer, the other tools after it

It sits above the tools (it hosts any of them) and may import every layer below the entry points;
no tool, the semantic layer or the syntax layer imports it. protocol.py imports nothing heavy.
"""
