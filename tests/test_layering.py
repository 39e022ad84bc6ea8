"""Architecture rules: lsp_bridge never imports agent; no import cycle; layers point down only;
the warm fast path stays light; modules stay small."""

from __future__ import annotations

import ast
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
MAX_MODULE_LINES = 400
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


# ------------------------------------------------------------------------------- the import graph
# Known cycles still to be removed, as (module, module) pairs inside one cycle: none.
KNOWN_CYCLES: set[frozenset[str]] = set()

# Layers that point down only: a module of the layer (prefix) may not import these (prefixes).
FORBIDDEN: dict[str, tuple[str, ...]] = {
    # the syntax layer knows no tool, no tool context, no entry point and no terminal
    "agent.syntax": ("agent.toolcontext", "agent.registry", "agent.tools", "agent.services", "agent.bootstrap",
                     "agent.cli", "agent.commands", "agent.progressbar", "agent.semantic", "agent.refactor",
                     "agent.daemon", "agent.commit", "rich"),
    # tools know neither the CLI nor the model, nor what hosts them
    "agent.tools": ("agent.cli", "agent.commands", "agent.llm", "agent.loop", "agent.prompts", "agent.context",
                    "agent.daemon", "agent.mcp_server", "agent.bootstrap", "openai"),
    # the layers under the tools do not reach up to them either
    "agent.semantic": ("agent.tools", "agent.cli", "agent.commands", "agent.daemon", "agent.bootstrap",
                       "agent.llm", "agent.loop"),
    # the refactoring engine plans and commits edits; it is below the tools and their hosts
    "agent.refactor": ("agent.tools", "agent.cli", "agent.commands", "agent.daemon", "agent.bootstrap",
                       "agent.llm", "agent.loop", "agent.mcp_server"),
    "agent.shell": ("agent.tools", "agent.toolcontext", "agent.cli", "agent.commands", "agent.llm"),
    # the model client takes plain schemas: no registry, no tools
    "agent.llm": ("agent.registry", "agent.tools", "agent.toolcontext"),
    # the loop knows the registry, not the tool modules
    "agent.loop": ("agent.tools", "agent.cli", "agent.commands"),
    # the registry is below the tools it registers
    "agent.registry": ("agent.tools", "agent.bootstrap", "agent.cli", "agent.commands"),
    "agent.toolcontext": ("agent.syntax", "agent.semantic", "agent.tools", "agent.bootstrap"),
    # the command modules are below the `codeagent` entry point that registers them
    "agent.commands": ("agent.cli",),
    # the evaluation engine runs the agent loop and the tools; its command is agent/commands/evaluate.py
    # one agent run (run_agent): above the loop and the bootstrap, below every entry point
    "agent.runner": ("agent.commands", "agent.cli", "agent.daemon", "agent.view", "agent.eval", "agent.mcp_server"),
    "agent.eval": ("agent.commands", "agent.cli", "agent.daemon", "agent.view", "agent.mcp_server"),
    # the lowest layer: data types, errors, settings, the workspace
    "agent.result": ("agent.",), "agent.errors": ("agent.",),
    "agent.workspace": ("agent.toolcontext", "agent.registry", "agent.tools", "agent.syntax", "agent.semantic"),
    "agent.config": ("agent.toolcontext", "agent.registry", "agent.tools", "agent.syntax", "agent.semantic"),
    # the daemon hosts the tools; nothing below it knows it (the CLI's client does)
    "agent.commit": ("agent.tools", "agent.semantic", "agent.syntax"),
}
# The warm-daemon fast path runs on the standard library and these modules only.
FAST_PATH = "agent.commands.via_daemon"
FAST_PATH_MAY_REACH = {"agent", "agent.entry", "agent.commands", "agent.commands.via_daemon", "agent.commands.output", "agent.commands.tool_command",
                       "agent.commands.colour", "agent.commands.colour_styles", "agent.commands.jsonargs",
                       "agent.commands.quickparse", "agent.commands.tool_via_daemon", "agent.daemon.wire",
                       "agent.commands.arguments", "agent.commands.navigation_arguments", "agent.errors", "agent.languages", "agent.configpaths",
                       "agent.daemon", "agent.daemon.protocol",
                       "agent.commands.index_fast",  # `codeagent index` with nothing changed (stdlib + protocol)
                       "agent.treestamps"}  # (its stat check of the walk snapshot)


