#!/usr/bin/env python3
"""Cross-file refactors by scripted policies: text tools versus semantic tools.

Each task is a rename on a fixture project. Each policy is a scripted "model" that drives the real
agent loop (`agent.runner.run_agent` with a `Model` that follows a script instead of an
endpoint), so every call goes through the registry, the journal and the trajectory exactly as in a
real run. For each (task, policy) the bench reports the tool calls, the bytes of tool output the
model had to read, and whether the final tree is correct: the project's tests pass, the sites that
must change did, and the sites that must not (strings, comments, same-named unrelated symbols,
stored formats) did not.

Policies (the best each toolset allows, with no knowledge beyond what its tools show):
- text:      search the word (\\bNAME\\b), read every file with a match (a model must see the code
             it edits), replace each matching line (one replace_in_file per distinct line), run
             the tests.
- text-lean: the same without reading the files: edits are made from the search output alone.
             A lower bound for text tools, and riskier than any careful model would be.
- semantic:  one rename_symbol call (the symbol by its name path), run the tests.

- text@semantic: the text policy in a run that offers the semantic tools, to measure the loop's
             cross-file hint (agent/edithint.py): how many of its edits got a hint.

The other kinds (move, signature change, symbol-aware bug fix) are in benchmarks/refactor_kinds.py,
on the eval suite's projects, judged by the suite's judges.

Usage: python benchmarks/refactor_bench.py [--kinds rename,move,signature,bugfix] [--tasks NAME,...]
                                           [--policies text,semantic] [--json OUT]
Needs the language servers (`codeagent servers install`); not part of the pytest run.
"""

from __future__ import annotations

import argparse
import functools
import json
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Generator, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from refactor_kinds import KIND_TASKS, KindTask  # noqa: E402  (this folder is on sys.path)

from agent.bootstrap import load_all_tools, open_context  # noqa: E402
from agent.config import Settings  # noqa: E402
from agent.eval.judge import judge  # noqa: E402
from agent.eval.setup import prepare  # noqa: E402
from agent.eval.suite import load_task, suite_folder  # noqa: E402
from agent.llm import Reply, ToolCall  # noqa: E402
from agent.registry import Tool  # noqa: E402
from agent.runner import run_agent  # noqa: E402
from agent.trajectory import read_events  # noqa: E402

FIXTURES = ROOT / "fixtures"
TEST_COMMAND = "python -m pytest -q -p no:cacheprovider"


@dataclass(frozen=True)
class Task:
    name: str
    fixture: str
    symbol: str  # name path for rename_symbol
    old: str
    new: str
    must_have: tuple[tuple[str, str], ...] = ()  # (path, text) present after a correct rename
    must_keep: tuple[tuple[str, str], ...] = ()  # (path, text) a correct rename leaves alone


TASKS = [
    Task("pyproj/area_of", "pyproj", "area_of", "area_of", "compute_area",
         must_have=(("shapes/__init__.py", '"compute_area"'), ("shapes/labels.py", "{compute_area(circle)}")),
         must_keep=(("shapes/geometry.py", "# area_of rounds: this comment mentions area_of"),
                    ("shapes/registry.py", 'label = "area_of"'),
                    ("shapes/geometry.py", "area_of = shape.area()  # a local that shadows"))),
    Task("pyproj/Registry", "pyproj", "Registry", "Registry", "ShapeRegistry",
         must_have=(("shapes/__init__.py", '"ShapeRegistry"'), ("tests/test_shapes.py", "registry = ShapeRegistry()")),
         must_keep=(("shapes/registry.py", '"""A registry whose'),)),
    Task("invoicing/compute_total", "invoicing", "compute_total", "compute_total", "invoice_total",
         must_have=(("invoicing/__init__.py", '"invoice_total"'), ("invoicing/storage.py", '"total": invoice_total(invoice)')),
         must_keep=(("invoicing/reports.py", 'PIPELINE = ("load", "compute_total", "aggregate", "render")'),
                    ("invoicing/pricing.py", 'log.debug("compute_total(%s) = %.2f"'))),
    Task("invoicing/LineItem.amount", "invoicing", "LineItem.amount", "amount", "line_amount",
         must_have=(("invoicing/render.py", "format_amount(item.line_amount(), cur)"),),
         must_keep=(("invoicing/models.py", "    def amount(self) -> float:\n        \"\"\"What the payment settles"),
                    ("invoicing/storage.py", 'return {"amount": payment.amount(), "value"'),
                    ("invoicing/storage.py", '"tax_rate": item.tax_rate, "amount": item.line_amount()}'))),
    Task("invoicing/Customer", "invoicing", "Customer", "Customer", "Client",
         must_have=(("invoicing/models.py", "class Client:"), ("invoicing/reports.py", "-> list[Client]:")),
         must_keep=(("invoicing/render.py", 'CSV_COLUMNS = ("Customer", "Invoice"'),)),
    Task("invoicing/apply_discount.rate", "invoicing", "apply_discount", "rate", "discount_rate",
         must_have=(("tests/test_pricing.py", "apply_discount(invoice, discount_rate=10)"),
                    ("invoicing/pricing.py", 'raise ValueError(f"discount rate out of range: {discount_rate}")')),
         must_keep=(("invoicing/money.py", "def percent(value: float, rate: float) -> float:"),)),
]

