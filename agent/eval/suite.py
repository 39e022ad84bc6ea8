"""A task suite: folders holding task.toml (id, title, kind, language, the task text, the judge)
and project/ (the starting tree). The bundled suite ships in the package as agent/eval/suite/."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import CodeagentError

BUNDLED = Path(__file__).resolve().parent / "suite"
MAX_TASKS = 10_000


class SuiteError(CodeagentError):
    """A suite or one of its tasks cannot be read."""


@dataclass(frozen=True, slots=True)
class FileCheck:
    """`path` must (expect) or must not (forbid) contain `text`; `equals` compares the whole file."""

    path: str
    contains: str | None = None
    equals: str | None = None
    absent: bool = False  # expect: the file must not exist (a moved-away module)


@dataclass(frozen=True, slots=True)
class Judge:
    test: str | None  # a bash command line run in the sandbox at the project root; exit 0 passes
    expect: tuple[FileCheck, ...] = ()
    forbid: tuple[FileCheck, ...] = ()
    unchanged: tuple[str, ...] = ()  # files the task must not touch (the traps)
    timeout: float = 120.0


@dataclass(frozen=True, slots=True)
class Generate:
    """A larger tree made at set-up: `count` modules under `folder`, one of them (`target`) special."""

    folder: str
    count: int
    target: int
    seed: int = 0


@dataclass(frozen=True, slots=True)
class Task:
    id: str
    title: str
    kind: str
    language: str
    text: str
    folder: Path
    judge: Judge
    generate: Generate | None = None
    tags: tuple[str, ...] = field(default_factory=tuple)

    @property
    def project(self) -> Path:
        return self.folder / "project"


def _checks(raw: Any, where: str) -> tuple[FileCheck, ...]:
    if raw is None:
        return ()
    if not isinstance(raw, list):
        raise SuiteError(f"{where}: must be a list of tables")
    out = []
    for item in raw:
        if not isinstance(item, dict) or not isinstance(item.get("path"), str):
            raise SuiteError(f"{where}: every entry needs a `path`")
        out.append(FileCheck(item["path"], item.get("contains"), item.get("equals"), bool(item.get("absent", False))))
    return tuple(out)


def load_task(folder: Path) -> Task:
    spec_path = folder / "task.toml"
    try:
        spec = tomllib.loads(spec_path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise SuiteError(f"{spec_path}: {exc}") from exc
    missing = [k for k in ("id", "title", "kind", "language", "text") if not isinstance(spec.get(k), str)]
    if missing:
        raise SuiteError(f"{spec_path}: missing {', '.join(missing)}")
    if spec["id"] != folder.name:
        raise SuiteError(f"{spec_path}: id {spec['id']!r} differs from the folder name {folder.name!r}")
    if not (folder / "project").is_dir():
        raise SuiteError(f"{folder}: no project/ folder (the starting tree)")
    raw = spec.get("judge") or {}
    judge = Judge(raw.get("test"), _checks(raw.get("expect"), f"{spec_path} judge.expect"),
                  _checks(raw.get("forbid"), f"{spec_path} judge.forbid"),
                  tuple(raw.get("unchanged") or ()), float(raw.get("timeout", 120.0)))
    if judge.test is None and not (judge.expect or judge.forbid):
        raise SuiteError(f"{spec_path}: the judge needs a test command or file checks")
    gen = spec.get("generate")
    generate = Generate(gen["folder"], int(gen["count"]), int(gen["target"]), int(gen.get("seed", 0))) if gen else None
    return Task(spec["id"], spec["title"], spec["kind"], spec["language"], spec["text"].strip(), folder, judge,
                generate, tuple(spec.get("tags") or ()))


def suite_folder(name: str | None) -> Path:
    """`None` or "bundled": the suite in the package; else a path to a folder of task folders."""
    if name in (None, "", "bundled"):
        return BUNDLED
    path = Path(name).expanduser()
    if not path.is_dir():
        raise SuiteError(f"--suite {name!r}: not a folder of task folders (or `bundled`)")
    return path


def load_suite(name: str | None = None, only: list[str] | None = None) -> list[Task]:
    folder = suite_folder(name)
    tasks = [load_task(f) for f in sorted(folder.iterdir())[:MAX_TASKS] if (f / "task.toml").is_file()]
    if not tasks:
        raise SuiteError(f"{folder}: no task folders (each holds task.toml and project/)")
    if only:
        known = {t.id for t in tasks}
        unknown = [i for i in only if i not in known]
        if unknown:
            raise SuiteError(f"unknown task ids: {', '.join(unknown)} (see `codeagent eval --list`)")
        tasks = [t for t in tasks if t.id in only]
    return tasks
