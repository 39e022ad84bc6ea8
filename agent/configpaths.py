"""Where settings come from, without the settings models (pydantic): the user and project config
files, the trust store and the environment variables that feed them. The warm-daemon fast path
fingerprints these to know its daemon runs with the same settings, without building them, so
nothing is imported at load (pathlib, typing and collections.abc: ~10 ms of a warm call)."""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from pathlib import Path
    from typing import Any

USER_CONFIG = "~/.config/codeagent/config.toml"
PROJECT_CONFIG = ".codeagent.toml"
CONFIG_ENV = "CODEAGENT_CONFIG"  # another user config file
# Project config files the user trusted (`codeagent trust`): next to the user config, outside
# every workspace, so nothing a tool or a sandboxed command writes can grant trust.
TRUST_STORE = "~/.config/codeagent/trusted.json"
TRUST_ENV = "CODEAGENT_TRUST_FILE"  # another trust store (tests)
ENV_PREFIXES = ("CODEAGENT_", "LLM_", "OPENAI_")  # every variable that feeds settings starts so


def user_config_path(env: Mapping[str, str]) -> Path:
    from pathlib import Path  # (not at load: see above; every caller but the fast path has it loaded)

    return Path(env.get(CONFIG_ENV, USER_CONFIG)).expanduser()


def trust_store_path(env: Mapping[str, str]) -> Path:
    from pathlib import Path

    return Path(env.get(TRUST_ENV) or TRUST_STORE).expanduser()


def user_config_file(env: Mapping[str, str]) -> str:
    """The file user_config_path names, as a string (~ expanded; pathlib's normalising left out)."""
    return os.path.expanduser(env.get(CONFIG_ENV, USER_CONFIG))


def trust_store_file(env: Mapping[str, str]) -> str:
    return os.path.expanduser(env.get(TRUST_ENV) or TRUST_STORE)


# Environment variable → settings path. Sections add their own entries here (agent.config re-exports both).
ENV_VARS: dict[str, tuple[str, ...]] = {
    "CODEAGENT_MAX_READ_BYTES": ("workspace", "max_read_bytes"),
    "CODEAGENT_SYNTAX_GUARD": ("syntax", "guard"),
    "CODEAGENT_INDEX_WORKERS": ("syntax", "index_workers"),
    # the model endpoint: OpenAI's names, then ours (LLM_* wins when both are set)
    "OPENAI_API_KEY": ("llm", "api_key"),
    "OPENAI_BASE_URL": ("llm", "base_url"),
    "LLM_API_KEY": ("llm", "api_key"),
    "LLM_BASE_URL": ("llm", "base_url"),
    "LLM_MODEL": ("llm", "model"),
    "CODEAGENT_MODEL": ("llm", "model"),
    "CODEAGENT_PYTHON_SERVER": ("lsp", "python_server"),
    "CODEAGENT_TS_SERVER": ("lsp", "typescript_server"),
    "CODEAGENT_SERVER_FALLBACK": ("lsp", "server_fallback"),
    "CODEAGENT_SERVERS_DIR": ("lsp", "install_dir"),
    "CODEAGENT_LSP_DAEMON": ("lsp", "daemon"),
    "CODEAGENT_CHECK_TIMEOUT": ("lsp", "check_timeout"),
    "CODEAGENT_DAEMON_IDLE_TIMEOUT": ("lsp", "daemon_idle_timeout"),
    "CODEAGENT_SERVER_IDLE_TIMEOUT": ("lsp", "server_idle_timeout"),
    "CODEAGENT_SERVER_MEMORY_MB": ("lsp", "server_memory_limit_mb"),
    "CODEAGENT_QUERY_CACHE": ("lsp", "query_cache"),
    "CODEAGENT_SANDBOX": ("shell", "sandbox"),
    "CODEAGENT_SHELL_POLICY": ("shell", "policy", "enabled"),
    "CODEAGENT_SHELL_TIMEOUT": ("shell", "default_timeout"),
    "CODEAGENT_SHELL_MAX_TIMEOUT": ("shell", "max_timeout"),
    "CODEAGENT_SHELL_MEMORY_MB": ("shell", "memory_limit_mb"),
}


def env_overrides(env: Mapping[str, str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for var, path in ENV_VARS.items():
        if var in env and env[var] != "":
            node = out
            for part in path[:-1]:
                node = node.setdefault(part, {})
            node[path[-1]] = env[var]
    return out
