"""pyright's `window/workDoneProgress/create` request is answered straight from parsed JSON
(handlers.answered_plain): the server computes a references answer only once it has ours, so
typing the request through pygls sat on every request's critical path. The answer written must be
the one pygls' typed path writes, anything not well-formed must still go the typed way, and a real
basedpyright must still answer references through a client that answers this way."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from lsp_bridge.client import BridgeClient
from lsp_bridge.handlers import answered_plain
from lsp_bridge.servers import get_spec
from lsp_bridge.session import LspSession
from lsp_bridge.types import Position


class _Pipe:
    """The client's writer: what it writes, framed as it reaches the server."""

    def __init__(self) -> None:
        self.data = b""

    def write(self, data: bytes) -> None:
        self.data += data

    def messages(self) -> list[dict[str, Any]]:
        out, rest = [], self.data
        while rest:
            head, _, rest = rest.partition(b"\r\n\r\n")
            length = int(next(line for line in head.split(b"\r\n") if line.lower().startswith(b"content-length:"))
                          .split(b":")[1])
            out.append(json.loads(rest[:length]))
            rest = rest[length:]
        return out


def _create(msg_id: Any, token: Any, **extra: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": msg_id, "method": "window/workDoneProgress/create",
            "params": {"token": token}, **extra}


WELL_FORMED = [_create(0, "a-token"), _create(7, 12), _create("s-1", "t"), _create("s-2", 0)]
NOT_PLAIN = [
    _create(1, True),  # a token that is neither a string nor an integer
    _create(1, None),
    _create(None, "t"),  # no usable id
    _create(1.5, "t"),
    {**_create(1, "t"), "params": {"token": "t", "more": 1}},
    {**_create(1, "t"), "params": ["t"]},
    {**_create(1, "t"), "jsonrpc": "1.0"},
    _create(1, "t", extra=1),
    {"jsonrpc": "2.0", "method": "window/workDoneProgress/create", "params": {"token": "t"}},  # no id
    {"jsonrpc": "2.0", "id": 1, "method": "workspace/configuration", "params": {"items": []}},
]


def _client(tmp_path: Path) -> tuple[BridgeClient, _Pipe]:
    client = BridgeClient(label="fake", settings=lambda section: None, root=tmp_path)
    pipe = _Pipe()
    client.protocol.set_writer(pipe)
    return client, pipe


def _typed(client: BridgeClient, raw: dict[str, Any]) -> None:
    client.protocol.handle_message(client.protocol.structure_message(raw))


def test_the_plain_answer_is_the_typed_one(tmp_path: Path) -> None:
    async def run() -> None:
        for raw in WELL_FORMED:
            plain, plain_pipe = _client(tmp_path)
            typed, typed_pipe = _client(tmp_path)
            assert answered_plain(plain, raw), raw
            _typed(typed, raw)
            await asyncio.sleep(0)  # (pygls may answer a handler's result from the loop)
            assert plain_pipe.messages() == typed_pipe.messages() == [{"jsonrpc": "2.0", "id": raw["id"], "result": None}]
            assert not plain.stderr_tail
    asyncio.run(run())


def test_what_is_not_well_formed_goes_the_typed_way(tmp_path: Path) -> None:
    async def run() -> None:
        for raw in NOT_PLAIN:
            client, pipe = _client(tmp_path)
            assert not answered_plain(client, raw), raw
            assert pipe.data == b""
        client, pipe = _client(tmp_path)
        client.protocol._shutdown = True  # (pygls answers nothing once shut down; nor does this)
        assert not answered_plain(client, WELL_FORMED[0]) and pipe.data == b""
    asyncio.run(run())


def test_the_reader_answers_it_plainly(tmp_path: Path) -> None:
    async def run() -> None:
        client, pipe = _client(tmp_path)
        client._dispatch(json.dumps(_create(3, "tok")).encode())
        assert pipe.messages() == [{"jsonrpc": "2.0", "id": 3, "result": None}]
    asyncio.run(run())


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("create") / "proj"
    root.mkdir()
    (root / "lib.py").write_text("def helper():\n    return 1\n")
    (root / "use.py").write_text("from lib import helper\n\nhelper()\nhelper()\n")
    return root.resolve()


@pytest.mark.timeout(300)
def test_a_real_server_answers_references_through_it(project: Path) -> None:
    session = LspSession(project, get_spec("basedpyright"))
    try:
        assert session.ready(240)
        client = session._client
        assert client is not None
        pipe = _Pipe()
        writer = client.protocol.writer
        assert writer is not None

        class Tee:
            def write(self, data: bytes) -> Any:
                pipe.write(data)
                return writer.write(data)
        client.protocol.set_writer(Tee())
        for _ in range(2):
            found = session.references(project / "lib.py", Position(0, 4))
            assert sorted((f.path.name, f.range.start.line) for f in found) == [
                ("lib.py", 0), ("use.py", 0), ("use.py", 2), ("use.py", 3)]
        answers = [m for m in pipe.messages() if "method" not in m]
        assert answers and all(m == {"jsonrpc": "2.0", "id": m["id"], "result": None} for m in answers), answers
        assert not [line for line in client.stderr_tail if "handler error" in line]
    finally:
        session.stop()
