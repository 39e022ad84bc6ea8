"""How a one-shot `codeagent tool` call ends (agent/entry.py): without the interpreter's teardown
of its modules when nothing of the call is left. That teardown (pydantic, the settings and input
models, tree-sitter's index for an outline: every object freed one by one) cost ~45-80 ms of CPU,
15-25 % of a one-shot read_file, list_symbols or search_in_files, and has nothing left to do once
the answer is printed and the tool's context is closed.

Standard library only: the `tool` command imports it before anything heavy.
"""

from __future__ import annotations

import atexit
import threading


class Outcome:
    """What the `tool` command (agent/cli.py cmd_tool) knows about its call."""

    read_only = False  # a read-only tool ran (its context is closed when cmd_tool returns), or none did


def nothing_left() -> bool:
    """True when a one-shot call may end now as the interpreter would, but for the teardown: the
    call wrote nothing (a read-only tool, or one refused before it ran), and no other thread runs
    (one the interpreter would wait for, or a daemon one whose objects' finalizers might still
    act, such as a `--no-daemon` language-server call's loop). The exit callbacks then run here, as
    the interpreter runs them before its teardown (lsp_bridge's process clean-up, whatever a
    sitecustomize registered); agent/entry.py flushes stdout and stderr and ends the process."""
    if not Outcome.read_only or threading.active_count() != 1:
        return False
    run = getattr(atexit, "_run_exitfuncs", None)  # (CPython's; elsewhere the usual teardown)
    if run is None:
        return False
    run()
    return True
