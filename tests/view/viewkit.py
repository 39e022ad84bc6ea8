"""Helpers of the web view's tests: the real `codeagent view` as a subprocess (its printed URL
read from stdout) and a real scripted `codeagent run` against the OpenAI-protocol test server."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

from clikit import codeagent_command

# the scripted OpenAI-protocol server lives beside the agent tests; reuse it rather than copy it
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "agent"))
from fake_openai import FakeOpenAI, call, tools_reply  # noqa: E402

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
DOCS = Path(__file__).resolve().parents[2] / "docs"
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]
FIX_OLD = "    total = sum(values)\n    return total / len(values)\n"
FIX_NEW = "    if not values:\n        return 0.0\n    total = sum(values)\n    return total / len(values)\n"
TASK = "make mean([]) return 0.0 instead of raising ZeroDivisionError"


def screenshot(page: Any, name: str, scratch: Path) -> Path:
    """A full-page screenshot into `scratch` (checked to be a PNG); copied over docs/NAME only when
    CODEAGENT_VIEW_SCREENSHOTS=1 asks for it, so a test run leaves the checkout as it was."""
    shot = scratch / name
    page.screenshot(path=str(shot), full_page=True)
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 10_000, shot
    if os.environ.get("CODEAGENT_VIEW_SCREENSHOTS") == "1":
        DOCS.mkdir(exist_ok=True)
        shutil.copyfile(shot, DOCS / name)
    return shot


def cli_env(**extra: str) -> dict[str, str]:
    # BROWSER=true: `--open`/`--view` "open" the URL with /bin/true, not a real browser
    return {**os.environ, "PYTHONDONTWRITEBYTECODE": "1", "CODEAGENT_CONFIG": os.devnull, "BROWSER": "true", **extra}


class ViewServer:
    """`codeagent view` (or any command that serves the view) as a real process."""

    def __init__(self, *args: str, cwd: Path | None = None, timeout: float = 120, env: dict[str, str] | None = None):
        self.proc = subprocess.Popen([*codeagent_command(), *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     text=True, env=cli_env(**(env or {})), cwd=cwd)
        self.lines: list[str] = []
        self.stderr = ""
        found = threading.Event()

        def read() -> None:
            assert self.proc.stdout is not None
            for line in self.proc.stdout:
                self.lines.append(line)
                if line.startswith("codeagent view: http"):
                    found.set()
            found.set()

        threading.Thread(target=read, daemon=True).start()
        found.wait(timeout)
        line = next((x for x in self.lines if x.startswith("codeagent view: http")), None)
        if line is None:
            self.stop()
            raise AssertionError(f"no URL printed: {self.lines!r} {self.stderr}")
        self.url = line.split(": ", 1)[1].strip()
        self.base, _, query = self.url.partition("?")
        self.token = query.removeprefix("token=")
        self.origin = "/".join(self.base.split("/")[:3])
        self.netloc = self.origin.removeprefix("http://")

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        assert self.proc.stderr is not None
        self.stderr = self.proc.stderr.read()


def scripted_run(root: Path) -> str:
    """A real `codeagent run` on `root` against the scripted model: it reads, fixes buggy.py, fails
    once, writes a note and finishes. Returns the run id."""
    script = [
        tools_reply(call("read_file", file_path="buggy.py"), call("search_in_files", pattern="def mean")),
        tools_reply(call("replace_in_file", file_path="buggy.py", old_text=FIX_OLD, new_text=FIX_NEW),
                    content="mean() divides by len(values); guard the empty list first."),
        tools_reply(call("read_file", file_path="stats/missing.py")),
        tools_reply(call("write_file", file_path="notes/CHANGES.md", content="mean([]) is 0.0 now\n")),
        tools_reply(call("finish", summary="mean([]) returns 0.0 now; notes/CHANGES.md says so")),
    ]
    with FakeOpenAI(script) as server:
        proc = subprocess.run([*codeagent_command(), "run", TASK, "--root", str(root), "--base-url", server.base_url,
                               "--model", "scripted-model", "--json"], capture_output=True, text=True, env=cli_env(),
                              timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return str(json.loads(proc.stdout)["run_id"])


def stuck_run(root: Path) -> str:
    """A real run that calls the same failing tool until the stuck detector hints, then stops it."""
    script = [tools_reply(call("read_file", file_path="stats/missing.py"))] * 10
    with FakeOpenAI(list(script)) as server:
        proc = subprocess.run([*codeagent_command(), "run", "read the stats module", "--root", str(root),
                               "--base-url", server.base_url, "--model", "scripted-model", "--json"],
                              capture_output=True, text=True, env=cli_env(), timeout=120)
    outcome = json.loads(proc.stdout)
    assert outcome["status"] == "stuck", proc.stdout + proc.stderr
    return str(outcome["run_id"])


def run_script(root: Path, task: str, script: list[object]) -> str:
    """A real `codeagent run` on `root` with any script; returns the run id."""
    with FakeOpenAI(list(script)) as server:  # type: ignore[arg-type]
        proc = subprocess.run([*codeagent_command(), "run", task, "--root", str(root), "--base-url", server.base_url,
                               "--model", "scripted-model", "--json"], capture_output=True, text=True, env=cli_env(),
                              timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return str(json.loads(proc.stdout)["run_id"])
