"""The Landlock backend's former gaps, through the real runner: shared /dev/shm, host terminals,
unix sockets outside the workspace, host command lines in /proc, the inherited status pipe, and
writable codeagent state (.codeagent/, .codeagent.toml, .git/config, .git/hooks).

Each test runs with namespaces (the default where the kernel allows them) and without (plain
Landlock, what a kernel refusing namespaces gets); where plain Landlock cannot close a gap the test
asserts that the result's `sandbox` says so."""

from __future__ import annotations

import json
import os
import secrets
import shutil
import socket
import subprocess
import sys
import sysconfig
import tempfile
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from shellkit import sandbox_env

import agent
from agent.bootstrap import load_all_tools, open_context
from agent.config import Settings, ShellSettings
from agent.shell.confine import MODE_NAMESPACES, MODE_PLAIN
from agent.shell.runner import CommandResult, run_command
from agent.shell.sandbox import probe_landlock
from agent.workspace import Workspace

Run = Callable[..., CommandResult]


@pytest.fixture(params=[True, False], ids=["namespaces", "plain"])
def namespaces(request: pytest.FixtureRequest) -> bool:
    problem = probe_landlock()
    if problem is not None:
        pytest.skip(problem)
    return bool(request.param)


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = (tmp_path / "ws").resolve()
    (root / ".codeagent/journal").mkdir(parents=True)
    (root / ".codeagent/journal/x.json").write_text('{"real": true}')
    (root / ".git/hooks").mkdir(parents=True)
    (root / ".git/config").write_text("[core]\n\tbare = false\n")
    (root / ".git/hooks/pre-commit.sample").write_text("#!/bin/sh\n")
    return root


@pytest.fixture
def run(ws: Path, fake_home: Path, namespaces: bool) -> Run:
    def go(command: str, *, timeout: float = 60) -> CommandResult:
        res = run_command(ShellSettings(sandbox="landlock"), Workspace(ws), ["bash", "-c", command], cwd=ws,
                          timeout=timeout, base_env=sandbox_env(fake_home), home=str(fake_home),
                          landlock_namespaces=namespaces)
        assert res.setup_error is None, res.setup_error
        if namespaces and res.sandbox == MODE_PLAIN:  # the kernel refused them: the result must say so
            assert res.notes and res.notes[0].startswith("namespaces unavailable: the kernel refused"), res.notes
        elif namespaces:  # "landlock+namespaces", or with what the kernel refused in brackets
            assert res.sandbox.startswith(MODE_NAMESPACES), res.sandbox
        else:
            assert res.sandbox == MODE_PLAIN, res.sandbox
        return res

    return go


def held(res: CommandResult, refusal: str = "") -> bool:
    """Whether the namespace guarantees held for this call: the namespaces stood, and the kernel
    did not refuse this part (`refusal`, as the mode names it). Else the mode says so."""
    return res.sandbox.startswith(MODE_NAMESPACES) and not (refusal and refusal in res.sandbox)


def test_dev_shm_is_private_or_absent(run: Run) -> None:
    tag = f"codeagent-test-{secrets.token_hex(4)}"
    host_file = Path("/dev/shm") / f"{tag}-host"
    host_file.write_text("HOST-SHM-SECRET")
    try:
        first = run(f"echo inside > /dev/shm/{tag} && echo WROTE; cat {host_file}; echo end")
        assert "end" in first.output and "HOST-SHM-SECRET" not in first.output
        assert not Path(f"/dev/shm/{tag}").exists()
        assert ("WROTE" in first.output) == held(first, "no private /dev/shm"), first.output  # private with namespaces, else none
        second = run(f"cat /dev/shm/{tag} || echo GONE")
        assert "GONE" in second.output and "inside" not in second.output
    finally:
        host_file.unlink()
        Path(f"/dev/shm/{tag}").unlink(missing_ok=True)


