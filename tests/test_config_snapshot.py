"""The settings snapshot of the cold start (agent.configsnapshot, agent/commands/cold_start.py): it
is used only while every source load_settings reads is unchanged, it holds exactly what
load_settings returned (trust rules and warnings included), a file anyone else could have written
is ignored, and a snapshot that is not what load_settings gives now is refused and deleted."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path

import pytest

from agent.commands.cold_start import cold_settings
from agent.config import ConfigError, Settings, load_settings
from agent.configsnapshot import (
    SettingsSnapshot,
    StaleSnapshot,
    load_snapshot,
    settings_key,
    store_snapshot,
)
from agent.truststore import TrustStore, digest


@pytest.fixture
def user(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A user config and a trust store of this test only, and no other variable feeding settings."""
    for var in [v for v in os.environ if v.startswith(("CODEAGENT_", "LLM_", "OPENAI_"))]:
        monkeypatch.delenv(var)
    path = tmp_path / "user.toml"
    path.write_text("[llm]\ntemperature = 0.5\n", encoding="utf-8")
    monkeypatch.setenv("CODEAGENT_CONFIG", str(path))
    monkeypatch.setenv("CODEAGENT_TRUST_FILE", str(tmp_path / "conf" / "trusted.json"))
    return path


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    return tmp_path / "cache" / "settings"


def _trust(tmp_path: Path, root: Path) -> None:
    TrustStore(tmp_path / "conf" / "trusted.json").trust(root, digest((root / ".codeagent.toml").read_bytes()))


# Each changes one source load_settings reads (or how it may read it).
CHANGES: dict[str, Callable[[Path, Path, pytest.MonkeyPatch], object]] = {
    "user config bytes": lambda root, tmp, mp: (tmp / "user.toml").write_text("[llm]\ntemperature = 0.6\n"),
    "user config removed": lambda root, tmp, mp: (tmp / "user.toml").unlink(),
    "another user config": lambda root, tmp, mp: mp.setenv("CODEAGENT_CONFIG", str(tmp / "other.toml")),
    "project config created": lambda root, tmp, mp: (root / ".codeagent.toml").write_text("[agent]\nmax_steps = 3\n"),
    "project config bytes": lambda root, tmp, mp: (root / ".codeagent.toml").write_text("[agent]\nmax_steps = 4\n"),
    "trusted": lambda root, tmp, mp: _trust(tmp, root),
    "a variable": lambda root, tmp, mp: mp.setenv("CODEAGENT_MODEL", "m"),
    "an unrelated CODEAGENT_ variable": lambda root, tmp, mp: mp.setenv("CODEAGENT_SOMETHING_NEW", "1"),
    "HOME": lambda root, tmp, mp: mp.setenv("HOME", str(tmp)),
}


@pytest.mark.parametrize("change", list(CHANGES))
def test_any_change_of_a_source_is_a_miss(root: Path, user: Path, tmp_path: Path, folder: Path,
                                          monkeypatch: pytest.MonkeyPatch, change: str) -> None:
    if change in ("project config bytes", "trusted"):
        (root / ".codeagent.toml").write_text("[agent]\nmax_steps = 3\n", encoding="utf-8")
    first = cold_settings(root, folder)
    assert isinstance(first, Settings)  # nothing stored yet: loaded
    again = cold_settings(root, folder)
    assert isinstance(again, SettingsSnapshot) and again.json == first.model_dump_json()
    CHANGES[change](root, tmp_path, monkeypatch)
    assert load_snapshot(root, settings_key(root), folder) is None
    after = cold_settings(root, folder)
    assert isinstance(after, Settings)
    assert after.model_dump_json() == load_settings(root).model_dump_json()


def test_a_trust_store_whose_mode_changed_is_a_miss(root: Path, user: Path, tmp_path: Path, folder: Path) -> None:
    (root / ".codeagent.toml").write_text('[shell]\nsandbox = "off"\n', encoding="utf-8")
    _trust(tmp_path, root)
    trusted = cold_settings(root, folder)
    assert isinstance(trusted, Settings) and trusted.shell.sandbox == "off"
    (tmp_path / "conf" / "trusted.json").chmod(0o666)  # same bytes; load_settings now refuses the store
    refused = cold_settings(root, folder)
    assert isinstance(refused, Settings) and refused.shell.sandbox == "auto"
    assert any("not a private file" in w for w in refused.warnings)


def test_the_snapshot_holds_what_the_trust_rules_left(root: Path, user: Path, folder: Path) -> None:
    """An untrusted project file's security setting is ignored in the snapshot as in the settings,
    and the warning is kept (the cold path then leaves the command to the normal path)."""
    (root / ".codeagent.toml").write_text('[lsp]\nserver_commands = {python = ["/tmp/evil"]}\npython_server = '
                                          '"pyright"\n', encoding="utf-8")
    loaded = cold_settings(root, folder)
    snapshot = cold_settings(root, folder)
    assert isinstance(loaded, Settings) and isinstance(snapshot, SettingsSnapshot)
    assert snapshot.lsp.server_commands == {} and snapshot.lsp.python_server == "pyright"
    assert list(snapshot.warnings) == loaded.warnings and any("lsp.server_commands" in w for w in snapshot.warnings)


