"""`codeagent trust [--root DIR] [--yes] [--revoke] [--list]`: let a workspace's `.codeagent.toml`
set security settings (agent.configtrust), for exactly the content shown, by recording its sha256
in the user's trust store (agent.truststore). Any change to the file ends the trust."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

from ..config import ConfigError, Settings, deep_merge, parse_toml, read_config_bytes
from ..configpaths import PROJECT_CONFIG, trust_store_path, user_config_path
from ..configtrust import flatten, leaf_paths, show, split_project
from ..truststore import TrustStore, TrustStoreError, digest, real_root
from .output import EXIT_OK, UsageError


def _store() -> TrustStore:
    return TrustStore(trust_store_path(os.environ))


def _list(store: TrustStore) -> int:
    entries = store.entries()
    if not entries:
        print(f"no trusted project files (trust store: {store.path})")
        return EXIT_OK
    for entry in sorted(entries.values(), key=lambda e: e.root):
        try:
            raw = read_config_bytes(Path(entry.root) / PROJECT_CONFIG)
        except ConfigError:
            raw = None
        state = "file missing" if raw is None else "trusted" if digest(raw) == entry.sha256 else "changed since"
        print(f"{entry.root}  sha256 {entry.sha256[:16]}  {state}")
    return EXIT_OK


def _report(path: Path, raw: bytes, data: dict[str, Any]) -> list[str]:
    """What the file would change once trusted, most dangerous first."""
    user_path = user_config_path(os.environ)
    user_raw = read_config_bytes(user_path)
    lower = parse_toml(user_path, user_raw) if user_raw is not None else {}
    try:
        Settings.model_validate(deep_merge(lower, data))
    except ValueError as exc:
        raise UsageError(f"{path} is not a valid configuration: {exc}") from exc
    kept, ignored = split_project(data, lower, Settings, deep_merge)
    lines = [f"{path} (sha256 {digest(raw)})"]
    security = [i for i in ignored if i.trust == "user"]
    loosened = [i for i in ignored if i.trust == "tighten"]
    lines.append("Security settings it would apply:" if security else "It sets no security settings.")
    lines += [f"  {i.path} = {show(i.value, i.path)}" for i in security]
    if loosened:
        lines.append("Limits it would loosen:")
        lines += [f"  {i.path} = {show(i.value)} (now {show(i.loosens)})" for i in loosened]
    other = list(flatten(kept, frozenset(leaf_paths(Settings))))
    if other:
        lines.append("Other settings (applied with or without trust):")
        lines += [f"  {p} = {show(v)}" for p, v in other]
    return lines


def _confirm(assume_yes: bool) -> bool:
    if assume_yes:
        return True
    if not sys.stdin.isatty():
        raise UsageError("no terminal to ask on: pass --yes to trust the file without asking")
    try:
        answer = input("Trust this file? Its security settings then apply to every codeagent command here [y/N] ")
    except EOFError:
        return False
    return answer.strip().lower() in ("y", "yes")


def cmd_trust(args: argparse.Namespace) -> int:
    store = _store()
    try:
        if args.list:
            return _list(store)
        root = Path(real_root(Path(args.root).expanduser()))
        if not root.is_dir():
            raise UsageError(f"--root {args.root!r} is not a folder")
        store.check_outside(root)
        if args.revoke:
            done = store.revoke(root)
            print(f"{root}: {'no longer trusted' if done else 'was not trusted'}")
            return EXIT_OK
        path = root / PROJECT_CONFIG
        raw = read_config_bytes(path)
        if raw is None:
            raise UsageError(f"no {PROJECT_CONFIG} in {root}")
        print("\n".join(_report(path, raw, parse_toml(path, raw))))
        if not _confirm(args.yes):
            print("not trusted")
            return EXIT_OK
        store.trust(root, digest(raw))  # the bytes shown above, not whatever the file holds now
    except (TrustStoreError, ConfigError) as exc:
        raise UsageError(str(exc)) from exc
    print(f"trusted (store: {store.path}); any change to {PROJECT_CONFIG} ends the trust")
    return EXIT_OK


def register(sub: Any) -> None:
    p = sub.add_parser("trust", help=f"let this workspace's {PROJECT_CONFIG} set security settings "
                       "(shows them first; --revoke, --list)")
    p.add_argument("--root", default=".", help="workspace root (default: the current folder)")
    p.add_argument("--yes", action="store_true", help="trust without asking (required without a terminal)")
    group = p.add_mutually_exclusive_group()
    group.add_argument("--revoke", action="store_true", help="stop trusting this workspace's file")
    group.add_argument("--list", action="store_true", help="list the trusted workspaces")
    p.set_defaults(func=cmd_trust)
