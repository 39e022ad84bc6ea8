"""The `initialize` written with an early spawn (lsp_bridge.early_init): it is the message the
session would send, the session takes its answer instead of sending another, and an early process
sent anything else is never used."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from bridgekit import copy_fixture, pos_of, require_server
from pygls.protocol import default_converter

from lsp_bridge import SessionPool, processes
from lsp_bridge.early_init import CAPABILITIES, initialize_params
from lsp_bridge.servers import get_spec, resolve_command
from lsp_bridge.wire import client_capabilities

pytestmark = pytest.mark.timeout(600)


def test_the_stored_capabilities_are_the_protocol_layers_encoding() -> None:
    stored = json.loads(CAPABILITIES.read_text(encoding="utf-8"))
    assert stored == default_converter().unstructure(client_capabilities()), (
        "regenerate lsp_bridge/capabilities.json from wire.client_capabilities()")


def test_the_session_answers_from_the_early_initialize_and_refuses_a_different_one(tmp_path: Path) -> None:
    require_server("basedpyright")
    root = copy_fixture("pyproj", tmp_path / "a").resolve()
    other = copy_fixture("pyproj", tmp_path / "b").resolve()
    command, _folder = resolve_command(get_spec("basedpyright"), auto_install=False)
    assert processes.start_early(command, cwd=root, initialize=initialize_params(root))
    wrong = {**initialize_params(other), "processId": os.getpid() + 1}  # not what the session sends
    assert processes.start_early(command, cwd=other, initialize=wrong)
    early = {key[1]: entry.proc for key, entry in processes._early.items()}
    pool = SessionPool(request_timeout=120, ready_timeout=240)
    try:
        session = pool.get(root, "python")
        geometry = root / "shapes/geometry.py"
        assert len(session.references(geometry, pos_of(geometry, "area_of", "def area_of"))) == 11
        assert session.pid == early[str(root)].pid  # the early server, initialized by the early message
        stray = pool.get(other, "python")
        geometry = other / "shapes/geometry.py"
        assert len(stray.references(geometry, pos_of(geometry, "area_of", "def area_of"))) == 11
        assert stray.pid != early[str(other)].pid  # sent other params: a server of its own
        assert early[str(other)].wait(timeout=15) is not None  # and the early one is gone
    finally:
        pool.close_all()
        processes.discard_all()
