"""The memory cap of one command: a per-call cgroup where the system allows it, else RLIMIT_AS.

RLIMIT_DATA (always set, see runner.py) counts the heap and private mappings only: shared
memory (`mmap(MAP_SHARED|MAP_ANONYMOUS)`, /dev/shm) escapes it. A cgroup memory limit counts
every page the command's processes touch, so it is preferred, in this order:

- cgroup v2, when the agent's own cgroup is writable and delegates the memory controller to its
  children (`memory` in its cgroup.subtree_control): a child cgroup per call, memory.max set;
- systemd (`systemd-run --scope`, `--user` when not root) when systemd runs and accepts it: the
  launcher runs in a transient scope with MemoryMax;
- cgroup v1, when the memory controller's hierarchy is writable at the agent's cgroup: a child
  cgroup per call, memory.limit_in_bytes (and memsw, so swap is no way around it) set.

The launcher joins the call's cgroup before it starts anything, so everything the command starts
is inside it; the folder is removed after the call. Without any of these, RLIMIT_AS caps the
address space at `memory_limit_mb * address_space_factor` (see ShellSettings): cruder, since
runtimes reserve far more address space than they use, but it does bound shared memory.
"""

from __future__ import annotations

import contextlib
import functools
import os
import secrets
import shutil
import signal
import subprocess
import time
from dataclasses import dataclass, field
from typing import Literal

Kind = Literal["cgroup-v2", "systemd", "cgroup-v1", "rlimit-as", "rlimit-data"]
# Under a cgroup, RLIMIT_DATA only turns one huge allocation into a clean MemoryError instead of an
# OOM kill; it must not stop runtimes that reserve more than they use: Node 24 starts only with
# RLIMIT_DATA >= about 600 MiB (V8 reserves its code range), whatever it then touches.
CGROUP_DATA_FLOOR_MB = 1024
_RMDIR_WAIT = 5.0


@dataclass
class MemoryCap:
    """The memory cap in force for one call, and what it takes to set up and clean up."""

    kind: Kind
    limit_mb: int
    cgroup: str | None = None  # the per-call cgroup folder (cgroup-v1 / cgroup-v2)
    prefix: list[str] = field(default_factory=list)  # a command to run the launcher under (systemd)
    rlimit_as: int | None = None  # bytes, when RLIMIT_AS is the cap

    def describe(self) -> str:
        """What the result reports: "cgroup-v1 4096 MiB", "rlimit-as 8192 MiB", ..."""
        if self.kind == "rlimit-data":
            return f"rlimit-data only {self.limit_mb} MiB (shared memory is not counted)"
        if self.kind == "rlimit-as":
            return f"rlimit-as {(self.rlimit_as or 0) >> 20} MiB (address space; rlimit-data {self.limit_mb} MiB)"
        return f"{self.kind} {self.limit_mb} MiB"

    def rlimit_data(self) -> int:
        """RLIMIT_DATA in bytes: the cap itself, or not below the floor when a cgroup holds the cap."""
        if self.kind in ("rlimit-as", "rlimit-data"):
            return self.limit_mb << 20
        return max(self.limit_mb, CGROUP_DATA_FLOOR_MB) << 20

    @property
    def procs_file(self) -> str | None:
        """The file the launcher writes its pid into to join the call's cgroup."""
        return os.path.join(self.cgroup, "cgroup.procs") if self.cgroup else None

    def oom_kills(self) -> int:
        """How many processes the kernel killed for reaching this cgroup's limit."""
        if self.cgroup is None:
            return 0
        name = "memory.events" if self.kind == "cgroup-v2" else "memory.oom_control"
        try:
            with open(os.path.join(self.cgroup, name), encoding="ascii") as fh:
                for line in fh:
                    key, _, value = line.partition(" ")
                    if key == "oom_kill":
                        return int(value)
        except (OSError, ValueError):
            return 0
        return 0

    def close(self) -> None:
        """Remove the call's cgroup (killing anything still in it first). Never raises."""
        if self.cgroup is None:
            return
        deadline = time.monotonic() + _RMDIR_WAIT
        while True:
            try:
                os.rmdir(self.cgroup)
                return
            except FileNotFoundError:
                return
            except OSError:
                if time.monotonic() > deadline:
                    return
            for pid in _pids(self.cgroup):
                with contextlib.suppress(OSError):
                    os.kill(pid, signal.SIGKILL)
            time.sleep(0.02)


def _pids(cgroup: str) -> list[int]:
    try:
        with open(os.path.join(cgroup, "cgroup.procs"), encoding="ascii") as fh:
            return [int(line) for line in fh if line.strip()]
    except (OSError, ValueError):
        return []