def test_no_terminal_can_be_opened(run: Run) -> None:
    master, slave = os.openpty()
    try:
        pts = os.ttyname(slave)
        res = run(f"for t in {pts} /dev/tty /dev/ptmx; do (echo TYPED > $t) 2>/dev/null && echo OPENED-$t; "
                  f"(timeout 1 cat $t) 2>/dev/null && echo READ-$t; done; ls /dev/pts; echo end")
        assert "end" in res.output
        assert "OPENED" not in res.output and "READ" not in res.output, res.output
        os.set_blocking(master, False)
        with pytest.raises(BlockingIOError):
            os.read(master, 100)  # nothing reached the terminal
    finally:
        os.close(master)
        os.close(slave)


@pytest.fixture
def unix_server(tmp_path: Path) -> Iterator[tuple[str, list[bytes]]]:
    """A unix socket server outside the workspace; the list collects what connections sent."""
    path = str(tmp_path / "service.sock")
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(path)
    server.listen(5)
    server.settimeout(0.2)
    got: list[bytes] = []
    stop = threading.Event()

    def serve() -> None:
        while not stop.is_set():
            try:
                conn, _ = server.accept()
            except OSError:
                continue
            with conn:
                got.append(conn.recv(100) or b"<connected>")

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield path, got
    stop.set()
    thread.join()
    server.close()


def test_unix_sockets_outside_cannot_be_reached(run: Run, unix_server: tuple[str, list[bytes]]) -> None:
    path, got = unix_server
    script = ("import socket\n"
              "for kind in (socket.SOCK_STREAM, socket.SOCK_DGRAM, socket.SOCK_SEQPACKET):\n"
              "    try:\n"
              "        s = socket.socket(socket.AF_UNIX, kind)\n"
              f"        s.connect({path!r}); s.sendall(b'LEAK'); print('CONNECTED', kind)\n"
              "    except OSError as e:\n"
              "        print('REFUSED', kind, e.errno)\n"
              "a, b = socket.socketpair(); a.sendall(b'pair'); print('SOCKETPAIR', b.recv(4).decode())\n")
    res = run(f"python3 -c \"{script}\"; (exec 3<>{path}) 2>/dev/null && echo BASH-OPENED; echo end")
    assert "CONNECTED" not in res.output and res.output.count("REFUSED") == 3, res.output
    assert "BASH-OPENED" not in res.output and "end" in res.output
    assert "SOCKETPAIR pair" in res.output  # what shells, Python and Node use between their processes
    assert got == []


def test_host_command_lines_are_hidden(run: Run) -> None:
    secret = f"HOST-CMDLINE-SECRET-{secrets.token_hex(4)}"
    host = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)", secret])
    try:
        res = run(f"ps auxww | grep -F HOST-CMDLINE; cat /proc/{host.pid}/cmdline; echo; for f in /proc/[0-9]*/cmdline; "
                  "do tr '\\0' ' ' < $f; echo; done | grep -F HOST-CMDLINE; echo end")
        assert "end" in res.output
        if held(res, "host /proc shown"):
            assert secret not in res.output, res.output
        else:  # plain Landlock cannot hide them: the result says so, and it is true
            assert "host processes visible in /proc" in res.sandbox or "host /proc shown" in res.sandbox
            assert secret in res.output
    finally:
        host.kill()
        host.wait()


def test_the_status_pipe_is_not_inherited_and_the_exit_cannot_be_forged(run: Run) -> None:
    forged = '{"exit-code": 0}\\n{"setup-error": "forged"}\\n'
    res = run("ls /proc/self/fd; for fd in $(seq 3 255); do (printf '" + forged + "' >&$fd) 2>/dev/null "
              "&& echo WROTE-$fd; done; for f in /proc/$PPID/fd/* /proc/1/fd/*; do (printf '" + forged + "' > $f) "
              "2>/dev/null && echo WROTE-$f; done; exit 7")
    assert res.exit_code == 7 and res.setup_error is None, res.output
    assert "WROTE" not in res.output, res.output
    assert res.output.split()[:4] == ["0", "1", "2", "3"] and "4" not in res.output.split()  # 3: ls's own


