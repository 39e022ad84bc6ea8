"""Fixtures of the semantic tests; the helpers live in semantic_helpers.py.

A module that sets `FIXTURE = "name"` gets `proj` (a copy of fixtures/name for the module), `env`
(one tool context and its real servers for the module), and `call`, which checks after each test
that the test left the copy as it found it."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from semantic_helpers import Caller, Cli, copy_fixture, module_context, run_cli, tree

from agent.toolcontext import ToolContext


@pytest.fixture
def cli() -> Callable[..., Cli]:
    return run_cli


@pytest.fixture(scope="module")
def proj(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    name = getattr(request.module, "FIXTURE", None)
    if not isinstance(name, str):
        pytest.fail(f"{request.module.__name__} uses `proj` but sets no FIXTURE")
    return copy_fixture(name, tmp_path_factory.mktemp(name))


@pytest.fixture(scope="module")
def env(proj: Path) -> Iterator[tuple[ToolContext, Caller]]:
    yield from module_context(proj)


@pytest.fixture(scope="module")
def pristine(proj: Path) -> dict[str, bytes]:
    return tree(proj)


@pytest.fixture
def call(env: tuple[ToolContext, Caller], proj: Path, pristine: dict[str, bytes]) -> Iterator[Caller]:
    yield env[1]
    assert tree(proj) == pristine, "a test left the workspace changed"
