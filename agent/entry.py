"""The `codeagent` console script. A warm daemon's answer is printed before anything else loads
(agent/commands/via_daemon.py, standard library only), without the cyclic garbage collector, and
that process then ends at once: the interpreter's orderly shutdown (tearing down every module)
cost a warm call ~6-9 ms and has nothing to do once the output is flushed. Every other command
runs agent/cli.py's `main`, which in-process callers (tests, `python -m agent.cli`) use directly.
"""

from __future__ import annotations

import gc
import os
import sys


def main() -> int:
    words = sys.argv[1:]
    gc.disable()  # a short call allocates little but a big answer's objects (~30% of decoding it)
    if words[:1] == ["index"]:  # nothing changed: answered from the index cache (index_fast.py)
        from .commands.index_fast import try_fast_index

        code = try_fast_index(words[1:])
    else:
        from .commands.via_daemon import try_fast

        code = try_fast(words)
    if code is None:
        gc.enable()  # the full CLI may run for hours (`codeagent run`)
        from .cli import main as full_main

        code = full_main(words, fast_tried=True)
        if not _nothing_to_tear_down():
            return code
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except BrokenPipeError:  # `codeagent refs ... | head`: the reader has all it wanted
        pass
    os._exit(code)


def _nothing_to_tear_down() -> bool:
    """A semantic command its newly forked daemon answered (agent/commands/cold_start.py): the
    process holds nothing but its printed answer, and the interpreter's orderly shutdown of the
    settings it loaded would only delay the end of the command (~0.07 s quiet, ~0.3 s loaded).
    Likewise a `codeagent index` that ran to its end (agent/commands/index_cold.py: the index
    closed, its workers joined). Likewise a read-only `codeagent tool` call with no other thread left
    (tool_end.py, which runs the exit callbacks). An in-process run, the cold start's fallback
    included, ends as usual."""
    cold_start = sys.modules.get("agent.commands.cold_start")
    index_cold = sys.modules.get("agent.commands.index_cold")  # (`codeagent index`, ended: the same)
    tool_end = sys.modules.get("agent.commands.tool_end")  # (a one-shot `codeagent tool` call: tool_end.py)
    return ((cold_start is not None and bool(cold_start.Outcome.daemon_answered))
            or (index_cold is not None and bool(index_cold.Outcome.finished))
            or (tool_end is not None and tool_end.nothing_left()))


if __name__ == "__main__":
    sys.exit(main())
