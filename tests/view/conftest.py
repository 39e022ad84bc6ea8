"""Fixtures of the web view's tests: headless Chromium driven by Playwright (Debian's
/usr/bin/chromium with a fresh profile, never a downloaded browser) and a copy of fixtures/buggy."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from viewkit import CHROMIUM, CHROMIUM_ARGS, FIXTURES


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """A Chromium context with a fresh profile; each test opens its own pages. Per module, not per
    session: while Playwright's sync API is open the main thread counts as running an event loop, so
    any later test of the same process calling asyncio.run (tests/test_mcp.py) failed with "Cannot
    run the event loop while another loop is running" (seen once xdist put a view test first)."""
    if not CHROMIUM.exists():
        pytest.skip("Debian's chromium is not installed (.ci/run installs it: apt-get install chromium)")
    from playwright.sync_api import sync_playwright

    profile = tempfile.mkdtemp(prefix="codeagent-view-chromium-")
    with sync_playwright() as pw:
        context = pw.chromium.launch_persistent_context(
            profile, executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS,
            viewport={"width": 1280, "height": 900})
        yield context
        context.close()
    shutil.rmtree(profile, ignore_errors=True)


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    p = browser.new_page()
    p.set_default_timeout(20_000)
    yield p
    p.close()


@pytest.fixture
def buggy(tmp_path: Path) -> Path:
    root = tmp_path / "buggy"
    shutil.copytree(FIXTURES / "buggy", root)
    return root.resolve()
