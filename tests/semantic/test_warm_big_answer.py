"""A warm `codeagent refs` with a big answer (~1,200 references, non-ASCII lines) is answered by the
client fast path (quickparse + daemon/wire.py: no argparse, pathlib, re or json's Python layer,
also not imported lazily while the answer is read and printed) and prints byte for byte what the
in-process command prints, as JSON and as text. An answer the daemon kept (its query cache) comes
with its head too, so the client reads the head alone, and prints the same bytes."""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
import time
from pathlib import Path

from semantic_helpers import DAEMON_IDLE, run_cli, served, stop_daemon

from agent.daemon.wire import result_head
from agent.semantic.querycache import RACY_NS

REPO = Path(__file__).resolve().parents[2]
FILES, CALLS = 40, 30
NEVER = {"pathlib", "typing", "re", "argparse", "enum", "json", "urllib.parse", "dataclasses", "collections"}

# The fast path alone, in a bare interpreter (-S: only what our modules import is loaded), its
# exit code and the modules it loaded after its own import on stderr.
PROBE = """
import os, sys
from agent.commands.via_daemon import try_fast
before = set(sys.modules)
code = try_fast(sys.argv[1:])
sys.stdout.flush()
os.write(2, repr((code, sorted(set(sys.modules) - before))).encode())
"""

# What the client's --json fast path gets for the call: the head it read and the result's bytes.
HEAD_PROBE = """
import os, sys
from agent.commands.via_daemon import semantic_call
from agent.daemon.wire import ask_tool
call = semantic_call(sys.argv[1:])
head, encoded = ask_tool(call.root, call.tool, call.tool_args, head_only=True) or ({"no answer": True}, b"")
os.write(1, encoded)
os.write(2, repr(head).encode())
"""


def _project(root: Path) -> None:
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "__init__.py").write_text("")
    (root / "pkg" / "core.py").write_text("def target(x: int) -> int:\n    return x\n")
    for i in range(FILES):
        body = "".join(f"    total += target({j})  # café 日本語 🙂 {i}.{j}\n" for j in range(CALLS))
        (root / "pkg" / f"use_{i:02d}.py").write_text(
            f"from pkg.core import target\n\n\ndef use_{i}() -> int:\n    total = 0\n{body}    return total\n",
            encoding="utf-8")


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONDONTWRITEBYTECODE": "1", "CODEAGENT_CONFIG": os.devnull,
            "CODEAGENT_DAEMON_IDLE_TIMEOUT": DAEMON_IDLE}


def _probe(root: Path, *argv: str) -> tuple[bytes, int | None, set[str]]:
    proc = subprocess.run([sys.executable, "-S", "-c", PROBE, *argv], capture_output=True, timeout=240,
                          cwd=root, env={**_env(), "PYTHONPATH": str(REPO)})
    code, loaded = ast.literal_eval(proc.stderr.decode("utf-8").strip().splitlines()[-1])
    return proc.stdout, code, set(loaded)


def _in_process(root: Path, *argv: str) -> bytes:
    from clikit import codeagent_command

    proc = subprocess.run([*codeagent_command(), *argv, "--no-daemon"], capture_output=True, timeout=600,
                          cwd=root, env=_env())
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_a_big_warm_answer_is_the_in_process_answer_byte_for_byte(tmp_path: Path) -> None:
    root = (tmp_path / "ws").resolve()
    _project(root)
    refs = ("refs", "pkg/core.py:1:5", "--root", str(root))
    try:
        assert run_cli("daemon", "start", "--root", str(root), cwd=root).returncode == 0
        first = run_cli(*refs, "--json", cwd=root, timeout=600)  # (tells the daemon these settings)
        assert first.returncode == 0 and first.json["data"]["count"] == FILES * (CALLS + 1) + 1, first.stderr
        warm_json, code_json, loaded_json = _probe(root, *refs, "--json")
        warm_text, code_text, loaded_text = _probe(root, *refs)
        answered = served(root, until=lambda got: got.count("find_references") >= 3)
    finally:
        stop_daemon(root)
    assert (code_json, code_text) == (0, 0), "the fast path did not answer"
    assert answered.count("find_references") >= 3
    assert loaded_json & NEVER == set() and loaded_text & NEVER == set(), (loaded_json | loaded_text) & NEVER
    assert len(warm_json) > 200_000 and "café 日本語 🙂".encode() in warm_json
    assert warm_json == _in_process(root, *refs, "--json")
    assert warm_text == _in_process(root, *refs)


def _head(root: Path, *argv: str) -> tuple[dict[str, object], bytes]:
    proc = subprocess.run([sys.executable, "-S", "-c", HEAD_PROBE, *argv], capture_output=True, timeout=240,
                          cwd=root, env={**_env(), "PYTHONPATH": str(REPO)})
    return ast.literal_eval(proc.stderr.decode("utf-8").strip().splitlines()[-1]), proc.stdout


def test_a_kept_answer_comes_with_its_head_and_prints_as_the_computed_one(tmp_path: Path) -> None:
    root = (tmp_path / "ws").resolve()
    _project(root)
    time.sleep(RACY_NS / 1e9 + 0.1)  # older than the racy window: the daemon may keep the answer
    refs = ("refs", "pkg/core.py:1:5", "--root", str(root))
    try:
        assert run_cli("daemon", "start", "--root", str(root), cwd=root).returncode == 0
        first = run_cli(*refs, "--json", cwd=root, timeout=600)  # (tells the daemon these settings)
        assert first.returncode == 0 and "cached" not in first.json["data"], first.stderr
        deadline = time.monotonic() + 180  # answers are kept once the daemon's folder watch is up
        while True:
            head, encoded = _head(root, *refs, "--json")
            kept = json.loads(encoded) if encoded else {}
            if kept.get("data", {}).get("cached") or time.monotonic() > deadline:
                break
            time.sleep(0.5)
        warm_json, code_json, loaded_json = _probe(root, *refs, "--json")
        warm_text, code_text, _ = _probe(root, *refs)
    finally:
        stop_daemon(root)
    assert kept["data"]["cached"] is True, "the daemon never kept the answer"
    assert head == result_head(kept) and "output" not in head  # the head alone was decoded, not the answer
    assert (code_json, code_text) == (0, 0) and loaded_json & NEVER == set(), loaded_json & NEVER
    assert json.loads(warm_json)["data"]["cached"] is True and warm_json == encoded + b"\n"
    computed = json.loads(_in_process(root, *refs, "--json"))  # the same answer, but for the flag
    assert warm_json == json.dumps({**computed, "data": {**computed["data"], "cached": True}},
                                   ensure_ascii=False).encode("utf-8") + b"\n"
    assert warm_text == _in_process(root, *refs)
