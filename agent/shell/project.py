"""What a project is made of, read from its manifests: pyproject.toml, setup.cfg, requirements*.txt,
package.json (+ lock file), Cargo.toml, go.mod. Used by get_project_info and install_dependencies."""

from __future__ import annotations

import configparser
import json
import re
import tomllib
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..languages import project_language
from ..walk import iter_files
from .environment import project_venv

MAX_MANIFEST_BYTES = 2 * 1024 * 1024
MAX_FILES_COUNTED = 20_000
NODE_LOCKS = (("pnpm-lock.yaml", "pnpm"), ("yarn.lock", "yarn"), ("bun.lockb", "bun"), ("bun.lock", "bun"),
              ("package-lock.json", "npm"), ("npm-shrinkwrap.json", "npm"))
REQUIREMENT_FILES = ("requirements.txt", "requirements-dev.txt", "requirements_dev.txt", "dev-requirements.txt",
                     "requirements-test.txt", "test-requirements.txt")
_NO_TEST = "no test specified"


@dataclass
class Manifest:
    """One manifest's facts."""

    file: str
    ecosystem: str  # python, node, rust, go
    name: str | None = None
    version: str | None = None
    dependencies: list[str] = field(default_factory=list)
    dev_dependencies: list[str] = field(default_factory=list)
    extras: dict[str, list[str]] = field(default_factory=dict)
    scripts: dict[str, str] = field(default_factory=dict)
    package_manager: str | None = None
    problems: list[str] = field(default_factory=list)


@dataclass
class ProjectInfo:
    root: Path
    manifests: list[Manifest] = field(default_factory=list)
    languages: dict[str, int] = field(default_factory=dict)
    test_command: str | None = None
    venv: str | None = None
    venv_python: str | None = None

    @property
    def ecosystems(self) -> list[str]:
        return list(dict.fromkeys(m.ecosystem for m in self.manifests))

    def manifest(self, ecosystem: str) -> Manifest | None:
        return next((m for m in self.manifests if m.ecosystem == ecosystem), None)


def _read(path: Path) -> str | None:
    try:
        if path.stat().st_size > MAX_MANIFEST_BYTES:
            return None
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None


def _pyproject(path: Path) -> Manifest:
    m = Manifest(path.name, "python")
    try:
        data = tomllib.loads(_read(path) or "")
    except tomllib.TOMLDecodeError as exc:
        m.problems.append(f"{path.name} is not valid TOML: {exc}")
        return m
    project = data.get("project", {})
    poetry = data.get("tool", {}).get("poetry", {})
    m.name = project.get("name") or poetry.get("name")
    m.version = project.get("version") or poetry.get("version")
    if "version" in project.get("dynamic", []):
        m.version = m.version or "(dynamic)"
    m.dependencies = [str(d) for d in project.get("dependencies", [])]
    m.extras = {k: [str(d) for d in v] for k, v in project.get("optional-dependencies", {}).items()}
    for name, spec in poetry.get("dependencies", {}).items():
        if name != "python":
            m.dependencies.append(f"{name} {spec}" if isinstance(spec, str) else name)
    groups = poetry.get("group", {})
    for group in groups.values():
        m.dev_dependencies += list(group.get("dependencies", {}))
    m.dev_dependencies += list(poetry.get("dev-dependencies", {}))
    for group_deps in data.get("dependency-groups", {}).values():
        m.dev_dependencies += [d for d in group_deps if isinstance(d, str)]
    m.scripts = {k: str(v) for k, v in project.get("scripts", {}).items()}
    m.package_manager = "poetry" if poetry else ("uv" if (path.parent / "uv.lock").exists() else "pip")
    if "pytest" in data.get("tool", {}) or (path.parent / "pytest.ini").exists():
        m.dev_dependencies.append("pytest")
    return m


