"""Project tools: get_project_info (what the manifests say) and install_dependencies (the one tool
whose commands may reach the package registries)."""

from __future__ import annotations

import os
import shutil
import time
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel, Field

from ..commit import bounded
from ..errors import ToolFailure
from ..registry import tool
from ..result import ToolResult
from ..shell.environment import command_env, project_venv
from ..shell.project import REQUIREMENT_FILES, ProjectInfo, as_data, read_project, summary
from ..shell.runner import run_command
from ..toolcontext import ToolContext


class ProjectInput(BaseModel):
    path: str = Field(".", description="The project folder, relative to the workspace root.")


def _folder(ctx: ToolContext, path: str) -> Path:
    real = ctx.workspace.resolve(path)
    if not real.is_dir():
        raise ToolFailure(f"{path!r} is not a folder inside the workspace")
    return real


@tool(name="get_project_info", model=ProjectInput)
def get_project_info(ctx: ToolContext, args: ProjectInput) -> ToolResult:
    """Describe a project from its manifests (pyproject.toml, setup.cfg, requirements*.txt,
    package.json and lock file, Cargo.toml, go.mod): name, version, languages, dependencies,
    scripts, the likely test command and whether a virtualenv exists."""
    root = _folder(ctx, args.path)
    info = read_project(root)
    return ToolResult.ok(summary(info, ctx.workspace.rel(root)), **as_data(info))


@dataclass
class Step:
    label: str
    argv: list[str]
    writable: tuple[str, ...] = ()


def _python_steps(info: ProjectInfo, root: Path) -> list[Step]:
    python = [m for m in info.manifests if m.ecosystem == "python"]
    if not python:
        return []
    steps: list[Step] = []
    venv = project_venv(root)
    if venv is None:
        venv = root / ".venv"
        steps.append(Step("create the virtualenv .venv", ["python3", "-m", "venv", str(venv)]))
    pip = [str(venv / "bin" / "python"), "-m", "pip", "install", "--disable-pip-version-check", "--progress-bar", "off"]
    if any(m.file in ("pyproject.toml", "setup.py", "setup.cfg") for m in python) and (
            (root / "pyproject.toml").exists() or (root / "setup.py").exists()):
        extras = [name for m in python for name in m.extras if name in ("dev", "test", "tests")]
        target = "." + (f"[{','.join(dict.fromkeys(extras))}]" if extras else "")
        steps.append(Step(f"pip install -e {target}", [*pip, "-e", target]))
    for name in REQUIREMENT_FILES:
        if (root / name).is_file():
            steps.append(Step(f"pip install -r {name}", [*pip, "-r", name]))
    return steps


def _node_steps(info: ProjectInfo) -> list[Step]:
    node = info.manifest("node")
    if node is None:
        return []
    manager = node.package_manager or "npm"
    if manager == "pnpm":
        return [Step("pnpm install --frozen-lockfile", ["pnpm", "install", "--frozen-lockfile"])]
    if manager == "yarn":
        return [Step("yarn install --frozen-lockfile", ["yarn", "install", "--frozen-lockfile"])]
    if manager == "bun":
        return [Step("bun install", ["bun", "install"])]
    has_lock = (info.root / "package-lock.json").exists() or (info.root / "npm-shrinkwrap.json").exists()
    return [Step("npm ci" if has_lock else "npm install", ["npm", "ci" if has_lock else "install", "--no-audit",
                                                           "--no-fund"])]


def _cache_dir(env_value: str | None, default: Path, *parts: str) -> list[str]:
    base = Path(env_value) if env_value else default
    out = []
    for part in parts:
        path = base / part
        path.mkdir(parents=True, exist_ok=True)
        out.append(str(path))
    return out


def _install_steps(info: ProjectInfo, root: Path) -> list[Step]:
    steps = _python_steps(info, root) + _node_steps(info)
    home = Path.home()
    if info.manifest("rust"):
        writable = _cache_dir(os.environ.get("CARGO_HOME"), home / ".cargo", "registry", "git")
        steps.append(Step("cargo fetch", ["cargo", "fetch"], tuple(writable)))
    if info.manifest("go"):
        gopath = os.environ.get("GOPATH")
        writable = _cache_dir(os.environ.get("GOMODCACHE") or (f"{gopath}/pkg/mod" if gopath else None),
                              home / "go" / "pkg" / "mod", "")
        steps.append(Step("go mod download", ["go", "mod", "download"], tuple(writable)))
    return steps


@tool(name="install_dependencies", model=ProjectInput, shell=True)
def install_dependencies(ctx: ToolContext, args: ProjectInput) -> ToolResult:
    """Install a project's dependencies with its own tools: pip into the project's virtualenv
    (created as .venv if missing), npm ci / npm install (or pnpm, yarn), cargo fetch, go mod download.
    The one tool whose commands may reach the package registries (mirrors such as PIP_INDEX_URL and
    NPM_CONFIG_REGISTRY are honoured); long timeout, progress streamed."""
    root = _folder(ctx, args.path)
    shell = ctx.settings.shell
    info = read_project(root)
    steps = _install_steps(info, root)
    if not steps:
        raise ToolFailure(f"no manifest to install from in {ctx.workspace.rel(root)} (looked for pyproject.toml, "
                          "setup.py, requirements*.txt, package.json, Cargo.toml, go.mod)")
    deadline = time.monotonic() + shell.install_timeout
    env_path = command_env(shell, os.environ, root=ctx.workspace.root, home=str(Path.home()))["PATH"]
    reports: list[str] = []
    done: list[dict[str, object]] = []
    budget = max(shell.max_output_chars // len(steps), 2000)
    ok = True
    for step in steps:
        program = step.argv[0]
        if not os.path.isabs(program) and shutil.which(program, path=env_path) is None:
            reports.append(f"## {step.label}: skipped, `{program}` is not installed")
            done.append({"step": step.label, "skipped": f"{program} not installed"})
            ok = False
            continue
        remaining = deadline - time.monotonic()
        if remaining <= 1:
            reports.append(f"## {step.label}: not run, the install timeout ({shell.install_timeout:g} s) is spent")
            ok = False
            break
        if ctx.on_output is not None:
            ctx.on_output(f"\n## {step.label}\n")
        res = run_command(shell, ctx.workspace, step.argv, cwd=root, timeout=remaining, on_output=ctx.on_output,
                          network=True, extra_env_allow=shell.install_env_allow, extra_writable=step.writable,
                          cancel=ctx.cancel)
        if res.setup_error is not None:
            raise ToolFailure(f"the {res.backend} sandbox could not start {step.label}: {res.setup_error.strip()}")
        status = "timed out" if res.timed_out else f"exit code {res.exit_code}"
        reports.append(f"## {step.label}: {status} after {res.duration:.1f} s\n{bounded(res.output.strip(), budget)}")
        done.append({"step": step.label, "exit_code": res.exit_code, "timed_out": res.timed_out,
                     "duration_s": round(res.duration, 2), "output_file": res.log_path})
        if res.timed_out or res.exit_code != 0:
            ok = False
            break
    text = "\n".join(reports)
    data = {"steps": done, "ecosystems": info.ecosystems}
    if ok:
        return ToolResult(True, text, None, data)
    return ToolResult(False, text, "installing the dependencies failed; see the steps", data)
