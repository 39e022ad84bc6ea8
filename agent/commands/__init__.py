"""Command-line subcommands, one module per tool family (see agent/cli.py COMMAND_MODULES)."""