# ----------------------------------------------------------------------------- scripted models
Policy = Generator[list[tuple[str, dict[str, Any]]], list[str], None]


class ScriptedModel:
    """A `Model` whose replies come from a policy: it is sent the outputs of its last calls."""

    protocol = "tools"

    def __init__(self, policy: Policy):
        self.policy = policy
        self.started = False
        self.n = 0

    def complete(self, messages: list[dict[str, Any]], tools: Sequence[Tool]) -> Reply:
        last = max(i for i, m in enumerate(messages) if m["role"] in ("assistant", "user"))
        outputs = [m["content"] for m in messages[last + 1:] if m["role"] == "tool"]
        try:
            calls = next(self.policy) if not self.started else self.policy.send(outputs)
        except StopIteration:
            calls = [("finish", {"summary": "done"})]
        self.started = True
        out = []
        for name, args in calls:
            self.n += 1
            out.append(ToolCall(f"call_{self.n}", name, json.dumps(args)))
        return Reply(content="", tool_calls=out, prompt_tokens=0, completion_tokens=0)


MATCH = re.compile(r"^(?P<path>[^:\n]+\.py):(?P<line>\d+):(?P<text>.*)$")
NUMBERED = re.compile(r"^\s*\d+  ?(?P<text>.*)$")


def _word(name: str) -> re.Pattern[str]:
    return re.compile(rf"\b{re.escape(name)}\b")


def _test_step(tools: set[str]) -> list[tuple[str, dict[str, Any]]]:
    return [("run_shell_command", {"command": TEST_COMMAND})] if "run_shell_command" in tools else []


def text_policy(task: Task, tools: set[str], *, read_files: bool = True) -> Policy:
    word = _word(task.old)
    outputs = yield [("search_in_files", {"pattern": rf"\b{task.old}\b", "glob": "*.py", "max_results": 5000})]
    by_file: dict[str, set[str]] = {}
    for line in outputs[0].splitlines():
        m = MATCH.match(line)
        if m:
            # the search shows "path:line: text" with the line's text after one space
            by_file.setdefault(m["path"], set()).add(m["text"][1:] if m["text"].startswith(" ") else m["text"])
    if read_files:
        paths = sorted(by_file)
        reads = yield [("read_file", {"file_path": p}) for p in paths]
        for path, body in zip(paths, reads, strict=True):
            lines = {NUMBERED.match(ln)["text"] for ln in body.splitlines() if NUMBERED.match(ln)}  # type: ignore[index]
            by_file[path] = {ln for ln in lines if word.search(ln)}
    edits = [("replace_in_file", {"file_path": path, "old_text": line, "new_text": word.sub(task.new, line),
                                  "replace_all": True})
             for path in sorted(by_file) for line in sorted(by_file[path])]
    yield edits
    step = _test_step(tools)
    if step:
        yield step


def semantic_policy(task: Task, tools: set[str], root: Path) -> Policy:
    if task.old == task.symbol.split(".")[-1]:
        yield [("rename_symbol", {"symbol": task.symbol, "new_name": task.new})]
    else:  # a parameter has no name path of its own: the model gives its position in the signature
        yield [("rename_symbol", locate_parameter(root, task))]
    step = _test_step(tools)
    if step:
        yield step


