"""`codeagent def|refs|rename|diagnostics` as a user and the rename benchmark run it: the JSON
contract, the daemon (same output as in-process, new files noticed, idle exit, fallback when it
cannot start), --dry-run, --compare, usage errors, and a write that fails half-way."""

from __future__ import annotations

import json
import os
import resource
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from semantic_helpers import DAEMON_IDLE, codeagent_command, copy_fixture, run_cli, stop_daemon, tree

from agent.daemon.client import process_alive

pytestmark = pytest.mark.timeout(900)


@pytest.fixture(scope="module")
def proj(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    root = copy_fixture("pyproj", tmp_path_factory.mktemp("cli"))
    yield root
    stop_daemon(root)


@pytest.fixture(scope="module")
def pristine(proj: Path) -> dict[str, bytes]:
    return tree(proj)


def daemon_status(root: Path, env: dict[str, str] | None = None) -> dict[str, object]:
    r = run_cli("daemon", "status", "--root", str(root), "--json", env=env)
    assert r.returncode == 0, r.stderr
    status: dict[str, object] = r.json
    return status


def test_rename_json_contract_then_undo(proj: Path, pristine: dict[str, bytes]) -> None:
    r = run_cli("rename", "shapes/geometry.py:30:5", "compute_area", "--root", str(proj), "--json", cwd=proj)
    assert r.returncode == 0, r.stderr
    assert r.stdout.count("\n") == 1  # one JSON object on one line
    out = r.json
    assert out["success"] is True
    assert out["data"]["files"] == ["shapes/__init__.py", "shapes/geometry.py", "shapes/labels.py",
                                    "shapes/registry.py", "tests/test_shapes.py"]
    assert "def compute_area(" in (proj / "shapes/geometry.py").read_text(encoding="utf-8")
    assert "diagnostics" not in out["data"]  # the one-shot CLI does not wait for a re-check unless --check
    assert daemon_status(proj)["running"] is True
    undo = run_cli("undo", "--root", str(proj))
    assert undo.returncode == 0, undo.stderr
    assert tree(proj) == pristine


def test_json_is_identical_with_and_without_the_daemon(proj: Path) -> None:
    via_daemon = run_cli("refs", "shapes/geometry.py:30:5", "--root", str(proj), "--json")
    in_process = run_cli("refs", "shapes/geometry.py:30:5", "--root", str(proj), "--json", "--no-daemon")
    assert via_daemon.returncode == 0 and in_process.returncode == 0, via_daemon.stderr + in_process.stderr
    assert via_daemon.stdout == in_process.stdout
    assert json.loads(via_daemon.stdout)["data"]["count"] == 11


def test_daemon_sees_files_created_and_edited_outside(proj: Path, pristine: dict[str, bytes]) -> None:
    assert run_cli("refs", "shapes/geometry.py:30:5", "--root", str(proj), "--json").json["data"]["count"] == 11
    extra = proj / "shapes" / "extra.py"
    extra.write_text("from shapes.geometry import area_of\n\nTWICE = area_of\n", encoding="utf-8")
    try:
        r = run_cli("refs", "shapes/geometry.py:30:5", "--root", str(proj), "--json")
        assert r.returncode == 0, r.stderr
        paths = {f["path"] for f in r.json["data"]["files"]}
        assert "shapes/extra.py" in paths and r.json["data"]["count"] == 13
        extra.write_text("from shapes.geometry import area_of\n", encoding="utf-8")
        assert run_cli("refs", "shapes/geometry.py:30:5", "--root", str(proj), "--json").json["data"]["count"] == 12
    finally:
        extra.unlink()
    assert run_cli("refs", "shapes/geometry.py:30:5", "--root", str(proj), "--json").json["data"]["count"] == 11
    assert tree(proj) == pristine


def test_text_output_of_def_refs_and_diagnostics(proj: Path) -> None:
    d = run_cli("def", "tests/test_shapes.py:7:12", "--root", str(proj))
    assert d.returncode == 0, d.stderr
    assert "shapes/geometry.py:30:5  def area_of(" in d.stdout
    r = run_cli("refs", "Circle.scale", "--root", str(proj))
    assert r.returncode == 0, r.stderr
    assert "shapes/labels.py\n  in badge\n    11:" in r.stdout  # grouped by the enclosing function
    g = run_cli("diagnostics", "shapes/labels.py", "--root", str(proj), "--json")
    assert g.returncode == 0 and g.json["data"]["errors"] == 0


def test_dry_run_prints_the_diff_and_writes_nothing(proj: Path, pristine: dict[str, bytes]) -> None:
    r = run_cli("rename", "shapes/geometry.py:30:5", "compute_area", "--dry-run", "--root", str(proj))
    assert r.returncode == 0, r.stderr
    assert "+def compute_area(shape: Circle | Square, *, precision: int = 2) -> float:" in r.stdout
    assert tree(proj) == pristine


def test_compare_shows_what_text_replacement_gets_wrong(proj: Path, pristine: dict[str, bytes]) -> None:
    r = run_cli("rename", "shapes/geometry.py:30:5", "compute_area", "--compare", "--root", str(proj))
    assert r.returncode == 0, r.stderr
    # the module docstring, the comment (twice), the shadowing local (twice), two strings
    assert "text replacement would wrongly change 7 and miss 0" in r.stdout
    for where in ("shapes/geometry.py:1:26", "shapes/geometry.py:31:7", "shapes/geometry.py:31:45",
                  "shapes/geometry.py:38:9", "shapes/geometry.py:39:18", "shapes/registry.py:20:18",
                  "tests/test_shapes.py:27:34"):
        assert where in r.stdout
    assert r.stdout.index("shapes/geometry.py:31:7") < r.stdout.index("shapes/geometry.py:31:45")
    assert "in a string or comment" in r.stdout and "another symbol with the same name" in r.stdout
    j = run_cli("rename", "shapes/geometry.py:30:5", "compute_area", "--compare", "--json", "--root", str(proj))
    compare = j.json["data"]["compare"]
    assert compare["both"] == 11 and compare["text_would_wrongly_change_count"] == 7
    assert tree(proj) == pristine


def test_usage_and_tool_errors_have_distinct_exit_codes(proj: Path, pristine: dict[str, bytes]) -> None:
    r = run_cli("refs", "shapes/geometry.py:30", "--root", str(proj))
    assert r.returncode == 2 and "PATH:LINE:COL" in r.stderr
    r = run_cli("rename", "shapes/geometry.py:30:5", "class", "--root", str(proj), "--json")
    assert r.returncode == 1 and r.json["success"] is False and "keyword" in r.json["error"]
    r = run_cli("refs", "shapes/nope.py:1:1", "--root", str(proj))
    assert r.returncode == 1 and "no such file" in r.stderr
    r = run_cli("refs", "x.py:1:1", "--root", str(proj / "missing"))
    assert r.returncode == 2
    assert tree(proj) == pristine


def test_falls_back_in_process_when_the_daemon_cannot_start(proj: Path, tmp_path: Path) -> None:
    (tmp_path / f"codeagent-{os.getuid()}").write_text("a file where the daemon folder should be")
    env = {"TMPDIR": str(tmp_path)}
    r = run_cli("refs", "shapes/geometry.py:30:5", "--root", str(proj), "--json", env=env)
    assert r.returncode == 0, r.stderr
    assert "running in-process" in r.stderr
    assert r.json["data"]["count"] == 11


def test_daemon_exits_when_idle(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    env = {"CODEAGENT_DAEMON_IDLE_TIMEOUT": "2"}
    try:
        started = run_cli("daemon", "start", "--root", str(root), "--json", env=env)
        assert started.returncode == 0 and started.json["success"], started.stdout + started.stderr
        pid = int(started.json["pid"])
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and daemon_status(root, env)["running"]:
            time.sleep(0.5)
        assert daemon_status(root, env)["running"] is False
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and process_alive(pid):
            time.sleep(0.2)
        assert not process_alive(pid)  # exited (an unreaped zombie counts as exited)
    finally:
        stop_daemon(root)


# The rename grows this file by ~300 KB (1,500 uses, a 200-character new name); with the file size
# limit at 150 KB every check passes and the journal is written, then writing this file fails
# after the files sorted before it were written. (Permissions cannot stop root; this can.)
MANY_USES = "from shapes.geometry import area_of\n\nUSES = [\n" + "    area_of,\n" * 1500 + "]\n"
LIMIT = 150_000


def _limit_file_size() -> None:
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # EFBIG instead of being killed
    resource.setrlimit(resource.RLIMIT_FSIZE, (LIMIT, LIMIT))


def test_write_failing_half_way_leaves_every_file_as_it_was(tmp_path: Path) -> None:
    root = copy_fixture("pyproj", tmp_path)
    (root / "shapes" / "zz_many.py").write_text(MANY_USES, encoding="utf-8")
    before = tree(root)
    new_name = "n" * 200
    cmd = [*codeagent_command(), "rename", "shapes/geometry.py:30:5", new_name, "--root", str(root), "--json",
           "--no-daemon"]
    env = {**os.environ, "CODEAGENT_CONFIG": os.devnull}
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300, env=env, preexec_fn=_limit_file_size)
    out = json.loads(proc.stdout)
    assert proc.returncode == 1 and out["success"] is False, proc.stdout + proc.stderr
    assert "every file was restored" in out["error"] and "File too large" in out["error"]
    assert tree(root) == before
    assert run_cli("undo", "--root", str(root)).returncode == 1  # nothing was journaled


def test_rename_check_waits_for_the_server_recheck(proj: Path, pristine: dict[str, bytes]) -> None:
    """`--check` (in-process here, with the server started early) re-checks every changed file and
    reports what the rename introduced: nothing for a correct rename."""
    r = run_cli("rename", "shapes/geometry.py:30:5", "compute_area", "--check", "--no-daemon", "--root", str(proj),
                "--json")
    assert r.returncode == 0, r.stderr
    checked = r.json["data"]["diagnostics"]
    assert checked["introduced"] == [] and sorted(checked["checked"]) == r.json["data"]["files"]
    assert run_cli("undo", "--root", str(proj)).returncode == 0
    assert tree(proj) == pristine


def test_warm_calls_take_the_fast_path_and_fall_back_when_they_must(
        proj: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """After a full call taught the daemon the settings' fingerprint, the CLI's fast path (no
    settings built, no tools loaded) gets the very same answer; another environment, --no-daemon,
    --compare or bad arguments go the normal way, and an unknown fingerprint never stops the daemon."""
    from agent.commands.via_daemon import try_fast

    full = run_cli("refs", "shapes/geometry.py:30:5", "--root", str(proj), "--json")
    assert full.returncode == 0, full.stderr
    pid = daemon_status(proj)["pid"]
    monkeypatch.chdir(proj)
    monkeypatch.setenv("CODEAGENT_CONFIG", os.devnull)  # the environment run_cli gives the CLI
    monkeypatch.setenv("CODEAGENT_DAEMON_IDLE_TIMEOUT", DAEMON_IDLE)
    capsys.readouterr()
    assert try_fast(["refs", "shapes/geometry.py:30:5", "--root", str(proj), "--json"]) == 0
    fast = capsys.readouterr().out
    # Byte for byte the same answer; whether it came from the daemon's cache depends on whether the
    # full call's answer could be kept (not when a file it names changed in the last 2 s), and a
    # kept answer stays kept: nothing changed in between. (The fast path names the file from
    # inside the root, so as an absolute path: one key with the full call's relative one.)
    marker = ', "cached": true}}\n'
    assert fast.endswith(marker) or not full.stdout.endswith(marker)
    assert fast.removesuffix(marker).removesuffix("}}\n") == full.stdout.removesuffix(marker).removesuffix("}}\n")
    assert try_fast(["refs", "shapes/geometry.py:30:5", "--root", str(proj), "--no-daemon"]) is None
    assert try_fast(["rename", "shapes/geometry.py:30:5", "x", "--compare", "--root", str(proj)]) is None
    assert try_fast(["refs", "shapes/geometry.py:30", "--root", str(proj)]) is None  # the normal path explains
    assert try_fast(["refs", "--bogus", "--root", str(proj)]) is None
    monkeypatch.setenv("CODEAGENT_SHELL_TIMEOUT", "77")  # another fingerprint: not known to match
    assert try_fast(["refs", "shapes/geometry.py:30:5", "--root", str(proj), "--json"]) is None
    monkeypatch.delenv("CODEAGENT_SHELL_TIMEOUT")
    assert daemon_status(proj)["pid"] == pid  # still the same daemon
    assert try_fast(["refs", "shapes/geometry.py:30:5", "--root", str(proj), "--json"]) == 0


def test_every_settings_variable_is_in_the_fingerprint() -> None:
    from agent.config import ENV_VARS
    from agent.configpaths import ENV_PREFIXES

    assert all(name.startswith(ENV_PREFIXES) for name in ENV_VARS)
