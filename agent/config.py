"""Configuration: one pydantic model, fed by (lowest first) defaults, the user file
(`~/.config/codeagent/config.toml`), the project file (`.codeagent.toml`), environment variables and
command-line flags. Nothing else in the package reads `os.environ` for settings.

Each family owns one section; a section's fields each carry a docstring (the description).
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from .errors import CodeagentError


class ConfigError(CodeagentError):
    """The configuration is invalid; the message names the source and the field."""


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_assignment=True)


class WorkspaceSettings(_Section):
    max_read_bytes: int = Field(10 * 1024 * 1024, ge=1024, description="Largest file a tool reads, in bytes.")
    max_output_chars: int = Field(30_000, ge=1000, description="Largest tool output shown to a model, in characters.")


class Settings(_Section):
    """All settings. Sections are added by each tool family."""

    workspace: WorkspaceSettings = Field(default_factory=WorkspaceSettings, description="Files and output limits.")


USER_CONFIG = Path("~/.config/codeagent/config.toml")
PROJECT_CONFIG = ".codeagent.toml"


def _deep_merge(base: dict[str, Any], extra: Mapping[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for key, value in extra.items():
        if isinstance(value, Mapping) and isinstance(out.get(key), dict):
            out[key] = _deep_merge(out[key], value)
        else:
            out[key] = value
    return out


def _read_toml(path: Path) -> dict[str, Any]:
    try:
        with open(path, "rb") as fh:
            return tomllib.load(fh)
    except FileNotFoundError:
        return {}
    except (tomllib.TOMLDecodeError, OSError) as exc:
        raise ConfigError(f"{path}: not valid TOML: {exc}") from exc


def load_settings(
    root: str | os.PathLike[str] | None = None,
    *,
    overrides: Mapping[str, Any] | None = None,
    env: Mapping[str, str] | None = None,
    user_file: Path | None = None,
) -> Settings:
    """Merge every source into one validated Settings (see the module docstring for the order)."""
    env = os.environ if env is None else env
    merged: dict[str, Any] = {}
    user_path = (user_file or Path(env.get("CODEAGENT_CONFIG", str(USER_CONFIG)))).expanduser()
    sources = [(str(user_path), _read_toml(user_path))]
    if root is not None:
        project = Path(root) / PROJECT_CONFIG
        sources.append((str(project), _read_toml(project)))
    sources.append(("environment", env_overrides(env)))
    sources.append(("command line", dict(overrides or {})))
    for name, data in sources:
        merged = _deep_merge(merged, data)
        try:
            Settings.model_validate(merged)
        except ValidationError as exc:
            raise ConfigError(f"invalid configuration from {name}: {_explain(exc)}") from exc
    return Settings.model_validate(merged)


# Environment variable → settings path. Sections add their own entries here.
ENV_VARS: dict[str, tuple[str, ...]] = {
    "CODEAGENT_MAX_READ_BYTES": ("workspace", "max_read_bytes"),
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


def _explain(exc: ValidationError) -> str:
    return "; ".join(f"{'.'.join(str(p) for p in err['loc'])}: {err['msg']}" for err in exc.errors())
