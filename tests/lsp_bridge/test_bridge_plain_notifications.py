"""Log and progress notifications are handled as parsed JSON (handlers.heard_plain), not typed
through pygls first: the client's state after each message must be exactly what pygls' typed path
gives, and anything not well-formed must still go the typed way (which refuses or ignores it as
before)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from lsp_bridge.client import BridgeClient
from lsp_bridge.handlers import heard_plain


def _msg(method: str, params: Any, **extra: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "method": method, "params": params, **extra}


WELL_FORMED = [
    _msg("window/logMessage", {"type": 3, "message": "Loading configuration file at /w/pyproject.toml"}),
    _msg("window/logMessage", {"type": 4, "message": "Found 12 source files"}),
    _msg("window/logMessage", {"type": 1, "message": "x" * 3000}),  # kept cut to 2,000 characters
    _msg("window/logMessage", {"type": 3, "message": "No source files found."}),
    _msg("$/progress", {"token": "t1", "value": {"kind": "begin", "title": "Finding references"}}),
    _msg("$/progress", {"token": "t1", "value": {"kind": "report", "message": "half"}}),
    _msg("$/progress", {"token": 7, "value": {"kind": "begin", "title": None}}),
    _msg("$/progress", {"token": 7, "value": {"kind": "end"}}),
    _msg("$/progress", {"token": "t1", "value": {"kind": "end"}}),
    _msg("$/progress", {"token": "t2", "value": {"kind": "report"}}),  # a report of nothing begun
    _msg("$/progress", {"token": "t3", "value": [1, 2]}),  # a value no kind can be read from
]
# Each goes the typed way (heard_plain declines it); pygls then handles, ignores or refuses it.
NOT_PLAIN = [
    _msg("window/logMessage", {"type": 9, "message": "no such MessageType"}),
    _msg("window/logMessage", {"type": 3, "message": 42}),
    _msg("window/logMessage", {"type": "3", "message": "a string type"}),
    _msg("window/logMessage", {"type": 3, "message": "an extra key", "other": 1}),
    _msg("window/logMessage", ["not", "an", "object"]),
    _msg("$/progress", {"token": True, "value": {"kind": "begin"}}),
    _msg("$/progress", {"token": "t", "value": {"kind": "begin"}, "more": 1}),
    _msg("$/progress", {"value": {"kind": "begin"}}),
    {"jsonrpc": "1.0", "method": "window/logMessage", "params": {"type": 3, "message": "old protocol"}},
    {**_msg("window/logMessage", {"type": 3, "message": "with an id"}), "id": 3},
    _msg("window/showMessage", {"type": 3, "message": "another method"}),
]


def _client(tmp_path: Path) -> BridgeClient:
    return BridgeClient(label="fake", settings=lambda section: None, root=tmp_path)


def _state(client: BridgeClient) -> dict[str, Any]:
    return {"log": list(client.log), "found_files": client.found_files,
            "enumeration_due": client.enumeration_due is not None, "active": dict(client.progress_active),
            "heard": sorted(client.progress_heard), "done": client.progress_done,
            "noted": list(client.stderr_tail)}


def _typed(client: BridgeClient, raw: dict[str, Any]) -> None:
    """pygls' own way with a message: typed, then handed to the installed handler."""
    try:
        message = client.protocol.structure_message(raw)
    except Exception:
        return
    client.protocol.handle_message(message)


def test_plain_notifications_leave_the_state_the_typed_ones_do(tmp_path: Path) -> None:
    plain, typed = _client(tmp_path), _client(tmp_path)
    for raw in WELL_FORMED:
        changed = plain.changed
        assert heard_plain(plain, raw), raw
        assert plain.changed is not changed and changed.is_set()  # waiters on a change are woken
        _typed(typed, raw)
        assert _state(plain) == _state(typed), raw
    assert plain.found_files == 0 and plain.progress_done == 2 and set(plain.progress_active) == set()
    assert len(plain.log[2]) == 2000


@pytest.mark.parametrize("raw", NOT_PLAIN, ids=lambda raw: json.dumps(raw)[:60])
def test_what_is_not_well_formed_goes_the_typed_way(tmp_path: Path, raw: dict[str, Any]) -> None:
    client = _client(tmp_path)
    assert not heard_plain(client, raw)
    assert _state(client) == _state(_client(tmp_path))  # untouched


def test_the_reader_takes_plain_notifications_and_still_types_the_rest(tmp_path: Path) -> None:
    """Through the reader's dispatch (the path every server message takes): the same state as the
    typed path, and a malformed log message is noted as undecodable as before."""
    read, typed = _client(tmp_path), _client(tmp_path)
    for raw in [*WELL_FORMED, *NOT_PLAIN[:3]]:
        read._dispatch(json.dumps(raw).encode())
        _typed(typed, raw)
    got, want = _state(read), _state(typed)
    assert [n for n in got.pop("noted") if n.startswith("[undecodable message]")]
    want.pop("noted")
    assert got == want
