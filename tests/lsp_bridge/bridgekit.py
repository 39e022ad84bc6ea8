"""Helpers shared by the bridge tests (imported by basename: tests/ is not a package)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from lsp_bridge import FileEdits, Position, ServerNotInstalled, apply_changes
from lsp_bridge.servers import get_spec, resolve_command

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
FAKE_SERVER = Path(__file__).resolve().parent / "fake_server.py"


def copy_fixture(name: str, dest: Path) -> Path:
    root = dest / name
    shutil.copytree(FIXTURES / name, root, ignore=shutil.ignore_patterns("__pycache__", ".pytest_cache"))
    return root


def require_server(name: str) -> None:
    """Install the npm server on first use (pinned, into the user cache); skip only when impossible."""
    try:
        resolve_command(get_spec(name), auto_install=True, timeout=300)
    except ServerNotInstalled as exc:
        pytest.skip(f"{name} unavailable here: {exc}")


def pos_of(path: Path, needle: str, line_contains: str | None = None, nth: int = 0) -> Position:
    """Code-point position of the `nth` occurrence of `needle` on the first line containing
    `line_contains` (default: `needle`)."""
    for number, line in enumerate(path.read_text(encoding="utf-8").split("\n")):
        if (line_contains or needle) in line:
            start = -1
            for _ in range(nth + 1):
                start = line.index(needle, start + 1)
            return Position(number, start)
    raise AssertionError(f"{needle!r} not in {path}")


def rel_lines(root: Path, locations: list) -> list[tuple[str, int]]:
    return sorted((loc.path.relative_to(root).as_posix(), loc.range.start.line) for loc in locations)


def applied(edits: list[FileEdits]) -> dict[Path, str]:
    return {e.path: apply_changes(e.path.read_text(encoding="utf-8"), e.changes) for e in edits}


def group_pids(pgid: int) -> set[int]:
    """Every live process whose process group is `pgid` (the server and anything it spawned)."""
    found = set()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2:].split()
        if int(fields[2]) == pgid and fields[0] != "Z":
            found.add(int(entry.name))
    return found


def alive(pids: set[int]) -> set[int]:
    """The pids of `pids` still running (zombies count as gone)."""
    live = set()
    for pid in pids:
        try:
            stat = Path(f"/proc/{pid}/stat").read_text()
        except OSError:
            continue
        if stat[stat.rindex(")") + 2:].split()[0] != "Z":
            live.add(pid)
    return live


def wait_gone(pids: set[int], timeout: float = 15.0) -> set[int]:
    import time

    deadline = time.monotonic() + timeout
    while alive(pids) and time.monotonic() < deadline:
        time.sleep(0.1)
    return alive(pids)
