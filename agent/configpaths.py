"""Where settings come from, without the settings models (pydantic): the user and project config
files, the trust store and the environment variables that feed them. The warm-daemon fast path
fingerprints these to know its daemon runs with the same settings, without building them."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

USER_CONFIG = Path("~/.config/codeagent/config.toml")
PROJECT_CONFIG = ".codeagent.toml"
CONFIG_ENV = "CODEAGENT_CONFIG"  # another user config file
# Project config files the user trusted (`codeagent trust`): next to the user config, outside
# every workspace, so nothing a tool or a sandboxed command writes can grant trust.
TRUST_STORE = Path("~/.config/codeagent/trusted.json")
TRUST_ENV = "CODEAGENT_TRUST_FILE"  # another trust store (tests)
ENV_PREFIXES = ("CODEAGENT_", "LLM_", "OPENAI_")  # every variable that feeds settings starts so


def user_config_path(env: Mapping[str, str]) -> Path:
    return Path(env.get(CONFIG_ENV, str(USER_CONFIG))).expanduser()


def trust_store_path(env: Mapping[str, str]) -> Path:
    return Path(env.get(TRUST_ENV) or str(TRUST_STORE)).expanduser()
