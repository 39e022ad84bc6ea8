"""Fixtures of the semantic tests; the helpers live in semantic_helpers.py."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from semantic_helpers import Cli, run_cli


@pytest.fixture
def cli() -> Callable[..., Cli]:
    return run_cli