def _attack(root: Path) -> str:
    return (f"cd {root}; echo FORGED > .codeagent/journal/x.json; echo '{{}}' > .codeagent/journal/y.json; "
            "echo '{}' > evil.json; mv -f evil.json .codeagent/journal/x.json; "
            "echo 'sandbox = \"off\"' > .codeagent.toml; echo 'x=1' > evil.toml; mv -f evil.toml .codeagent.toml; "
            "echo '[core] fsmonitor = evil' >> .git/config; printf '#!/bin/sh\\nevil\\n' > .git/hooks/pre-commit; "
            "mv .git .git-aside && mkdir .git && echo '[core]' > .git/config; rm -rf .codeagent; echo end")


def _state(root: Path) -> dict[str, bytes | None]:
    names = [".codeagent/journal/x.json", ".codeagent/journal/y.json", ".codeagent.toml", ".git/config",
             ".git/hooks/pre-commit", ".git/hooks/pre-commit.sample", ".git-aside"]
    return {n: (root / n).read_bytes() if (root / n).is_file() else (b"<dir>" if (root / n).exists() else None)
            for n in names}


def test_codeagent_state_and_git_config_stay_unchanged(run: Run, ws: Path) -> None:
    before = _state(ws)
    res = run(_attack(ws))
    assert "end" in res.output
    after = _state(ws)
    for name in (".codeagent.toml", ".git/config", ".git/hooks/pre-commit", ".git/hooks/pre-commit.sample"):
        assert after[name] == before[name], (name, res.output)
    if held(res):
        assert after == before, res.output
        assert "Read-only file system" in res.output
        assert "restored" not in " ".join(res.notes)
    else:  # plain Landlock: the journal is writable (its entries are authenticated instead); the rest is put back
        assert ".codeagent/ writable" in res.sandbox
        assert any("restored after the call" in n and ".codeagent.toml" in n for n in res.notes), res.notes


def test_an_existing_project_file_is_not_changed(run: Run, ws: Path) -> None:
    (ws / ".codeagent.toml").write_text("[shell]\nsandbox = \"landlock\"\n")
    before = _state(ws)
    res = run(_attack(ws) + "; rm -f .codeagent.toml; ln -s /etc/passwd .codeagent.toml")
    assert _state(ws)[".codeagent.toml"] == before[".codeagent.toml"], res.output
    assert not (ws / ".codeagent.toml").is_symlink()


NOBODY = 65534
NOBODY_SCRIPT = r"""
import json, sys
from pathlib import Path
import agent
from agent.config import Settings, ShellSettings
from agent.bootstrap import load_all_tools
from agent.shell.runner import run_command
from agent.workspace import Workspace

base, home, command = Path(sys.argv[1]), sys.argv[2], sys.argv[3]
out = {}
for namespaces in (True, False):
    root = base / str(namespaces)  # a workspace each: the plain run changes what it can
    res = run_command(ShellSettings(sandbox="landlock"), Workspace(root), ["bash", "-c", command], cwd=root,
                      timeout=60, base_env={"PATH": "/usr/bin:/bin", "HOME": home}, home=home,
                      landlock_namespaces=namespaces)
    out[str(namespaces)] = {"exit": res.exit_code, "output": res.output, "error": res.setup_error,
                            "sandbox": res.sandbox, "notes": res.notes}
print(json.dumps(out))
"""


