"""Layer 2 alone: the OS sandbox with no policy in front of it, for bubblewrap and Landlock.
Every command here would be allowed by a policy-less agent; the sandbox must contain it."""

from __future__ import annotations

import os
import secrets
import socket
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from shellkit import processes_with, sandbox_env

from agent.config import ShellSettings
from agent.shell.errors import SandboxUnavailable
from agent.shell.runner import CommandResult
from agent.shell.sandbox import choose_backend, probe_bwrap

Run = Callable[..., CommandResult]


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    sibling = tmp_path / "sibling"
    sibling.mkdir()
    (sibling / "secret.txt").write_text("SECRET-SIBLING")
    return root.resolve()


def test_only_the_workspace_is_writable(ws: Path, backend: str, run_in: Run) -> None:
    sibling = ws.parent / "sibling"
    res = run_in(ws, backend, f"echo made > inside.txt; mkdir -p sub/deep && echo x > sub/deep/f; "
                              f"touch /usr/x; touch /etc/x; touch {sibling}/new; echo x > {ws.parent}/next-to-ws; "
                              f"rm -f {sibling}/secret.txt; echo done")
    assert res.exit_code == 0, res.output
    assert (ws / "inside.txt").read_text() == "made\n" and (ws / "sub/deep/f").exists()
    assert "done" in res.output
    assert not Path("/usr/x").exists() and not Path("/etc/x").exists()
    assert not (sibling / "new").exists() and not (ws.parent / "next-to-ws").exists()
    assert (sibling / "secret.txt").read_text() == "SECRET-SIBLING"


def test_siblings_and_home_secrets_are_invisible_toolchains_work(ws: Path, backend: str, run_in: Run,
                                                                 fake_home: Path) -> None:
    sibling = ws.parent / "sibling"
    res = run_in(ws, backend, f"mytool; fakecargo; python3 --version; cat {sibling}/secret.txt; ls {sibling}; "
                              f"for f in .ssh/id_rsa .aws/credentials .config/gh/hosts.yml .netrc .bash_history "
                              f".cargo/credentials.toml; do cat {fake_home}/$f; done; ls -a {fake_home} ~; echo end")
    assert "mytool-works" in res.output and "fakecargo-works" in res.output, res.output
    assert "Python 3" in res.output
    assert "SECRET" not in res.output
    assert "end" in res.output


def test_real_home_secrets_are_invisible(ws: Path, backend: str, run_in: Run) -> None:
    real_home = Path.home()
    secrets_there = [p for p in (".ssh", ".aws", ".config", ".netrc", ".npmrc", ".bash_history")
                     if (real_home / p).exists()]
    if not secrets_there:
        pytest.skip("the real home folder has none of the usual secrets")
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(real_home)}
    listing = " ".join(str(real_home / p) for p in secrets_there)
    res = run_in(ws, backend, f"ls -a {listing}; cat {real_home}/.npmrc {real_home}/.netrc; echo end", env=env)
    assert "end" in res.output
    for name in secrets_there:
        path = real_home / name
        if path.is_file() and path.stat().st_size:
            assert path.read_text(errors="replace")[:40] not in res.output


def test_no_network(ws: Path, backend: str, run_in: Run) -> None:
    tcp = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    tcp.bind(("127.0.0.1", 0))
    tcp.listen(5)
    tcp.settimeout(0.5)
    udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    udp.bind(("127.0.0.1", 0))
    udp.settimeout(0.5)
    (ws / "udp.py").write_text(
        "import socket\ntry:\n    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)\n"
        f"    s.sendto(b'leak', ('127.0.0.1', {udp.getsockname()[1]}))\n    print('UDP-SENT')\n"
        "except OSError as e:\n    print('UDP-BLOCKED', e)\n")
    try:
        res = run_in(ws, backend, f"(exec 3<>/dev/tcp/127.0.0.1/{tcp.getsockname()[1]} && echo TCP-CONNECTED) "
                                  "|| echo TCP-FAILED; python3 udp.py")
        assert "TCP-FAILED" in res.output and "TCP-CONNECTED" not in res.output, res.output
        with pytest.raises(socket.timeout):
            tcp.accept()
        with pytest.raises(socket.timeout):
            udp.recvfrom(100)
    finally:
        tcp.close()
        udp.close()


def test_not_root(ws: Path, backend: str, run_in: Run) -> None:
    res = run_in(ws, backend, "id -u; grep -E '^Cap(Eff|Prm|Amb):' /proc/self/status; cat /etc/shadow; "
                              "cat /etc/gshadow; chown 0:0 . 2>&1; echo end")
    assert "end" in res.output
    caps = [line.split()[1] for line in res.output.splitlines() if line.startswith("Cap")]
    assert caps and all(int(c, 16) == 0 for c in caps), res.output
    assert "root:" not in res.output  # no shadow entry was readable
    if backend == "bwrap":
        assert res.output.splitlines()[0] != "0"


