"""Architecture rules: lsp_bridge never imports agent; modules stay small."""

from __future__ import annotations

import ast
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
MAX_MODULE_LINES = 600
_DYNAMIC = {"import_module", "__import__"}


def imported_names(source: str, filename: str = "<source>") -> list[tuple[int, str]]:
    """Absolute module names a source imports, including importlib.import_module("...") calls.
    (Relative imports stay inside their own package, so they cannot reach another one.)"""
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(source, filename=filename)):
        if isinstance(node, ast.Import):
            found.extend((node.lineno, alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.append((node.lineno, node.module))
        elif isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant):
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
            if name in _DYNAMIC and isinstance(node.args[0].value, str):
                found.append((node.lineno, node.args[0].value))
    return found


def agent_imports(source: str, filename: str = "<source>") -> list[str]:
    return [f"{filename}:{line}: imports {name}" for line, name in imported_names(source, filename)
            if name == "agent" or name.startswith("agent.")]


def test_lsp_bridge_never_imports_agent() -> None:
    files = sorted((REPO / "lsp_bridge").rglob("*.py"))
    assert files, "lsp_bridge/ has no modules"
    leaks = [leak for f in files for leak in agent_imports(f.read_text(encoding="utf-8"), str(f.relative_to(REPO)))]
    assert not leaks, "lsp_bridge must not depend on agent:\n" + "\n".join(leaks)


def test_the_check_catches_every_form_of_import() -> None:
    source = (
        "import os\nimport agent\nimport agent.cli as c\nfrom agent.workspace import Workspace\n"
        "from . import positions\nfrom agents_sdk import x\nimport importlib\n"
        "importlib.import_module('agent.registry')\n__import__('agent')\n"
    )
    leaks = agent_imports(source)
    assert [leak.split(": imports ")[1] for leak in leaks] == [
        "agent", "agent.cli", "agent.workspace", "agent.registry", "agent"]


def test_no_module_is_too_long() -> None:
    offenders = []
    for package in ("agent", "lsp_bridge"):
        for f in sorted((REPO / package).rglob("*.py")):
            lines = len(f.read_text(encoding="utf-8").splitlines())
            if lines > MAX_MODULE_LINES:
                offenders.append(f"{f.relative_to(REPO)}: {lines} lines")
    print("\n".join(offenders))
    assert not offenders, f"modules over {MAX_MODULE_LINES} lines (split them along a real seam):\n" + "\n".join(offenders)