def _setup_cfg(path: Path) -> Manifest:
    m = Manifest(path.name, "python", package_manager="pip")
    parser = configparser.ConfigParser(interpolation=None)
    try:
        parser.read_string(_read(path) or "")
    except configparser.Error as exc:
        m.problems.append(f"{path.name}: {exc}")
        return m
    m.name = parser.get("metadata", "name", fallback=None)
    m.version = parser.get("metadata", "version", fallback=None)
    m.dependencies = _lines(parser.get("options", "install_requires", fallback=""))
    if parser.has_section("options.extras_require"):
        m.extras = {k: _lines(v) for k, v in parser.items("options.extras_require")}
    if parser.has_section("tool:pytest"):
        m.dev_dependencies.append("pytest")
    return m


def _lines(text: str) -> list[str]:
    return [ln.strip() for ln in text.splitlines() if ln.strip() and not ln.strip().startswith("#")]


def _requirements(path: Path) -> Manifest:
    m = Manifest(path.name, "python", package_manager="pip")
    for line in _lines(_read(path) or ""):
        line = line.split(" #")[0].strip()
        if line.startswith("-"):
            continue
        (m.dev_dependencies if "dev" in path.name or "test" in path.name else m.dependencies).append(line)
    return m


def _package_json(path: Path) -> Manifest:
    m = Manifest(path.name, "node", package_manager="npm")
    try:
        data = json.loads(_read(path) or "{}")
    except json.JSONDecodeError as exc:
        m.problems.append(f"{path.name} is not valid JSON: {exc}")
        return m
    if not isinstance(data, dict):
        m.problems.append(f"{path.name} is not a JSON object")
        return m
    m.name, m.version = data.get("name"), data.get("version")
    m.dependencies = [f"{k} {v}" for k, v in (data.get("dependencies") or {}).items()]
    m.dev_dependencies = [f"{k} {v}" for k, v in (data.get("devDependencies") or {}).items()]
    m.scripts = {k: str(v) for k, v in (data.get("scripts") or {}).items()}
    for lock, manager in NODE_LOCKS:
        if (path.parent / lock).exists():
            m.package_manager = manager
            break
    else:
        declared = str(data.get("packageManager") or "")
        m.package_manager = declared.split("@")[0] or "npm"
    return m


def _cargo(path: Path) -> Manifest:
    m = Manifest(path.name, "rust", package_manager="cargo")
    try:
        data = tomllib.loads(_read(path) or "")
    except tomllib.TOMLDecodeError as exc:
        m.problems.append(f"{path.name} is not valid TOML: {exc}")
        return m
    package = data.get("package", {})
    m.name, m.version = package.get("name"), package.get("version")
    if isinstance(m.version, dict):
        m.version = "(workspace)"
    m.dependencies = list(data.get("dependencies", {}))
    m.dev_dependencies = list(data.get("dev-dependencies", {}))
    members = data.get("workspace", {}).get("members", [])
    if members and not m.name:
        m.name = f"(workspace: {', '.join(members[:10])})"
    return m


def _go_mod(path: Path) -> Manifest:
    m = Manifest(path.name, "go", package_manager="go")
    text = _read(path) or ""
    if mod := re.search(r"^module\s+(\S+)", text, re.M):
        m.name = mod.group(1)
    if ver := re.search(r"^go\s+(\S+)", text, re.M):
        m.version = f"go {ver.group(1)}"
    for block in re.findall(r"^require\s*\((.*?)^\)", text, re.M | re.S):
        for line in _lines(block):
            (m.dev_dependencies if "// indirect" in line else m.dependencies).append(line.split("//")[0].strip())
    m.dependencies += [r.strip() for r in re.findall(r"^require\s+([^\s(][^\n]*)", text, re.M)]
    return m