def _module_name(path: Path, repo: Path) -> str:
    parts = list(path.relative_to(repo).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def module_imports(source: str, module: str, *, is_package: bool = False) -> list[tuple[int, str]]:
    """Every module name `module` imports, at module level or inside functions (relative imports
    resolved; `from X import name` yields X and X.name; `if TYPE_CHECKING:` bodies skipped)."""
    package = module if is_package else module.rpartition(".")[0]
    found: list[tuple[int, str]] = []

    def visit(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and _is_type_checking(child):
                for other in child.orelse:
                    visit_one(other)
                continue
            visit_one(child)

    def visit_one(node: ast.AST) -> None:
        if isinstance(node, ast.Import):
            found.extend((node.lineno, alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            found.append((node.lineno, target))
            found.extend((node.lineno, f"{target}.{alias.name}") for alias in node.names)
        elif isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant):
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
            if name in _DYNAMIC and isinstance(node.args[0].value, str):
                found.append((node.lineno, node.args[0].value))
        visit(node)

    visit(ast.parse(source))
    return found


def import_graph(repo: Path = REPO, packages: tuple[str, ...] = ("agent", "lsp_bridge")) -> dict[str, dict[str, int]]:
    """module → {module of ours it imports: line}, over every .py file of `packages`."""
    files = {_module_name(f, repo): f for p in packages for f in sorted((repo / p).rglob("*.py"))}
    graph: dict[str, dict[str, int]] = {}
    for name, path in files.items():
        edges: dict[str, int] = {}
        for line, target in module_imports(path.read_text(encoding="utf-8"), name,
                                           is_package=path.name == "__init__.py"):
            while target and target not in files:  # `from pkg import function`: the module pkg
                target = target.rpartition(".")[0]
            if target and target != name:
                edges.setdefault(target, line)
        graph[name] = edges
    return graph


def strongly_connected(graph: dict[str, dict[str, int]]) -> list[list[str]]:
    """Tarjan's algorithm, iterative: the components of more than one module, each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work: list[tuple[str, list[str]]] = [(root, sorted(graph[root]))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, todo = work[-1]
            if todo:
                nxt = todo.pop()
                if nxt not in index:
                    index[nxt] = low[nxt] = len(index)
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, sorted(graph.get(nxt, {}))))
                elif nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    out.append(sorted(component))
    return out


def _describe(component: list[str], graph: dict[str, dict[str, int]]) -> str:
    inside = set(component)
    edges = [f"    {a} -> {b} (line {line})" for a in component for b, line in sorted(graph[a].items()) if b in inside]
    return f"  {' ↔ '.join(component)}\n" + "\n".join(edges)


def test_there_is_no_import_cycle() -> None:
    graph = import_graph()
    assert len(graph) > 50, "the graph misses modules"
    cycles = [c for c in strongly_connected(graph) if frozenset(c) not in KNOWN_CYCLES]
    assert not cycles, "import cycles (a lower layer must get what it needs as a parameter):\n" + "\n".join(
        _describe(c, graph) for c in cycles)


def test_the_cycle_finder_sees_lazy_and_relative_imports_and_skips_type_checking() -> None:
    a = "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .b import B\nfrom . import c\n"
    b = "def f():\n    from .a import x\n"
    c = "import pkg.b\n"
    imports = {name: {t for _l, t in module_imports(src, name)} for name, src in
               (("pkg.a", a), ("pkg.b", b), ("pkg.c", c))}
    assert "pkg.b" not in imports["pkg.a"] and {"pkg", "pkg.c"} <= imports["pkg.a"]
    assert "pkg.a" in imports["pkg.b"] and imports["pkg.c"] == {"pkg.b"}
    graph = {name: {t: 1 for t in targets if t in ("pkg.a", "pkg.b", "pkg.c")} for name, targets in imports.items()}
    assert strongly_connected(graph) == [["pkg.a", "pkg.b", "pkg.c"]]
    del graph["pkg.c"]["pkg.b"]
    assert strongly_connected(graph) == []


def _layer_of(module: str, prefix: str) -> bool:
    return module == prefix or module.startswith(prefix + ".")


def test_layers_point_down_only() -> None:
    graph = import_graph()
    leaks: dict[tuple[str, int, str], str] = {}  # one line per import statement and rule
    for module, path in ((m, m) for m in graph):
        for layer, banned in FORBIDDEN.items():
            if not _layer_of(module, layer):
                continue
            source_file = REPO / (path.replace(".", "/") + ".py")
            if not source_file.exists():
                source_file = REPO / path.replace(".", "/") / "__init__.py"
            package = source_file.name == "__init__.py"
            for line, target in module_imports(source_file.read_text(encoding="utf-8"), module, is_package=package):
                for ban in banned:
                    hit = target.startswith(ban) if ban.endswith(".") else _layer_of(target, ban)
                    if hit and not _layer_of(target, module) and not (ban == "agent." and target == "agent"):
                        key = (module, line, ban)
                        if key not in leaks or len(target) < len(leaks[key]):
                            leaks[key] = target
    lines = [f"{m}:{line} imports {target} (the {layer_of(m)} layer may not import {ban})"
             for (m, line, ban), target in sorted(leaks.items())]
    assert not lines, "imports that point up a layer:\n" + "\n".join(lines)


def layer_of(module: str) -> str:
    return max((layer for layer in FORBIDDEN if _layer_of(module, layer)), key=len)


def test_the_warm_fast_path_imports_almost_nothing() -> None:
    """`codeagent refs` with a warm daemon runs on the standard library and these few modules:
    no pydantic, no settings, no tools (see agent/commands/via_daemon.py)."""
    graph = import_graph()
    seen, todo = set(), ["agent.entry", "agent.cli", FAST_PATH]
    while todo:
        module = todo.pop()
        if module in seen:
            continue
        seen.add(module)
        if module != "agent.cli":  # the CLI imports the rest lazily, after the fast path declined
            todo.extend(graph.get(module, {}))
    assert seen - {"agent.cli"} <= FAST_PATH_MAY_REACH, sorted(seen - FAST_PATH_MAY_REACH - {"agent.cli"})


def _tool_names() -> set[str]:
    """The names in every `@tool(name="...")` of agent/tools/."""
    names = set()
    for f in (REPO / "agent" / "tools").glob("*.py"):
        for node in ast.walk(ast.parse(f.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "tool":
                names.update(k.value.value for k in node.keywords
                             if k.arg == "name" and isinstance(k.value, ast.Constant) and isinstance(k.value.value, str))
    return names


def test_the_loop_and_the_model_client_know_no_tool_by_name() -> None:
    """What the loop needs from a tool comes in its result (ToolResult.viewed, data["finished"])."""
    names = _tool_names()
    assert {"finish", "read_file"} <= names
    found = []
    for module in ("loop.py", "llm.py", "context.py", "stuck.py"):
        tree = ast.parse((REPO / "agent" / module).read_text(encoding="utf-8"))
        found += [f"agent/{module}:{n.lineno}: {n.value!r}" for n in ast.walk(tree)
                  if isinstance(n, ast.Constant) and isinstance(n.value, str) and n.value in names]
    assert not found, "tool names in the loop (let the tool's result say it):\n" + "\n".join(found)


def test_every_module_imports() -> None:
    """The graph above is built from source text, and mypy is told to ignore missing imports (for
    third-party stubs): a module importing one that a rename removed would pass both. Import them."""
    import importlib
    import pkgutil

    import agent
    import lsp_bridge

    broken = []
    for package in (agent, lsp_bridge):
        for info in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
            try:
                importlib.import_module(info.name)
            except ImportError as exc:
                broken.append(f"{info.name}: {exc}")
    assert not broken, "modules that do not import:\n" + "\n".join(broken)
