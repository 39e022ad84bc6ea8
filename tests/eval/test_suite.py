"""The bundled suite: enough tasks of every kind the issue names, task texts that name symbols in
backticks, every judge FAILS on its starting tree, and a correct solution passes it."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest

from agent.cli import main
from agent.eval.judge import judge, typescript_compiler
from agent.eval.setup import prepare
from agent.eval.suite import SuiteError, load_suite, load_task

TASKS = load_suite(None)


def test_the_bundled_suite_covers_the_task_kinds_in_both_languages() -> None:
    assert len(TASKS) >= 16
    kinds = Counter(t.kind for t in TASKS)
    assert {"rename", "move", "signature", "bugfix", "command-line"} <= set(kinds)
    assert {t.language for t in TASKS} == {"python", "typescript"}
    for t in TASKS:
        assert re.search(r"`[^`]+`", t.text), f"{t.id}: the task text names no symbol or file in backticks"


@pytest.mark.timeout(900)
@pytest.mark.parametrize("task", TASKS, ids=[t.id for t in TASKS])
def test_every_judge_fails_on_the_starting_tree(task, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    if task.judge.test and "{tsc}" in task.judge.test and typescript_compiler() is None:
        pytest.skip("no TypeScript compiler: `codeagent servers install` puts one in the cache")
    verdict = judge(task, prepare(task, tmp_path / "tree"))
    assert not verdict.passed and verdict.failures


def _replace(root: Path, rel: str, old: str, new: str) -> None:
    path = root / rel
    text = path.read_text(encoding="utf-8")
    assert old in text, (rel, old)
    path.write_text(text.replace(old, new), encoding="utf-8")


def test_a_correct_python_solution_passes_its_judge(tmp_path: Path) -> None:
    (task,) = load_suite(None, ["py-rename-function-traps"])
    root = prepare(task, tmp_path / "tree")
    _replace(root, "pkg/rows.py", "def parse_row(", "def parse_line(")
    _replace(root, "pkg/loader.py", "parse_row", "parse_line")
    verdict = judge(task, root)
    assert verdict.passed, verdict.failures


def test_a_solution_that_falls_into_the_trap_fails(tmp_path: Path) -> None:
    (task,) = load_suite(None, ["py-rename-function-traps"])
    root = prepare(task, tmp_path / "tree")
    for rel in ("pkg/rows.py", "pkg/loader.py", "pkg/report.py", "pkg/cli.py", "tests/test_rows.py"):
        _replace(root, rel, "parse_row", "parse_line")  # a blind search-and-replace
    verdict = judge(task, root)
    assert not verdict.passed
    assert "pkg/report.py was changed (it must not be)" in verdict.failures


@pytest.mark.timeout(600)
def test_a_correct_typescript_solution_passes_its_judge(tmp_path: Path) -> None:
    if typescript_compiler() is None:
        pytest.skip("no TypeScript compiler: `codeagent servers install` puts one in the cache")
    (task,) = load_suite(None, ["ts-bugfix-undefined-callers"])
    root = prepare(task, tmp_path / "tree")
    _replace(root, "src/labels.ts", "getItem(id).label", 'getItem(id)?.label ?? ""')
    _replace(root, "src/prices.ts", "item.price", "item?.price ?? 0")
    verdict = judge(task, root)
    assert verdict.passed, (verdict.failures, verdict.test_output)


def test_the_large_tree_is_generated_at_set_up(tmp_path: Path) -> None:
    (task,) = load_suite(None, ["py-large-tree-needle"])
    assert not (task.project / "gen").exists()  # not shipped
    root = prepare(task, tmp_path / "tree")
    modules = list((root / "gen").rglob("mod*.py"))
    assert len(modules) == 3000
    assert sum("legacy_checksum" in m.read_text(encoding="utf-8") for m in modules) == 1


def test_list_prints_ids_and_titles(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["eval", "--list"]) == 0
    out = capsys.readouterr().out
    for t in TASKS:
        assert t.id in out and t.title in out


def test_a_task_folder_without_a_judge_is_a_clear_error(tmp_path: Path) -> None:
    d = tmp_path / "t1"
    (d / "project").mkdir(parents=True)
    (d / "task.toml").write_text('id = "t1"\ntitle = "x"\nkind = "k"\nlanguage = "python"\ntext = "do"\n',
                                 encoding="utf-8")
    with pytest.raises(SuiteError, match="the judge needs a test command or file checks"):
        load_task(d)
