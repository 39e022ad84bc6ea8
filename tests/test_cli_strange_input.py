"""`codeagent tool NAME --args JSON` with input that is only strange: nesting deep enough to exhaust
the parser's recursion limit, integers of thousands of digits. Each is a usage error (exit 2) with
a one-line message, whether the JSON comes inline, from stdin (`-`) or from a file (`@FILE`)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from clikit import Cli

DEEP = "[" * 100_000 + "]" * 100_000
DEEP_OBJECT = '{"a":' * 100_000 + "1" + "}" * 100_000
HUGE_INT = '{"file_path": "a.txt", "start_line": ' + "7" * 5000 + "}"
NEGATIVE_HUGE_INT = '{"file_path": "a.txt", "start_line": -' + "7" * 5000 + "}"
# an argv string is capped at 128 KiB by the kernel: inline, the deep input is 60,000 levels
DEEP_INLINE = "[" * 60_000 + "]" * 60_000
JUST_OVER = '{"file_path": ' + "[" * 65 + "]" * 65 + "}"

CASES = {"deep array": DEEP, "deep object": DEEP_OBJECT, "huge int": HUGE_INT,
         "negative huge int": NEGATIVE_HUGE_INT, "65 levels": JUST_OVER}


def _assert_usage_error(r: Cli, expect: str) -> None:
    assert r.returncode == 2, (r.returncode, r.stdout, r.stderr[-2000:])
    assert "Traceback" not in r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, r.stderr[-2000:]
    assert lines[0].startswith("codeagent: error: --args") and expect in lines[0], lines[0]
    assert r.stdout == ""


def _expect(name: str) -> str:
    return "digits" if "int" in name else "nested too deeply"


@pytest.mark.parametrize("name", sorted(CASES))
def test_strange_args_from_stdin(cli: Callable[..., Cli], root: Path, name: str) -> None:
    r = cli("tool", "read_file", "--root", str(root), "--args", "-", stdin=CASES[name])
    _assert_usage_error(r, _expect(name))


@pytest.mark.parametrize("name", sorted(CASES))
def test_strange_args_from_a_file(cli: Callable[..., Cli], root: Path, tmp_path: Path, name: str) -> None:
    args = tmp_path / "args.json"
    args.write_text(CASES[name], encoding="utf-8")
    r = cli("tool", "read_file", "--root", str(root), "--args", f"@{args}")
    _assert_usage_error(r, _expect(name))


@pytest.mark.parametrize("text", [DEEP_INLINE, "[" * 100_000, HUGE_INT, JUST_OVER],
                         ids=["deep", "deep unclosed", "huge int", "65 levels"])
def test_strange_args_inline(cli: Callable[..., Cli], root: Path, text: str) -> None:
    r = cli("tool", "read_file", "--root", str(root), "--args", text)
    _assert_usage_error(r, "digits" if text is HUGE_INT else "nested too deeply")


def test_ordinary_args_still_work(cli: Callable[..., Cli], root: Path) -> None:
    """The bounds leave real arguments alone: a big (but sane) integer and a few levels of nesting."""
    (root / "a.txt").write_text("one\ntwo\n", encoding="utf-8")
    r = cli("tool", "read_file", "--root", str(root), "--args", '{"file_path": "a.txt", "start_line": 2, "end_line": 1000000000}')
    assert r.returncode == 0, r.stderr
    assert r.json["success"] is True and "two" in r.json["output"]
    r = cli("tool", "read_file", "--root", str(root), "--args", '{"file_path": "a.txt", "start_line": 1e999}')
    assert r.returncode == 2 and "Traceback" not in r.stderr  # a float where an int belongs: validation says so
