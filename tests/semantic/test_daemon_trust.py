"""The warm daemon and the project config's trust: a command whose settings ignored part of
.codeagent.toml never takes the fast path (each one prints the warning), and trusting or revoking
the file takes effect on the next command (the trust store is part of the settings' fingerprint)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from semantic_helpers import DAEMON_IDLE, copy_fixture, run_cli, stop_daemon

from agent.commands.via_daemon import try_fast
from agent.truststore import TrustStore, digest

TARGET = "shapes/geometry.py:30:5"
WARNING = '.codeagent.toml: ignored shell.sandbox = "off" (a security setting'


def test_trust_and_revoke_reach_a_warm_daemon(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    root = copy_fixture("pyproj", tmp_path)
    raw = b'[shell]\nsandbox = "off"\n'
    (root / ".codeagent.toml").write_bytes(raw)
    store = TrustStore(tmp_path / "conf" / "trusted.json")
    env = {"CODEAGENT_TRUST_FILE": str(store.path)}
    for key, value in {"CODEAGENT_CONFIG": os.devnull, "CODEAGENT_DAEMON_IDLE_TIMEOUT": DAEMON_IDLE, **env}.items():
        monkeypatch.setenv(key, value)  # what run_cli gives the CLI, for try_fast in this process
    args = ["refs", TARGET, "--root", str(root), "--json"]
    try:
        for _ in range(2):
            r = run_cli(*args, env=env)
            assert r.returncode == 0 and r.stderr.count(WARNING) == 1, r.stderr
            assert try_fast(args) is None  # never answered without building the settings
        store.trust(root, digest(raw))
        r = run_cli(*args, env=env)
        assert r.returncode == 0 and WARNING not in r.stderr, r.stderr
        capsys.readouterr()
        assert try_fast(args) == 0  # trusted: the fast path serves it
        assert capsys.readouterr().out == r.stdout
        store.revoke(root)
        assert try_fast(args) is None  # the fingerprint changed with the store
        r = run_cli(*args, env=env)
        assert r.returncode == 0 and r.stderr.count(WARNING) == 1, r.stderr
    finally:
        stop_daemon(root)
