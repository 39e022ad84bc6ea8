"""Whether a server accepts the project's configuration, from the server's own word: its
diagnostics for the config file (tsconfig.json), which it pushes once a file of the project is
open. A server that rejects an option it no longer supports (TypeScript 7 and `baseUrl`) would
otherwise serve a half-understood project and report no diagnostics at all; the pool then runs
the spec's fallback server for that workspace (pool.py)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from lsp_bridge.session import LspSession
from lsp_bridge.types import Diagnostic

MAX_WALK = 5_000  # directory entries looked at while finding a file to open


@dataclass(frozen=True)
class Fallback:
    """`primary` rejected the configuration (`problems`, the fatal ones among `diagnostics`);
    `server` serves the workspace instead."""

    primary: str
    server: str
    config: Path
    problems: tuple[Diagnostic, ...]
    diagnostics: tuple[Diagnostic, ...]

    def note(self) -> str:
        first = self.problems[0]
        codes = ", ".join(sorted({f"TS{p.code}" for p in self.problems}))
        return (f"{self.primary} rejects {self.config.name} ({codes}: {first.message.splitlines()[0]}); "
                f"using {self.server} for this workspace")


def config_file(root: Path, names: tuple[str, ...]) -> Path | None:
    for name in names:
        if (root / name).is_file():
            return root / name
    return None


def first_source(root: Path, suffixes: frozenset[str], skip_dirs: frozenset[str]) -> Path | None:
    """A source file of the project to open (the server loads the project around it), found by a
    bounded walk, shallowest folders first."""
    seen = 0
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in skip_dirs and not d.startswith("."))
        seen += len(dirnames) + len(filenames)
        for name in sorted(filenames):
            if os.path.splitext(name)[1].lower() in suffixes:
                return Path(dirpath) / name
        if seen > MAX_WALK:
            return None
    return None


def config_diagnostics(session: LspSession, root: Path,
                       skip_dirs: frozenset[str]) -> tuple[Path, list[Diagnostic]] | None:
    """The server's diagnostics for the project's config file (opening one project file first);
    None when there is no config file or no file to open."""
    spec = session.spec
    config = config_file(root, spec.config_files)
    source = first_source(root, frozenset(spec.language_ids), skip_dirs) if config else None
    if config is None or source is None:
        return None
    session.sync(source)
    return config, session.diagnostics(config)