@pytest.mark.parametrize("source", ["user", "project", "environment"])
def test_an_invalid_source_after_a_snapshot_still_names_the_source(root: Path, user: Path, folder: Path,
                                                                   monkeypatch: pytest.MonkeyPatch,
                                                                   source: str) -> None:
    cold_settings(root, folder)
    assert isinstance(cold_settings(root, folder), SettingsSnapshot)
    if source == "user":
        user.write_text("[llm]\ntemperature = 9\n", encoding="utf-8")
        expected = rf"invalid configuration from {user}: llm\.temperature"
    elif source == "project":
        (root / ".codeagent.toml").write_text("[agent]\nmax_steps = 0\n", encoding="utf-8")
        expected = r"invalid configuration from .*\.codeagent\.toml: agent\.max_steps"
    else:
        monkeypatch.setenv("CODEAGENT_INDEX_WORKERS", "-1")
        expected = r"invalid configuration from environment: syntax\.index_workers"
    with pytest.raises(ConfigError, match=expected):
        cold_settings(root, folder)
    with pytest.raises(ConfigError, match=expected):
        load_settings(root)


def test_a_snapshot_file_anyone_else_may_write_is_ignored(root: Path, user: Path, folder: Path) -> None:
    cold_settings(root, folder)
    key = settings_key(root)
    (file,) = folder.glob("*.json")
    assert load_snapshot(root, key, folder) is not None
    assert file.stat().st_mode & 0o777 == 0o600 and folder.stat().st_mode & 0o777 == 0o700
    file.chmod(0o620)
    assert load_snapshot(root, key, folder) is None
    file.chmod(0o600)
    folder.chmod(0o755)
    assert load_snapshot(root, key, folder) is None
    folder.chmod(0o700)
    moved = file.with_name("elsewhere")
    file.rename(moved)
    file.symlink_to(moved)
    assert load_snapshot(root, key, folder) is None


def test_a_snapshot_of_another_root_or_key_is_not_used(root: Path, user: Path, folder: Path, tmp_path: Path) -> None:
    settings = load_settings(root)
    other = tmp_path / "other"
    other.mkdir()
    assert store_snapshot(root, settings_key(root), settings.model_dump_json(), [], folder)
    assert load_snapshot(root, "another key", folder) is None
    assert load_snapshot(other, settings_key(root), folder) is None


def test_a_snapshot_that_is_not_what_loads_now_is_refused_and_deleted(root: Path, user: Path, folder: Path) -> None:
    """What a forked daemon does before serving (DaemonClient._fork): the settings loaded now must be
    the snapshot's, else the snapshot is deleted and the daemon does not serve."""
    real = load_settings(root)
    tampered = json.loads(real.model_dump_json())
    tampered["lsp"]["python_server"] = "pyright"
    store_snapshot(root, settings_key(root), json.dumps(tampered), [], folder)
    snapshot = cold_settings(root, folder)
    assert isinstance(snapshot, SettingsSnapshot) and snapshot.lsp.python_server == "pyright"
    with pytest.raises(StaleSnapshot):
        snapshot.verified()
    assert list(folder.glob("*.json")) == []
    assert isinstance(cold_settings(root, folder), Settings)  # loaded again, and stored again
    good = cold_settings(root, folder)
    assert isinstance(good, SettingsSnapshot)
    assert good.verified().model_dump_json() == real.model_dump_json()


def test_the_snapshots_are_bounded(folder: Path, tmp_path: Path) -> None:
    for n in range(5):
        assert store_snapshot(tmp_path / f"r{n}", "k", "{}", [], folder, keep=3)
    assert len(list(folder.glob("*.json"))) == 3


def test_no_snapshot_is_read_or_written_inside_the_workspace(root: Path, user: Path, tmp_path: Path) -> None:
    """A workspace holding the user cache (e.g. the home folder): the tools could write a snapshot
    there, so none is used."""
    settings = load_settings(root)
    inside = root / ".cache" / "codeagent" / "settings"
    assert not store_snapshot(root, settings_key(root), settings.model_dump_json(), [], inside)
    assert not inside.exists()
    elsewhere = tmp_path / "cache"
    assert store_snapshot(root, settings_key(root), settings.model_dump_json(), [], elsewhere)
    inside.parent.mkdir(parents=True)
    elsewhere.rename(inside)  # the same file, now inside the workspace
    assert load_snapshot(root, settings_key(root), inside) is None
    assert isinstance(cold_settings(root, inside), Settings)


def test_a_folder_that_cannot_be_made_only_costs_the_snapshot(root: Path, user: Path, tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("", encoding="utf-8")
    assert not store_snapshot(root, settings_key(root), "{}", [], blocker / "settings")
    assert isinstance(cold_settings(root, blocker / "settings"), Settings)
