"""The client's side of the daemon protocol (agent/daemon/wire.py) encodes, decodes and names
things without json's Python layer, pathlib or importlib.util: each must give what those give, or
the warm path would send other requests, misread a reply or look for another daemon."""

from __future__ import annotations

import importlib.util
import json
import math
from pathlib import Path

import pytest

import agent
from agent.daemon import protocol, wire

REQUESTS = [
    {"op": "tool", "build": "0.1.0-2-/a/agent-/a/lsp_bridge", "inputs": "ab" * 12, "name": "find_references",
     "args": {"file_path": "django/test/utils.py", "line": 458, "column": 7, "include_declaration": True, "limit": 0}},
    {"op": "tool", "name": "read_file", "read_only": True, "args": {"file_path": "naïve/日本語 🙂.py", "q": 'a"b\\c\n\t\x01\u2028'}},
    {"args": {"nested": [1, -2, 10**25, [], {}, [None, False, True]], "": ""}, "empty": {}},
    {"args": {"symbol": "Thing.method", "values": ["x", "y"], "tuple": (1, "a")}},
]
ODD = [{"float": 1.5}, {1: "int key"}, {"nan": float("nan")}, {"set": {1}}]  # (json.dumps's rules, or its error)


@pytest.mark.parametrize("obj", REQUESTS + ODD[:3])
def test_a_request_is_encoded_as_json_dumps_encodes_it(obj: dict[str, object]) -> None:
    assert wire.encode(obj) == json.dumps(obj, ensure_ascii=False)


def test_what_json_cannot_encode_fails_as_json_fails() -> None:
    with pytest.raises(TypeError):
        wire.encode(ODD[3])


REPLIES = [
    b'{"ok": true, "result": {"success": true, "output": "x", "data": {"count": 3, "f": 1.25e3, "n": null}}}\n',
    json.dumps({"ok": True, "result": {"output": "naïve 日本語 🙂 \u2028 \x01 \"q\" \\", "l": [1, [2, [3]]]}},
               ensure_ascii=False).encode("utf-8") + b"\n",
    b'  \r\n\t{"a": [true, false, null, -0, 1E400, -1.5e-3, "\\ud83d\\ude42", "\\u00e9"]} \n\r',
    b'{"a": NaN, "b": Infinity, "c": -Infinity, "a": 2}',
    b'[1, 2]', b'"just a string"', b'12',
]


@pytest.mark.parametrize("data", REPLIES)
def test_a_reply_is_decoded_as_json_loads_decodes_it(data: bytes) -> None:
    got, want = wire.loads(data), json.loads(data)
    assert repr(got) == repr(want)  # (repr: NaN is not equal to itself)
    assert type(got) is type(want)


@pytest.mark.parametrize("data", [b"", b"  \n", b"{", b'{"a": 1} x', b'{"a": 1}{}', b"\xff{}", b'{"a": 01}', b"nul",
                                  b'{"a": "\x01"}', b"{'a': 1}"])
def test_what_json_refuses_the_wire_refuses(data: bytes) -> None:
    with pytest.raises(ValueError):
        json.loads(data)
    with pytest.raises(ValueError):
        wire.loads(data)
    with pytest.raises(wire.DaemonError):
        wire.decode_message(data)


def test_a_reply_keeps_the_numbers_json_makes() -> None:
    value = wire.loads(b'{"big": 123456789012345678901234567890, "f": 0.1, "inf": 1e999}')
    assert value["big"] == 123456789012345678901234567890 and value["f"] == 0.1 and math.isinf(value["inf"])


def test_the_installation_is_named_as_importlib_finds_it() -> None:
    bridge = importlib.util.find_spec("lsp_bridge")
    assert bridge is not None and bridge.origin
    folders = [Path(agent.__file__).parent, Path(bridge.origin).parent]
    assert wire.code_folder_names() == [str(f) for f in folders]
    assert protocol.code_folders() == folders
    assert wire.install_id() == "-".join([agent.__version__, str(wire.PROTOCOL_VERSION), *map(str, folders)])