def read_project(root: Path) -> ProjectInfo:
    """Everything get_project_info reports about the folder `root`."""
    info = ProjectInfo(root)
    readers = [("pyproject.toml", _pyproject), ("setup.cfg", _setup_cfg), ("package.json", _package_json),
               ("Cargo.toml", _cargo), ("go.mod", _go_mod)]
    for name, reader in readers:
        if (root / name).is_file():
            info.manifests.append(reader(root / name))
    if (root / "setup.py").is_file() and not info.manifest("python"):
        info.manifests.append(Manifest("setup.py", "python", package_manager="pip"))
    for name in REQUIREMENT_FILES:
        if (root / name).is_file():
            info.manifests.append(_requirements(root / name))
    counts: Counter[str] = Counter()
    for n, path in enumerate(iter_files(root, root)):
        if n >= MAX_FILES_COUNTED:
            break
        lang = project_language(path)
        if lang:
            counts[lang] += 1
    info.languages = dict(counts.most_common())
    venv = project_venv(root)
    if venv is not None:
        info.venv = venv.relative_to(root).as_posix()
        info.venv_python = _venv_version(venv)
    info.test_command = _test_command(info)
    return info


def _venv_version(venv: Path) -> str | None:
    text = _read(venv / "pyvenv.cfg") or ""
    m = re.search(r"^(?:version|version_info)\s*=\s*(\S+)", text, re.M)
    return m.group(1) if m else None


def _test_command(info: ProjectInfo) -> str | None:
    root = info.root
    node = info.manifest("node")
    if node and "test" in node.scripts and _NO_TEST not in node.scripts["test"]:
        return f"{node.package_manager or 'npm'} test"
    python = [m for m in info.manifests if m.ecosystem == "python"]
    if python:
        deps = " ".join(d for m in python for d in [*m.dependencies, *m.dev_dependencies,
                                                    *(x for v in m.extras.values() for x in v)]).lower()
        has_tests = (root / "tests").is_dir() or (root / "test").is_dir() or any(root.glob("test_*.py"))
        if "pytest" in deps or (root / "pytest.ini").exists() or (root / "conftest.py").exists():
            return "python -m pytest"
        if (root / "tox.ini").exists():
            return "tox"
        if has_tests:
            return "python -m unittest discover"
    if info.manifest("rust"):
        return "cargo test"
    if info.manifest("go"):
        return "go test ./..."
    return None


def summary(info: ProjectInfo, rel: str) -> str:
    lines = [f"project at {rel}"]
    if not info.manifests:
        lines.append("no manifest found (pyproject.toml, setup.cfg, requirements*.txt, package.json, Cargo.toml, go.mod)")
    for m in info.manifests:
        head = f"- {m.file} ({m.ecosystem}"
        head += f", {m.package_manager})" if m.package_manager else ")"
        if m.name or m.version:
            head += f": {m.name or '?'} {m.version or ''}".rstrip()
        lines.append(head)
        for label, items in (("dependencies", m.dependencies), ("dev dependencies", m.dev_dependencies)):
            if items:
                shown = ", ".join(items[:30]) + (f", ... ({len(items) - 30} more)" if len(items) > 30 else "")
                lines.append(f"  {label}: {shown}")
        for extra, items in list(m.extras.items())[:10]:
            lines.append(f"  extra [{extra}]: {', '.join(items[:20])}")
        if m.scripts:
            lines.append("  scripts: " + "; ".join(f"{k}: {v}" for k, v in list(m.scripts.items())[:20]))
        lines += [f"  problem: {p}" for p in m.problems]
    if info.languages:
        lines.append("languages (files): " + ", ".join(f"{k} {v}" for k, v in info.languages.items()))
    lines.append(f"virtualenv: {info.venv} (Python {info.venv_python or '?'})" if info.venv else "virtualenv: none")
    lines.append(f"likely test command: {info.test_command or 'unknown'}")
    return "\n".join(lines)


def as_data(info: ProjectInfo) -> dict[str, Any]:
    return {
        "manifests": [m.__dict__ for m in info.manifests], "ecosystems": info.ecosystems,
        "languages": info.languages, "test_command": info.test_command, "virtualenv": info.venv,
        "virtualenv_python": info.venv_python,
    }