def open_memory_cap(limit_mb: int, *, use_cgroup: bool, address_space_factor: float) -> MemoryCap:
    """The cap for one call; the caller must `close()` it after the call."""
    limit = limit_mb << 20
    if use_cgroup:
        found = _cgroup_parent()
        if found is not None:
            kind, parent = found
            with contextlib.suppress(OSError):
                return _make_cgroup(kind, parent, limit, limit_mb)
        prefix = _systemd_prefix(limit_mb)
        if prefix:
            return MemoryCap("systemd", limit_mb, prefix=list(prefix))
    if address_space_factor > 0:
        return MemoryCap("rlimit-as", limit_mb, rlimit_as=int(limit * address_space_factor))
    return MemoryCap("rlimit-data", limit_mb)


def _make_cgroup(kind: Kind, parent: str, limit: int, limit_mb: int) -> MemoryCap:
    path = os.path.join(parent, f"codeagent-{os.getpid()}-{secrets.token_hex(4)}")
    os.mkdir(path)
    cap = MemoryCap(kind, limit_mb, cgroup=path)
    try:
        if kind == "cgroup-v2":
            _write(path, "memory.max", limit)
            with contextlib.suppress(OSError):
                _write(path, "memory.swap.max", 0)
        else:
            _write(path, "memory.limit_in_bytes", limit)
            with contextlib.suppress(OSError):  # absent without swap accounting
                _write(path, "memory.memsw.limit_in_bytes", limit)
    except OSError:
        cap.close()
        raise
    return cap


def _write(folder: str, name: str, value: int) -> None:
    with open(os.path.join(folder, name), "w", encoding="ascii") as fh:
        fh.write(str(value))


def _mounts() -> list[tuple[str, str, list[str]]]:
    """(mount point, file system type, super options) of the cgroup file systems."""
    out: list[tuple[str, str, list[str]]] = []
    try:
        with open("/proc/self/mountinfo", encoding="utf-8", errors="replace") as fh:
            for line in fh:
                left, _, right = line.partition(" - ")
                fields, rest = left.split(), right.split()
                if len(fields) >= 5 and len(rest) >= 3 and rest[0] in ("cgroup", "cgroup2"):
                    out.append((fields[4], rest[0], rest[2].split(",")))
    except OSError:
        pass
    return out


def _own_cgroups() -> dict[str, str]:
    """Controller list ("" for v2, "memory", "cpu,cpuacct", ...) -> this process's cgroup path."""
    out: dict[str, str] = {}
    try:
        with open("/proc/self/cgroup", encoding="utf-8") as fh:
            for line in fh:
                parts = line.rstrip("\n").split(":", 2)
                if len(parts) == 3:
                    out[parts[1]] = parts[2]
    except OSError:
        pass
    return out


@functools.lru_cache(maxsize=1)
def _cgroup_parent() -> tuple[Kind, str] | None:
    """Where per-call cgroups with a memory limit can be made, if anywhere."""
    own = _own_cgroups()
    mounts = _mounts()
    for mount, fstype, _options in mounts:
        if fstype != "cgroup2" or "" not in own:
            continue
        parent = os.path.join(mount, own[""].lstrip("/"))
        try:
            with open(os.path.join(parent, "cgroup.subtree_control"), encoding="ascii") as fh:
                delegated = fh.read().split()
        except OSError:
            continue
        if "memory" in delegated and os.access(parent, os.W_OK):
            return "cgroup-v2", parent
    for mount, fstype, options in mounts:
        if fstype != "cgroup" or "memory" not in options:
            continue
        path = next((p for ctl, p in own.items() if "memory" in ctl.split(",")), None)
        if path is None:
            continue
        parent = os.path.join(mount, path.lstrip("/"))
        if os.path.isfile(os.path.join(parent, "memory.limit_in_bytes")) and os.access(parent, os.W_OK):
            return "cgroup-v1", parent
    return None


@functools.lru_cache(maxsize=8)
def _systemd_prefix(limit_mb: int) -> tuple[str, ...]:
    """systemd-run's command line for a scope with this MemoryMax, if systemd runs and accepts it."""
    systemd_run = shutil.which("systemd-run")
    if systemd_run is None or not os.path.isdir("/run/systemd/system"):
        return ()
    prefix = (systemd_run, *(() if os.geteuid() == 0 else ("--user",)), "--scope", "--quiet", "--collect",
              "-p", f"MemoryMax={limit_mb}M", "-p", "MemorySwapMax=0", "--")
    try:
        done = subprocess.run([*prefix, "true"], capture_output=True, timeout=15, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired):
        return ()
    return prefix if done.returncode == 0 else ()
