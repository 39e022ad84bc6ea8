"""Start the language server a one-shot semantic command will need before loading the tools.

`codeagent rename|refs|def|diagnostics` without a warm daemon, and a daemon just forked, import the
protocol layer and the tools (~0.5 s) before the first request. The server boots in about the same
time on another core, so it is spawned first (see lsp_bridge.processes) and the session adopts it.
Imports nothing heavy; never installs anything (a missing server is reported by the session).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from ..languages import server_language

if TYPE_CHECKING:  # (a cold start spawns the server before pydantic loads: agent.configsnapshot)
    from ..config import Settings
    from ..configsnapshot import SettingsSnapshot


def start_server_early(settings: Settings, root: Path, file_path: str | Path) -> bool:
    """Spawn the server for `file_path`'s language in `root` (as the session would start it).
    False when nothing was started: no server for that file, not installed, or unstartable."""
    language = server_language(file_path)
    return language is not None and start_language_early(settings, root, language)


def start_language_early(settings: Settings | SettingsSnapshot, root: Path, language: str) -> bool:
    from lsp_bridge.early_init import initialize_params
    from lsp_bridge.errors import BridgeError
    from lsp_bridge.processes import start_early
    from lsp_bridge.readiness import session_settings
    from lsp_bridge.servers import get_spec, resolve_command

    lsp = settings.lsp
    name = lsp.python_server if language == "python" else lsp.typescript_server
    command, folder = lsp.server_commands.get(language), None
    try:
        spec = get_spec(name)
        if not command:
            command, folder = resolve_command(
                spec, cache_dir=Path(lsp.install_dir).expanduser() if lsp.install_dir else None, auto_install=False)
    except BridgeError:
        return False
    # The session's own `initialize`, written with the spawn, then `initialized` and the answers to
    # the server's configuration requests as the session would give them (sessions pass no settings
    # of their own): the server starts on them while we import the protocol layer (the session
    # takes the process only if it would have sent and answered the same).
    options = spec.initialization_options(folder) if spec.initialization_options and folder else None
    cwd = Path(root).resolve()
    return start_early(command, cwd=cwd, initialize=initialize_params(cwd, options),
                       settings=lambda: session_settings(spec, cwd), push_settings=spec.push_settings)
