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
        if not _nothing_to_tear_down(words):
            return code
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except BrokenPipeError:  # `codeagent refs ... | head`: the reader has all it wanted
        pass
    os._exit(code)


# Loaded by a process that did some work itself (a tool context, language servers, a journal).
_WORKING_MODULES = ("agent.bootstrap", "agent.registry", "lsp_bridge.session", "lsprotocol")


def _nothing_to_tear_down(words: list[str]) -> bool:
    """A semantic command a daemon answered (a cold one: agent/commands/cold_start.py), in a
    process that loaded none of the working modules: it holds nothing but its printed answer, and
    the interpreter's orderly shutdown of the settings models it loaded would only delay the end of
    the command (~0.07 s quiet, ~0.3 s on a loaded machine). An in-process fallback ends as usual."""
    if any(name in sys.modules for name in _WORKING_MODULES):
        return False
    from .commands.via_daemon import semantic_call

    return semantic_call(words) is not None


if __name__ == "__main__":
    sys.exit(main())
