"""Fixtures of the agent tests: an environment free of the developer's own model settings."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"

ENDPOINT_VARS = ("OPENAI_API_KEY", "OPENAI_BASE_URL", "LLM_API_KEY", "LLM_BASE_URL", "LLM_MODEL", "CODEAGENT_MODEL")


@pytest.fixture(autouse=True)
def no_user_model_settings(monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory) -> None:
    """Neither the developer's endpoint variables nor their user config file reach the tests."""
    for var in ENDPOINT_VARS:
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("CODEAGENT_CONFIG", str(tmp_path_factory.mktemp("userconf") / "config.toml"))


@pytest.fixture
def buggy(tmp_path: Path) -> Path:
    """A fresh copy of fixtures/buggy (the ZeroDivisionError demo)."""
    root = tmp_path / "buggy"
    shutil.copytree(FIXTURES / "buggy", root)
    return root


def write_project_config(root: Path, **sections: dict[str, object]) -> None:
    """Write root/.codeagent.toml, e.g. llm={"retry_backoff": 0.01}."""
    lines = []
    for name, values in sections.items():
        lines.append(f"[{name}]")
        lines += [f"{k} = {_toml(v)}" for k, v in values.items()]
    (root / ".codeagent.toml").write_text("\n".join(lines) + "\n", encoding="utf-8")


@pytest.fixture
def project_config() -> Callable[..., None]:
    return write_project_config


def _toml(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return str(value)