def test_both_sides_fingerprint_the_settings_sources_alike(tmp_path: Path) -> None:
    root = tmp_path.resolve()
    config, trust = tmp_path / "config.toml", tmp_path / "trusted.json"
    env = {"CODEAGENT_CONFIG": str(config), "CODEAGENT_TRUST_FILE": str(trust), "CODEAGENT_X": "1", "OTHER": "2"}
    first = wire.inputs_id(str(root), env)
    assert protocol.inputs_id(root, env) == first
    (root / ".codeagent.toml").write_text("[lsp]\n")
    second = wire.inputs_id(str(root), env)
    config.write_text("[llm]\n")
    third = protocol.inputs_id(root, env)
    assert len({first, second, third, wire.inputs_id(str(root), {**env, "CODEAGENT_X": "2"})}) == 4
    assert wire.inputs_id(str(root), {**env, "OTHER": "3"}) == third  # (not a settings variable)


def test_the_socket_is_looked_for_where_the_daemon_puts_it(tmp_path: Path) -> None:
    root = tmp_path.resolve()
    folder = protocol.state_dir(root)
    assert wire.daemon_socket(str(root)) is None  # nothing listens: nothing found, nothing created
    (folder / "sock").write_text("")
    assert wire.daemon_socket(str(root)) == str(folder / "sock")
    (folder / "sock").unlink()


def _sent(obj: dict[str, object]) -> bytes:
    """The bytes protocol.send_message writes for `obj` (through a real socket pair)."""
    import socket

    a, b = socket.socketpair()
    with a, b:
        protocol.send_message(a, obj)
        a.shutdown(socket.SHUT_WR)
        return protocol.recv_line(b)


RESULTS = [
    {"success": True, "output": "3 reference(s)", "error": None, "data": {"count": 3, "files": [{"path": "a.py"}]}},
    {"success": False, "output": "", "error": 'bad, "result": {"x": 1} here', "data": {"usage_error": True}},
    {"success": True, "output": "renamed", "data": {"journal_id": "j1", "server_notes": ["restarted"], "files": []}},
    {"success": True, "output": "naïve 日本語 🙂 \u2028"},
]


@pytest.mark.parametrize("result", RESULTS)
def test_a_result_is_sent_after_its_head_and_read_without_decoding_it(result: dict[str, object]) -> None:
    line = _sent({"ok": True, "result": result})
    head, encoded = wire.split_reply(line) or ({}, b"")
    assert head == wire.result_head(result)
    assert encoded == json.dumps(result, ensure_ascii=False).encode("utf-8")
    reply = wire.decode_message(line)
    assert reply == {"ok": True, "head": head, "result": result}
    assert wire.encoded_result(line, reply) == encoded
    data = result.get("data") or {}
    assert head == {k: result[k] for k in ("success", "error") if k in result} | (
        {"data": {k: data[k] for k in wire.HEAD_DATA if k in data}} if set(wire.HEAD_DATA) & set(data) else {})


@pytest.mark.parametrize("result", RESULTS)
def test_a_kept_result_with_its_head_is_sent_as_the_computed_one(result: dict[str, object]) -> None:
    """The daemon's query cache keeps an answer's head beside its bytes (daemon/cached.py): the
    reply is then byte for byte the one the computed answer gets, head first."""
    kept = protocol.EncodedResult(json.dumps(result, ensure_ascii=False).encode("utf-8"))
    kept.head = json.dumps(wire.result_head(result), ensure_ascii=False).encode("utf-8")
    line = _sent({"ok": True, "result": kept})
    assert line == _sent({"ok": True, "result": result})
    assert wire.split_reply(line) == (wire.result_head(result), kept)


def test_a_kept_result_and_other_replies_keep_their_shape() -> None:
    kept = protocol.EncodedResult(json.dumps(RESULTS[0], ensure_ascii=False).encode("utf-8"))
    line = _sent({"ok": True, "result": kept})
    assert wire.split_reply(line) is None and line.startswith(wire.REPLY_HEAD)
    assert wire.encoded_result(line, wire.decode_message(line)) == kept
    refused = _sent({"ok": False, "error": "restart", "restart": True})
    assert wire.split_reply(refused) is None and wire.decode_message(refused)["restart"] is True
    line = _sent({"ok": True, "result": RESULTS[0]})
    # a connection cut before the end leaves no final newline (recv_line reads up to it)
    for broken in (line[:-1], line[: len(line) // 2], line.replace(b'"head": {', b'"head": [', 1),
                   line.replace(b', "result": {', b', "result": [', 1), line.replace(b'"success": true', b'"success": tru', 1)):
        assert wire.split_reply(broken) is None
