"""The agent side of the language-server bridge (read-only questions; the rename that edits is in
agent/refactor/).

    target.py       tool positions (1-based, characters) and symbols -> bridge positions, and back
    sessions.py     the shared SessionPool of a ToolContext; running sessions; change notification
    references.py   find_references / find_definition (server, or syntactic fallback)
    diagnostics.py  get_diagnostics; the ServerSync and DiagnosticsDelta edit checks
    identifiers.py  is a new name a valid, non-keyword identifier of the language
    name_occurrences.py  same-name occurrences in code across the workspace (ripgrep + tree-sitter)
    processes.py    the server a file needs, spawned from the settings before the tools load
    filecache.py    file texts and code occurrences kept while files are unchanged (a ctx service)
    watch.py        source files created or deleted since the last look (folder mtimes)

It may import the tool context, the syntax layer, the workspace and lsp_bridge; never the tools,
the daemon (agent/daemon/ hosts this layer) or the entry points. Nothing is imported here: the
CLI's daemon client must stay light to start.
"""