def test_processes_outside_the_sandbox_are_out_of_reach(ws: Path, backend: str, run_in: Run) -> None:
    me = os.getpid()
    res = run_in(ws, backend, f"kill -0 {me} && echo CAN-SIGNAL; cat /proc/{me}/environ && echo CAN-READ; echo end",
                 env={**sandbox_env(Path("/nonexistent")), "OPENAI_API_KEY": "x"})
    assert "end" in res.output
    assert "CAN-SIGNAL" not in res.output and "CAN-READ" not in res.output


def test_no_process_survives_the_call_or_its_timeout(ws: Path, backend: str, run_in: Run) -> None:
    tag = f"{secrets.randbelow(10**6) + 10**6}"
    background = (f"(sleep 2.{tag}1; touch {ws}/bg-amp) & "
                  f"nohup sh -c 'sleep 2.{tag}2; touch {ws}/bg-nohup' >/dev/null 2>&1 & "
                  f"setsid sh -c 'sleep 2.{tag}3; touch {ws}/bg-setsid' & "
                  f"(setsid sh -c 'sleep 2.{tag}4; touch {ws}/bg-double' &) ; ")
    res = run_in(ws, backend, background + "echo started")
    assert res.exit_code == 0 and "started" in res.output
    assert processes_with(tag) == []
    start = time.monotonic()
    res = run_in(ws, backend, background + f"sleep 60.{tag}", timeout=1.5)
    assert res.timed_out and res.exit_code is None
    assert time.monotonic() - start < 15
    assert processes_with(tag) == []
    time.sleep(3)
    assert sorted(p.name for p in ws.glob("bg-*")) == []


def test_memory_cap_stops_a_6_gib_allocation(ws: Path, backend: str, run_in: Run) -> None:
    (ws / "alloc.py").write_text("b = bytearray(6 << 30)\nprint('ALLOCATED', len(b))\n")
    res = run_in(ws, backend, "python3 alloc.py")
    assert res.exit_code != 0 and "MemoryError" in res.output and "ALLOCATED" not in res.output


def test_file_size_and_process_caps(ws: Path, backend: str, run_in: Run) -> None:
    res = run_in(ws, backend, "ulimit -d; ulimit -u; ulimit -f; head -c 3000000 /dev/zero > big; echo rc=$?",
                 max_file_size_mb=1, max_processes=300, memory_limit_mb=1024)
    lines = res.output.splitlines()
    assert lines[:3] == [str(1024 * 1024), "300", str(1024)], res.output
    assert "rc=0" not in res.output
    assert (ws / "big").stat().st_size <= 1024 * 1024


def test_huge_output_is_bounded_fast_and_saved(ws: Path, backend: str, run_in: Run) -> None:
    start = time.monotonic()
    res = run_in(ws, backend, "head -c 200000000 /dev/zero | tr '\\0' a; echo; echo THE-END")
    elapsed = time.monotonic() - start
    assert res.exit_code == 0
    assert elapsed < 30
    assert res.truncated and res.total_bytes == 200_000_009
    assert len(res.output) < 31_000
    assert res.output.rstrip().endswith("THE-END") and res.output.startswith("aaaa")
    assert f"{res.cut_bytes} bytes" in res.output and res.log_path and res.log_path in res.output
    saved = ws / res.log_path
    assert saved.stat().st_size == 200_000_009
    saved.unlink()


def test_invalid_utf8_output_is_decoded(ws: Path, backend: str, run_in: Run) -> None:
    res = run_in(ws, backend, "printf 'ok \\377\\376 end\\n\\303'")
    assert res.exit_code == 0
    assert res.output.startswith("ok \ufffd\ufffd end\n")


def test_sandbox_refuses_clearly_when_it_cannot_start(monkeypatch: pytest.MonkeyPatch) -> None:
    assert probe_bwrap(None) == "bubblewrap (bwrap) is not installed"
    monkeypatch.setenv("PATH", "/nonexistent")
    with pytest.raises(SandboxUnavailable, match="apt-get install bubblewrap"):
        choose_backend(ShellSettings(sandbox="bwrap"))
    assert choose_backend(ShellSettings(sandbox="off")) == "off"


def test_sandbox_off_is_explicit_and_really_off(ws: Path, run_in: Run) -> None:
    sibling = ws.parent / "sibling"
    res = run_in(ws, "off", f"cat {sibling}/secret.txt; (sleep 30.4242 &); echo end")
    assert "SECRET-SIBLING" in res.output  # proves the other tests would notice a missing sandbox
    assert processes_with("30.4242") == []  # the process tree is still ended
