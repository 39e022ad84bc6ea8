"""Both layers together, through the registry as the agent loop calls the tools: the policy in
front, the sandbox behind it, and the everyday commands that must keep working."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from agent.bootstrap import load_all_tools, open_context
from agent.config import Settings, ShellSettings
from agent.result import ToolResult
from agent.toolcontext import ToolContext

Call = Callable[..., ToolResult]


@pytest.fixture
def streamed() -> list[str]:
    return []


@pytest.fixture
def make_call(root: Path, streamed: list[str]) -> Iterator[Callable[..., Call]]:
    contexts: list[ToolContext] = []

    def make(**shell: Any) -> Call:
        ctx = open_context(root, settings=Settings(shell=ShellSettings(**shell)), on_output=streamed.append)
        contexts.append(ctx)
        registry = load_all_tools()
        return lambda name, **args: registry.call(ctx, name, args)

    yield make
    for ctx in contexts:
        ctx.close()


@pytest.fixture
def sh(make_call: Callable[..., Call]) -> Call:
    return make_call()


@pytest.fixture(autouse=True)
def _venv_on_path(monkeypatch: pytest.MonkeyPatch) -> None:
    """The test interpreter's folder (with pytest) first on PATH, as in an activated venv."""
    import os

    monkeypatch.setenv("PATH", os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")]))


def test_pipes_scripts_and_exit_codes(sh: Call, root: Path, streamed: list[str]) -> None:
    res = sh("run_shell_command", command="printf 'b\\na\\nc\\n' | sort | head -2 && echo ok >&2")
    assert res.success, res.error
    assert res.output.startswith("a\nb\nok\n") and "[exit code 0" in res.output
    assert res.data["sandbox"] in ("bwrap", "landlock") and res.data["exit_code"] == 0
    assert "a\nb\n" in "".join(streamed)
    (root / "script.py").write_text("import sys\nopen('made.txt', 'w').write('x')\nprint('hello'); sys.exit(3)\n")
    res = sh("run_command", argv=["python3", "script.py"])
    assert not res.success and res.data["exit_code"] == 3 and "hello" in res.output
    assert res.error == "the command exited with code 3"
    assert (root / "made.txt").read_text() == "x"


def test_pytest_and_git_work_in_the_sandbox(sh: Call, root: Path) -> None:
    (root / "test_tiny.py").write_text("def test_ok():\n    assert 1 + 1 == 2\n")
    res = sh("run_shell_command", command="python3 -m pytest -q -p no:cacheprovider test_tiny.py", timeout=120)
    assert res.success, res.output
    assert "1 passed" in res.output
    res = sh("run_shell_command", command="git init -q && git status --short && git status")
    assert res.success, res.output
    assert "test_tiny.py" in res.output and "No commits yet" in res.output


def test_refused_commands_never_run(sh: Call, root: Path) -> None:
    res = sh("run_shell_command", command="touch ran.txt && timeout 5 sudo id")
    assert not res.success
    assert "privilege-escalation" in (res.error or "") and "nothing ran" in (res.error or "")
    assert res.data["refused_by"][0]["via"] == ["timeout"]
    assert not (root / "ran.txt").exists()
    res = sh("run_command", argv=["bash", "-c", "python3 -c 'import os'"])
    assert not res.success and res.data["refused_by"][0]["rule"] == "inline-code"


def test_the_sandbox_stops_what_the_policy_cannot_see(sh: Call, root: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside.txt"
    (root / "sneaky.py").write_text(
        f"for path in ({str(outside)!r}, '/etc/codeagent-sneaky'):\n"
        "    try:\n        open(path, 'w').write('x')\n        print('wrote', path)\n"
        "    except OSError as exc:\n        print('refused', path, exc)\n")
    res = sh("run_command", argv=["python3", "sneaky.py"])
    assert "refused /etc/codeagent-sneaky" in res.output, res.output
    assert not outside.exists() and not Path("/etc/codeagent-sneaky").exists()


def test_policy_off_leaves_the_sandbox(make_call: Callable[..., Call], root: Path) -> None:
    call = make_call(policy={"enabled": False})
    res = call("run_shell_command", command="rm -rf /usr/share/doc 2>&1; echo still-here")
    assert "still-here" in res.output and ("Read-only file system" in res.output or "ermission" in res.output)
    assert Path("/usr/share/doc").exists()


def test_agent_secrets_never_reach_commands(sh: Call, monkeypatch: pytest.MonkeyPatch) -> None:
    secrets = {"OPENAI_API_KEY": "sk-test-OPENAI-123", "LLM_API_KEY": "sk-test-LLM-456",
               "GITHUB_TOKEN": "ghp-test-789", "AWS_SECRET_ACCESS_KEY": "aws-test-000",
               "MY_SERVICE_PASSWORD": "pw-test-111"}
    for name, value in secrets.items():
        monkeypatch.setenv(name, value)
    res = sh("run_shell_command", command="env; cat /proc/$PPID/environ /proc/1/environ 2>/dev/null | tr '\\0' '\\n'")
    assert "PATH=" in res.output
    for value in secrets.values():
        assert value not in res.output


def test_timeout_kills_and_says_so(sh: Call) -> None:
    res = sh("run_shell_command", command="echo before; sleep 30", timeout=1)
    assert not res.success and res.data["timed_out"] is True and res.error == "timed out"
    assert "before" in res.output and "timed out after 1 s" in res.output
    res = sh("run_shell_command", command="true", timeout=1e6)
    assert res.success and "timeout lowered" in res.output


def test_cwd_must_be_inside_the_workspace(sh: Call, root: Path) -> None:
    for cwd in ("..", "/etc", "../../", "~"):
        res = sh("run_shell_command", command="pwd", cwd=cwd)
        assert not res.success and "workspace" in (res.error or ""), cwd
    (root / "sub").mkdir()
    res = sh("run_shell_command", command="pwd", cwd="sub")
    assert res.success and res.output.splitlines()[0] == str(root / "sub")
    res = sh("run_shell_command", command="pwd", cwd="missing")
    assert not res.success


def test_project_virtualenv_comes_first_on_path(sh: Call, root: Path) -> None:
    venv = root / ".venv"
    (venv / "bin").mkdir(parents=True)
    (venv / "pyvenv.cfg").write_text(f"home = {Path(sys.executable).parent}\n")
    tool = venv / "bin" / "python"
    tool.write_text("#!/bin/sh\necho venv-python\n")
    tool.chmod(0o755)
    res = sh("run_shell_command", command="python; echo $VIRTUAL_ENV")
    assert res.output.splitlines()[:2] == ["venv-python", str(venv)]


def test_long_output_comes_back_bounded_with_its_file(sh: Call, root: Path) -> None:
    res = sh("run_shell_command", command="seq 1 200000")
    assert res.success and res.data["truncated"] is True
    assert len(res.output) < 31_000
    assert res.output.startswith("1\n2\n") and "200000\n[exit code 0" in res.output
    saved = root / res.data["output_file"]
    assert saved.read_text().splitlines()[-1] == "200000"
    assert "lines) cut" in res.output
    res = sh("run_shell_command", command="echo short")
    assert res.data["output_file"] is None


def test_invalid_utf8_does_not_crash(sh: Call) -> None:
    res = sh("run_command", argv=["printf", "\\377\\376 caf\\303\\251 \\303"])
    assert res.success and "\ufffd\ufffd café \ufffd" in res.output


def test_no_sandbox_means_refusal_unless_turned_off(make_call: Callable[..., Call],
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    call = make_call(sandbox="bwrap")
    monkeypatch.setenv("PATH", "/nonexistent-bin")
    res = call("run_shell_command", command="echo hi")
    assert not res.success and "bubblewrap" in (res.error or "")
