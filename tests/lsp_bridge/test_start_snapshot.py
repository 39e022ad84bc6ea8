"""The session walks the workspace (its snapshot of the source files) while the new server
initializes, instead of after: a cold start is shorter by the walk, and a change made after the
walk — here a file the server creates while it initializes — is still told to the server."""

from __future__ import annotations

import sys
from pathlib import Path

from bridgekit import FAKE_SERVER

from lsp_bridge import LspSession, Position, ServerSpec

FAKE_SPEC = ServerSpec(name="fake", language="python", language_ids={".py": "python"}, readiness="initialize",
                       locate=lambda _dir: None, install_hint="it is a test server")


def test_a_file_created_while_the_server_initializes_is_announced(tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text("abc = 1\n")
    log = tmp_path / "server.log"
    session = LspSession(tmp_path, FAKE_SPEC, command=[sys.executable, str(FAKE_SERVER), "creates-on-init", str(log)],
                         request_timeout=30.0, start_timeout=30.0)
    try:
        [loc] = session.references(tmp_path / "m.py", Position(0, 1))
        assert loc.path == tmp_path / "m.py"
        assert (tmp_path / "created_at_init.py").exists()
        said = log.read_text().splitlines()
        # the walk came before initialize's answer, so the request's scan found the new file
        assert "workspace/didChangeWatchedFiles None" in said
        assert "created created_at_init.py" in said
    finally:
        session.stop()
