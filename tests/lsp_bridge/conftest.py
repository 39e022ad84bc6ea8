"""Shared fixtures: copies of the fixture projects and module-scoped real language servers."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from bridgekit import copy_fixture

from lsp_bridge import LspSession, SessionPool


@pytest.fixture(scope="module")
def pyproj(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return copy_fixture("pyproj", tmp_path_factory.mktemp("py"))


@pytest.fixture(scope="module")
def tsproj(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return copy_fixture("tsproj", tmp_path_factory.mktemp("ts"))


@pytest.fixture(scope="module")
def pool() -> Iterator[SessionPool]:
    pool = SessionPool(request_timeout=120, ready_timeout=240)
    yield pool
    pool.close_all()


@pytest.fixture(scope="module")
def py_session(pool: SessionPool, pyproj: Path) -> LspSession:
    session = pool.get(pyproj, "python")
    assert session.ready(timeout=240)
    return session
