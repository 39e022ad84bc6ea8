"""Shell execution: a policy on the parsed command (policy.py), an OS sandbox (sandbox.py: bubblewrap or
Landlock), limits and output capture (runner.py, launcher.py). Tools live in agent/tools/shell.py.

Kept import-light: launcher.py runs as its own process for every sandboxed command.
"""