def test_the_gaps_stay_closed_for_an_unprivileged_agent(tmp_path: Path, unix_server: tuple[str, list[bytes]]) -> None:
    """The same checks with the agent running as nobody: namespaces come from a user namespace."""
    if os.geteuid() != 0:
        pytest.skip("already unprivileged: the other tests cover this case")
    if probe_landlock() is not None:
        pytest.skip(str(probe_landlock()))
    system_python = shutil.which("python3", path="/usr/bin:/bin")
    if system_python is None:
        pytest.skip("needs /usr/bin/python3")
    version = subprocess.run([system_python, "-c", "import sys; print(sys.version_info[:2])"],
                             capture_output=True, text=True).stdout.strip()
    if version != str(tuple(sys.version_info[:2])):
        pytest.skip(f"the system Python {version} cannot load this venv's compiled packages")
    sock_path, got = unix_server
    os.chmod(os.path.dirname(sock_path), 0o755)
    os.chmod(sock_path, 0o777)  # nobody could connect, were it not for the sandbox
    master, slave = os.openpty()
    os.chmod(os.ttyname(slave), 0o666)
    secret = f"HOST-CMDLINE-SECRET-{secrets.token_hex(4)}"
    host = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)", secret])
    tag = f"codeagent-test-{secrets.token_hex(4)}"
    base = Path(tempfile.mkdtemp(prefix="codeagent-nobody-"))
    try:
        home = base / "home"
        home.mkdir()
        for root in (base / "ws/True", base / "ws/False"):
            for path in (root / ".codeagent/journal", root / ".git/hooks"):
                path.mkdir(parents=True)
            (root / ".codeagent/journal/x.json").write_text('{"real": true}')
            (root / ".git/config").write_text("[core]\n")
        before = _state(base / "ws/True")
        for dirpath, _dirs, files in os.walk(base):
            for name in [dirpath, *(os.path.join(dirpath, f) for f in files)]:
                os.chown(name, NOBODY, NOBODY)
        command = (f"echo x > /dev/shm/{tag} && echo SHM-WROTE; (echo TYPED > {os.ttyname(slave)}) 2>/dev/null "
                   f"&& echo TTY-OPENED; python3 -c \"import socket; s = socket.socket(socket.AF_UNIX); "
                   f"s.connect('{sock_path}'); print('UNIX-CONNECTED')\" 2>/dev/null; "
                   f"grep CapBnd /proc/self/status; cat /proc/{host.pid}/cmdline; ls /proc/self/fd | tr '\\n' ' '; echo; " + _attack(Path(".")))
        script = base / "run.py"
        script.write_text(NOBODY_SCRIPT)
        paths = [str(Path(agent.__file__).parent.parent), sysconfig.get_paths()["purelib"],
                 sysconfig.get_paths()["platlib"]]
        env = {"PYTHONPATH": os.pathsep.join(paths), "PATH": "/usr/bin:/bin", "HOME": str(home), "LANG": "C.UTF-8"}
        done = subprocess.run([system_python, "-B", str(script), str(base / "ws"), str(home), command], user=NOBODY,
                              group=NOBODY, extra_groups=[], env=env, capture_output=True, text=True, timeout=120,
                              cwd=base)
        if done.returncode != 0 and ("ModuleNotFoundError" in done.stderr or "Permission denied" in done.stderr):
            pytest.skip(f"the checkout is not readable by an unprivileged user: {done.stderr.strip()[-200:]}")
        assert done.returncode == 0, done.stderr
        result = json.loads(done.stdout.strip().splitlines()[-1])
        with_ns, plain = result["True"], result["False"]
        assert plain["sandbox"] == MODE_PLAIN, plain
        for got_run in (with_ns, plain):
            assert got_run["error"] is None and "end" in got_run["output"], got_run
            out = got_run["output"]
            assert "TTY-OPENED" not in out and "UNIX-CONNECTED" not in out
            assert "0 1 2 3 \n" in out  # nothing inherited beyond stdin/out/err (3: ls's own)
        assert not Path(f"/dev/shm/{tag}").exists()
        assert got == []
        assert secret in plain["output"]  # plain Landlock: visible, as its mode says
        if with_ns["sandbox"] == MODE_NAMESPACES:
            assert "SHM-WROTE" in with_ns["output"] and secret not in with_ns["output"], with_ns
            assert "CapBnd:\t0000000000000000" in with_ns["output"]  # the user namespace's powers dropped
            assert _state(base / "ws/True") == before, with_ns["output"]
        else:  # a kernel without unprivileged user namespaces: the fallback, and it says so
            assert with_ns["sandbox"] == MODE_PLAIN and "namespaces unavailable" in with_ns["notes"][0], with_ns
        after = _state(base / "ws/False")
        for name in (".codeagent.toml", ".git/config", ".git/hooks/pre-commit"):
            assert after[name] == before[name], name
    finally:
        host.kill()
        host.wait()
        os.close(master)
        os.close(slave)
        Path(f"/dev/shm/{tag}").unlink(missing_ok=True)
        shutil.rmtree(base, ignore_errors=True)


