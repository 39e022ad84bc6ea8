"""The `codeagent` subcommands, one module per family, each with `register(subparsers)`
(agent/cli.py lists them):

    arguments.py      def/refs/rename/diagnostics: their grammar and tool arguments (stdlib only)
    output.py         exit codes, UsageError, printing a result (stdlib only)
    quickparse.py     the canonical command lines of those tables read without argparse (stdlib only)
    via_daemon.py     those four answered by a warm daemon before any heavy import (stdlib only)
    tool_via_daemon.py  `codeagent tool NAME` (read-only) answered by a warm daemon
    code.py           def, refs, rename, diagnostics, servers install, daemon start|stop|status
    run_arguments.py  registers run, runs, replay; run.py holds them (imported only when called)
    context.py        make_context: the tool context of one command, errors as usage errors
    mcp.py, syntax.py `codeagent mcp`, `codeagent index`

Commands are entry points: they may import any layer (through agent/bootstrap.py for a tool
context and the registry). Nothing below them imports this package. The stdlib-only modules import
nothing of agent but agent/languages.py, agent/configpaths.py, agent/errors.py and
agent/daemon/wire.py (tests/test_fast_path_imports.py holds the list).
"""