POLICIES: dict[str, Callable[[Task, set[str], Path], Policy]] = {
    "text": lambda task, tools, root: text_policy(task, tools, read_files=True),
    "text-lean": lambda task, tools, root: text_policy(task, tools, read_files=False),
    "semantic": semantic_policy,
    "text@semantic": lambda task, tools, root: text_policy(task, tools, read_files=True),
}
TOOLSET = {"text": "text", "text-lean": "text", "semantic": "semantic", "text@semantic": "semantic"}
TEXT_EDITS = ("replace_in_file", "write_file", "apply_patch")


# ----------------------------------------------------------------------------- running and judging


@dataclass
class Result:
    task: str
    policy: str
    calls: int = 0
    output_bytes: int = 0
    failed_calls: int = 0
    tests_pass: bool = False
    sites_ok: bool = False
    problems: list[str] = field(default_factory=list)
    seconds: float = 0.0
    kind: str = "rename"
    text_edits: int = 0  # successful replace_in_file / write_file / apply_patch calls
    hints: list[str] = field(default_factory=list)  # the cross-file hints the run got

    @property
    def correct(self) -> bool:
        return self.tests_pass and self.sites_ok


def locate_parameter(root: Path, task: Task) -> dict[str, Any]:
    for path in sorted(root.rglob("*.py")):
        for n, line in enumerate(path.read_text(encoding="utf-8").split("\n"), 1):
            if line.lstrip().startswith(f"def {task.symbol}("):
                col = line.index(f"{task.old}:", line.index("(")) + 1
                return {"file_path": path.relative_to(root).as_posix(), "line": n, "column": col, "new_name": task.new}
    raise SystemExit(f"{task.name}: parameter {task.old} of {task.symbol} not found")


def run_task(task: Task, policy_name: str, workdir: Path) -> Result:
    root = workdir / f"{task.name.replace('/', '_')}-{policy_name}"
    shutil.copytree(FIXTURES / task.fixture, root, ignore=shutil.ignore_patterns("__pycache__", ".codeagent"))
    registry = load_all_tools()
    toolset = TOOLSET[policy_name]
    names = {t.name for t in registry.tools(toolset, include_agent=True)}
    policy = POLICIES[policy_name](task, names, root)
    res = scripted_run(root, policy, f"rename {task.old} to {task.new}", toolset, Result(task.name, policy_name))
    proc = subprocess.run(TEST_COMMAND.split(), cwd=root, capture_output=True, text=True, timeout=600)
    res.tests_pass = proc.returncode == 0
    if not res.tests_pass:
        res.problems.append("tests fail: " + (proc.stdout.strip().splitlines() or ["?"])[-1])
    for path, text in task.must_have:
        if text not in (root / path).read_text(encoding="utf-8"):
            res.problems.append(f"missing in {path}: {text!r}")
    for path, text in task.must_keep:
        if text not in (root / path).read_text(encoding="utf-8"):
            res.problems.append(f"wrongly changed in {path}: {text!r}")
    res.sites_ok = not any(p.startswith(("missing", "wrongly")) for p in res.problems)
    return res


def scripted_run(root: Path, policy: Policy, task_text: str, toolset: str, res: Result) -> Result:
    """One agent run of `policy` in `root`; its calls, bytes, failed calls, text edits and hints."""
    settings = Settings()
    run_id = f"bench-{res.policy.replace('@', '-')}"
    started = time.monotonic()
    with open_context(root, settings=settings, run_id=run_id) as ctx:
        outcome, _ = run_agent(ctx, settings, task_text, toolset=toolset, registry=load_all_tools(),
                               model=ScriptedModel(policy))
        events = read_events(ctx.workspace, run_id)
    res.seconds = round(time.monotonic() - started, 2)
    if not outcome.ok:
        res.problems.append(f"run ended {outcome.status}: {outcome.message}")
    for ev in events:
        if ev["type"] == "tool_result" and ev["name"] != "finish":
            res.calls += 1
            res.output_bytes += int(ev["output_bytes"])
            res.failed_calls += 0 if ev["success"] else 1
            res.text_edits += 1 if ev["success"] and ev["name"] in TEXT_EDITS else 0
        elif ev["type"] == "note" and ev.get("category") == "semantic_hint":
            res.hints.append(str(ev["text"]))
    return res


