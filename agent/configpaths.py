"""Where settings come from, without the settings models (pydantic): the user and project config
files and the environment variables that feed them. The warm-daemon fast path fingerprints these
to know its daemon runs with the same settings, without building them."""

from __future__ import annotations

from pathlib import Path

USER_CONFIG = Path("~/.config/codeagent/config.toml")
PROJECT_CONFIG = ".codeagent.toml"
CONFIG_ENV = "CODEAGENT_CONFIG"  # another user config file
ENV_PREFIXES = ("CODEAGENT_", "LLM_", "OPENAI_")  # every variable that feeds settings starts so
