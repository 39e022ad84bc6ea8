"""`python -m agent.eval.worker SPEC.json RESULT.json`: run one unit in its own process (`--jobs N`
runs N of these at once) and write its report entry. A Ctrl+C (SIGINT from the scheduler) ends the
agent between steps; the entry then says "interrupted"."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from .unit import UnitSpec, run_unit


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print("usage: python -m agent.eval.worker SPEC.json RESULT.json", file=sys.stderr)
        return 2
    spec = UnitSpec.from_json(Path(argv[0]).read_text(encoding="utf-8"))
    try:
        entry = run_unit(spec)
    except KeyboardInterrupt:
        entry = {"key": spec.key, "task": spec.task_id, "toolset": spec.toolset, "repeat": spec.repeat,
                 "status": "interrupted", "reason": "interrupted while setting up or judging", "solved": False}
    tmp = Path(argv[1] + ".tmp")
    tmp.write_text(json.dumps(entry), encoding="utf-8")
    os.replace(tmp, argv[1])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
