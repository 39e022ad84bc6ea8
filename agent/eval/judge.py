"""A task's judge on a finished run's tree: the test command (bash, in the sandbox, at the project
root) and the exact expected/forbidden changes. A task is solved only when every check passes."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lsp_bridge.servers import default_cache_dir

from ..bootstrap import load_all_tools, open_context
from ..config import load_settings
from ..result import bounded
from .suite import FileCheck, Task

SHOWN_OUTPUT = 4000


@dataclass(slots=True)
class Verdict:
    passed: bool
    failures: list[str] = field(default_factory=list)
    test_output: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {"passed": self.passed, "failures": self.failures, "test_output": self.test_output}


def typescript_compiler() -> str | None:
    """The `tsc` of the TypeScript the language-server cache holds (`codeagent servers install`)."""
    for path in sorted(default_cache_dir().glob("typescript-language-server*/node_modules/typescript/bin/tsc")):
        return str(path)
    return None


def _read(root: Path, rel: str) -> str | None:
    try:
        return (root / rel).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def check_files(task: Task, root: Path) -> list[str]:
    failures = []
    for c in task.judge.expect:
        text = _read(root, c.path)
        if c.absent:
            if (root / c.path).exists():
                failures.append(f"{c.path} should no longer exist")
        elif text is None:
            failures.append(f"{c.path} is missing")
        elif c.equals is not None and text != c.equals:
            failures.append(f"{c.path} does not hold the expected text")
        elif c.contains is not None and c.contains not in text:
            failures.append(f"{c.path} does not contain {c.contains!r}")
    for c in task.judge.forbid:
        failures += _forbidden(root, c)
    for rel in task.judge.unchanged:
        if _read(root, rel) != _read(task.project, rel):
            failures.append(f"{rel} was changed (it must not be)")
    return failures


def _forbidden(root: Path, c: FileCheck) -> list[str]:
    text = _read(root, c.path)
    if text is None:
        return []
    if c.contains is not None and c.contains in text:
        return [f"{c.path} still contains {c.contains!r}"]
    return []


def run_test(task: Task, root: Path) -> tuple[bool, str]:
    command = task.judge.test
    if command is None:
        return True, ""
    settings = load_settings(root)
    if "{tsc}" in command:
        tsc = typescript_compiler()
        if tsc is None:
            return False, "no TypeScript compiler: run `codeagent servers install` (the judge uses its tsc)"
        command = command.replace("{tsc}", f"node {tsc}")
        # the sandbox hides the home folder; the judge (not the workspace) shows it the compiler
        package = str(Path(tsc).parents[1])
        settings = load_settings(root, overrides={"shell": {
            "read_only_paths": [*settings.shell.read_only_paths, package]}})
    with open_context(root, settings=settings, show_progress=None) as ctx:
        result = load_all_tools().call(ctx, "run_shell_command", {"command": command, "timeout": task.judge.timeout})
    text = result.output if result.success else f"{result.error}\n{result.output}"
    return result.success, bounded(text, SHOWN_OUTPUT)


def judge(task: Task, root: Path) -> Verdict:
    failures = check_files(task, root)
    ok, output = run_test(task, root)
    if not ok:
        failures.append(f"the test command failed: {task.judge.test}")
    return Verdict(not failures, failures, output)
