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

        return full_main(words, fast_tried=True)
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except BrokenPipeError:  # `codeagent refs ... | head`: the reader has all it wanted
        pass
    os._exit(code)


if __name__ == "__main__":
    sys.exit(main())
