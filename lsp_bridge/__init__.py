"""A language-server client: processes, protocol, positions, workspace edits.

This package never imports `agent`; the agent's semantic tools sit on top of it.
"""
