"""What a warm daemon's answer prints is byte for byte what the in-process command prints: the
fast path writes the daemon's encoding of the result as it is (protocol.encoded_result), so the
two encoders must agree, on non-ASCII text, control characters and line separators too."""

from __future__ import annotations

import json
from pathlib import Path

from semantic_helpers import run_cli, stop_daemon

TEXT = "naïve = 'café'  # 日本語 🙂\nx = '\u2028\u2029'\ty = '\x01'\n"


def test_a_warm_answer_prints_the_same_bytes_as_in_process(tmp_path: Path) -> None:
    root = (tmp_path / "ws").resolve()
    root.mkdir()
    (root / "u.py").write_text(TEXT, encoding="utf-8")
    args = ("tool", "read_file", "--root", str(root), "--args", json.dumps({"file_path": "u.py"}))
    try:
        assert run_cli("daemon", "start", "--root", str(root)).returncode == 0
        first = run_cli(*args)  # (tells the daemon these settings: the next calls take the fast path)
        warm = [run_cli(*args) for _ in range(2)]
        here = run_cli(*args, "--no-daemon")
    finally:
        stop_daemon(root)
    assert here.returncode == 0 and "café" in here.json["output"] and "\u2028" in here.json["output"]
    assert [w.stdout for w in warm] == [here.stdout, here.stdout] == [first.stdout, first.stdout]
    assert [w.returncode for w in warm] == [0, 0] and all(w.stderr == "" for w in warm)