def _turns(turns: Sequence[list[tuple[str, dict[str, Any]]]],
           fallback: Sequence[list[tuple[str, dict[str, Any]]]] = ()) -> Policy:
    """The turns in order; `fallback` instead of the rest once an output says nothing was changed."""
    for turn in turns:
        outputs = yield turn
        if fallback and any("nothing was changed" in o for o in outputs):
            for other in fallback:  # noqa: UP028 (the policy is sent outputs; a list iterator takes no send)
                yield other
            return


def run_kind_task(task: KindTask, policy_name: str, workdir: Path) -> Result:
    """A move, signature or bug-fix task of the eval suite, judged by the suite's judge."""
    suite_task = load_task(suite_folder(None) / task.suite_task)
    root = prepare(suite_task, workdir / f"{task.name.replace('/', '_')}-{policy_name.replace('@', '-')}")
    policy = _turns(task.semantic, task.fallback) if policy_name == "semantic" else _turns(task.text)
    res = scripted_run(root, policy, suite_task.text, TOOLSET[policy_name],
                       Result(task.name, policy_name, kind=task.kind))
    verdict = judge(suite_task, root)
    res.tests_pass = res.sites_ok = verdict.passed
    if not verdict.passed:
        res.problems.extend(verdict.failures[:3])
    return res


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--kinds", default="rename,move,signature,bugfix", help="comma-separated task kinds")
    ap.add_argument("--tasks", help="comma-separated task names (default: all)")
    ap.add_argument("--policies", default="text,text-lean,semantic,text@semantic", help="comma-separated policies")
    ap.add_argument("--json", type=Path, help="also write the results as JSON here")
    args = ap.parse_args(argv)
    kinds = args.kinds.split(",")
    wanted = args.tasks.split(",") if args.tasks else None
    policies = args.policies.split(",")
    results: list[Result] = []
    with tempfile.TemporaryDirectory(prefix="refactor-bench-") as tmp:
        runs: list[Callable[[], Result]] = []
        for task in TASKS if "rename" in kinds else []:
            if wanted is None or task.name in wanted:
                runs.extend(functools.partial(run_task, task, policy, Path(tmp)) for policy in policies)
        for ktask in KIND_TASKS:
            if ktask.kind in kinds and (wanted is None or ktask.name in wanted):
                runs.extend(functools.partial(run_kind_task, ktask, policy, Path(tmp))
                            for policy in policies if policy != "text-lean")
        for job in runs:
            r = job()
            results.append(r)
            print(f"{r.task:32} {r.policy:13} calls {r.calls:3}  output {r.output_bytes:7} B  "
                  f"{'correct' if r.correct else 'WRONG  '}  hints {len(r.hints)}/{r.text_edits} edits  "
                  f"{'; '.join(r.problems)[:160]}", flush=True)
    print(table(results, policies))
    if args.json:
        args.json.write_text(json.dumps([asdict(r) | {"correct": r.correct} for r in results], indent=2) + "\n")
    return 0


def table(results: list[Result], policies: list[str]) -> str:
    """Per kind × policy: tasks correct, tool calls, tool-output bytes, text edits and hints."""
    out = ["| kind | policy | tasks correct | tool calls | tool-output bytes | text edits | hints |",
           "|---|---|---:|---:|---:|---:|---:|"]
    for kind in dict.fromkeys(r.kind for r in results):
        for policy in policies:
            mine = [r for r in results if r.kind == kind and r.policy == policy]
            if mine:
                out.append(f"| {kind} | {policy} | {sum(r.correct for r in mine)}/{len(mine)} | "
                           f"{sum(r.calls for r in mine)} | {sum(r.output_bytes for r in mine)} | "
                           f"{sum(r.text_edits for r in mine)} | {sum(len(r.hints) for r in mine)} |")
    return "\n".join(out)


if __name__ == "__main__":
    sys.exit(main())