def test_a_protected_path_that_is_a_link_is_put_back(run: Run, ws: Path) -> None:
    (ws / "real.toml").write_text("[shell]\n")
    (ws / ".codeagent.toml").symlink_to("real.toml")
    res = run("rm -f .codeagent.toml; echo 'sandbox = \"off\"' > .codeagent.toml; echo end")
    assert "end" in res.output
    assert os.readlink(ws / ".codeagent.toml") == "real.toml" and (ws / "real.toml").read_text() == "[shell]\n"
    assert any("restored after the call" in n for n in res.notes), res.notes


def test_the_tool_result_names_the_mode(ws: Path) -> None:
    if probe_landlock() is not None:
        pytest.skip(str(probe_landlock()))
    ctx = open_context(ws, settings=Settings(shell=ShellSettings(sandbox="landlock")))
    try:
        res = load_all_tools().call(ctx, "run_shell_command", {"command": "echo x > .codeagent.toml; echo end"})
    finally:
        ctx.close()
    assert res.data["sandbox"] in (MODE_NAMESPACES, MODE_PLAIN), res.data
    assert "end" in res.output and not (ws / ".codeagent.toml").exists()


def test_git_inside_never_sees_a_placeholder(run: Run, ws: Path) -> None:
    if shutil.which("git") is None:
        pytest.skip("needs git")
    shutil.rmtree(ws / ".git")
    res = run("git init -q . && git add -A && git status --porcelain; echo end")
    assert "end" in res.output and ".codeagent.toml" not in res.output, res.output
    assert not (ws / ".codeagent.toml").exists()


def test_no_placeholder_is_left_when_the_command_cannot_start(ws: Path, fake_home: Path, namespaces: bool) -> None:
    res = run_command(ShellSettings(sandbox="landlock"), Workspace(ws), ["no-such-command-here"], cwd=ws, timeout=60,
                      base_env=sandbox_env(fake_home), home=str(fake_home), landlock_namespaces=namespaces)
    assert res.setup_error is not None and "command not found" in res.setup_error
    assert not (ws / ".codeagent.toml").exists()


def test_no_placeholder_is_left_after_a_timeout(run: Run, ws: Path) -> None:
    res = run("trap '' TERM; sleep 30", timeout=1.0)
    assert res.timed_out
    assert not (ws / ".codeagent.toml").exists()


REFUSED_SCRIPT = r"""
import json, sys
from pathlib import Path
from agent.config import ShellSettings
from agent.shell.runner import run_command
from agent.workspace import Workspace

root = Path(sys.argv[1])
res = run_command(ShellSettings(sandbox="landlock"), Workspace(root), ["bash", "-c", sys.argv[2]], cwd=root,
                  timeout=60, base_env={"PATH": "/usr/bin:/bin", "HOME": str(root)}, home=str(root))
print(json.dumps({"output": res.output, "sandbox": res.sandbox, "notes": res.notes, "error": res.setup_error}))
"""


def test_a_kernel_refusing_namespaces_gets_plain_landlock_and_says_so(ws: Path, tmp_path: Path) -> None:
    """A real refusal: the agent runs in a user namespace whose mount-namespace quota is 0."""
    if probe_landlock() is not None:
        pytest.skip(str(probe_landlock()))
    if shutil.which("unshare") is None or subprocess.run(["unshare", "--user", "--map-root-user", "true"],
                                                         capture_output=True).returncode != 0:
        pytest.skip("needs unshare and user namespaces to set up a kernel that refuses mount namespaces")
    script = tmp_path / "refused.py"
    script.write_text(REFUSED_SCRIPT)
    inner = f"echo 0 > /proc/sys/user/max_mnt_namespaces && exec {sys.executable} {script} \"$0\" \"$1\""
    done = subprocess.run(["unshare", "--user", "--map-root-user", "sh", "-c", inner, str(ws),
                           "echo 'x = 1' > .codeagent.toml; echo end"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    got = json.loads(done.stdout.strip().splitlines()[-1])
    assert got["error"] is None and "end" in got["output"], got
    assert got["sandbox"] == MODE_PLAIN
    assert got["notes"][0].startswith("namespaces unavailable: the kernel refused mount/pid/IPC namespaces"), got
    assert any("restored after the call" in n for n in got["notes"]), got
    assert not (ws / ".codeagent.toml").exists()
