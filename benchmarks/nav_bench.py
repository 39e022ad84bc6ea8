"""type_info, call_hierarchy (incoming, depth 1) and find_implementations on Django 5.1.4, codeagent's
daemon side by side with raw basedpyright answering the same requests through the minimal client
of rawlsp.py (not part of the test suite).

    python benchmarks/nav_bench.py [--rounds 10]

Warm only: both servers index the tree first, each side answers every request once unmeasured,
then rounds interleave raw and daemon per request. Raw call_hierarchy = prepareCallHierarchy +
callHierarchy/incomingCalls (what any client must send); raw type_info = hover. Correctness: every
caller the server reports appears in the tool's tree, and the tool's call sites are compared with
the references filtered to call sites (the name followed by `(`): the raw server's, and
codeagent's own find_references (its data format 2: files -> groups by enclosing symbol -> hits).
The load average is sampled each round (the machine is shared): its median is in the report.
Target: warm p50 in the daemon <= 1.1x raw.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
import bench_code  # noqa: E402

bench_code.use()  # an installed codeagent, else this checkout
sys.path.insert(0, str(HERE))

from index_bench import CACHE, django_tree  # noqa: E402
from rawlsp import RawLsp, timed  # noqa: E402

from agent.config import load_settings  # noqa: E402
from agent.daemon.client import DaemonClient  # noqa: E402
from lsp_bridge.servers import get_spec, resolve_command  # noqa: E402

TYPE_TARGETS = [("QuerySet", "django/db/models/query.py", 293, 7),
                ("get_user_model", "django/contrib/auth/__init__.py", 183, 5),
                ("filter", "django/db/models/query.py", 1470, 9)]
CALL_TARGETS = [("get_user_model", "django/contrib/auth/__init__.py", 183, 5),
                ("reverse", "django/urls/base.py", 27, 5),
                ("get_object_or_404", "django/shortcuts.py", 65, 5)]
IMPL_TARGETS = [("BaseCommand.handle", "django/core/management/base.py", 606, 9),
                ("Field.get_prep_value", "django/db/models/fields/__init__.py", 988, 9),
                ("BaseCommand", "django/core/management/base.py", 184, 7)]


def pos(root: Path, rel: str, line: int, col: int) -> dict[str, Any]:
    return {"textDocument": {"uri": (root / rel).as_uri()}, "position": {"line": line - 1, "character": col - 1}}


def raw_hover(raw: RawLsp, root: Path, rel: str, line: int, col: int) -> Any:
    return raw.request("textDocument/hover", pos(root, rel, line, col))


def raw_incoming(raw: RawLsp, root: Path, rel: str, line: int, col: int) -> list[Any]:
    items = raw.request("textDocument/prepareCallHierarchy", pos(root, rel, line, col)) or []
    return list(raw.request("callHierarchy/incomingCalls", {"item": items[0]}) or []) if items else []


def raw_impl(raw: RawLsp, root: Path, rel: str, line: int, col: int) -> list[Any]:
    return list(raw.request("textDocument/implementation", pos(root, rel, line, col)) or [])


def call_sites_from_refs(raw: RawLsp, root: Path, rel: str, line: int, col: int) -> set[tuple[str, int]]:
    """References whose name is followed by `(`: the call sites a text-minded client would take."""
    out = set()
    for ref in raw.references(root / rel, line - 1, col - 1):
        path = Path(ref["uri"].removeprefix("file://"))
        text = path.read_text(encoding="utf-8", errors="replace").split("\n")[ref["range"]["start"]["line"]]
        after = text[ref["range"]["end"]["character"]:].lstrip()
        if after.startswith("("):
            out.add((path.relative_to(root).as_posix(), ref["range"]["start"]["line"] + 1))
    return out


def tool_call_sites(root: Path, data: dict[str, Any]) -> set[tuple[str, int]]:
    """codeagent find_references (format 2) filtered the same way: the name followed by `(`."""
    assert data["format"] == 2, data.get("format")
    out = set()
    lines: dict[str, list[str]] = {}
    for f in data["files"]:
        text = lines.setdefault(f["path"], (root / f["path"]).read_text(encoding="utf-8", errors="replace").split("\n"))
        for g in f["groups"]:
            for h in g["hits"]:
                if h["end_line"] == h["line"] and text[h["line"] - 1][h["end_column"] - 1:].lstrip().startswith("("):
                    out.add((f["path"], h["line"]))
    return out


def write(out: Path, report: dict[str, Any], samples: dict[str, dict[str, list[float]]]) -> None:
    report["warm"] = {k: {"raw_p50_s": statistics.median(v["raw"]), "daemon_p50_s": statistics.median(v["daemon"]),
                          "ratio": statistics.median(v["daemon"]) / max(statistics.median(v["raw"]), 1e-9),
                          # each round's raw and daemon calls are a pair, run back to back
                          "pair_ratio_p50": statistics.median(d / max(r, 1e-9)
                                                              for r, d in zip(v["raw"], v["daemon"], strict=True)),
                          "raw_s": v["raw"], "daemon_s": v["daemon"]}
                      for k, v in samples.items() if v["raw"]}
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(report, indent=2))


def load_average() -> float:
    return float(Path("/proc/loadavg").read_text().split()[0])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=10)
    ap.add_argument("--out", type=Path, default=HERE / "results" / "nav_bench.json")
    args = ap.parse_args()
    os.environ["CODEAGENT_QUERY_CACHE"] = "false"  # rounds repeat each request: measure the server's work
    source = django_tree()
    work = CACHE / "nav-bench" / source.name
    shutil.rmtree(work.parent, ignore_errors=True)
    shutil.copytree(source, work)
    root = work.resolve()
    daemon = DaemonClient(root, load_settings(root), fork=True)
    command, _ = resolve_command(get_spec("basedpyright"))
    report: dict[str, Any] = {"tree": str(root), "rounds": args.rounds}
    raw = RawLsp(command, root)
    try:
        raw.initialize()
        for _, rel, _, _ in TYPE_TARGETS + CALL_TARGETS + IMPL_TARGETS:
            raw.open(root / rel)
        started = time.perf_counter()
        first = daemon.call_tool("type_info", dict(zip(("file_path", "line", "column"), TYPE_TARGETS[0][1:], strict=True)))
        print(f"daemon up and ready in {time.perf_counter() - started:.1f} s: {first['success']}", flush=True)
        if not raw.ready.wait(900):
            raise RuntimeError("raw server never became ready")
        kinds = {"type_info": (TYPE_TARGETS, raw_hover, {}), "call_hierarchy": (CALL_TARGETS, raw_incoming, {}),
                 "find_implementations": (IMPL_TARGETS, raw_impl, {})}
        samples: dict[str, dict[str, list[float]]] = {}
        loads = [load_average()]
        answers: dict[str, Any] = {}
        for tool, (targets, raw_fn, extra) in kinds.items():
            for name, rel, line, col in targets:  # unmeasured first answers
                raw_fn(raw, root, rel, line, col)
                answers[f"{tool} {name}"] = daemon.call_tool(tool, {"file_path": rel, "line": line, "column": col, **extra})
                samples[f"{tool} {name}"] = {"raw": [], "daemon": []}
        for rnd in range(args.rounds):
            for tool, (targets, raw_fn, extra) in kinds.items():
                for name, rel, line, col in targets:
                    key = f"{tool} {name}"
                    dt, _ = timed(raw_fn, raw, root, rel, line, col)
                    samples[key]["raw"].append(dt)
                    t0 = time.perf_counter()
                    result = daemon.call_tool(tool, {"file_path": rel, "line": line, "column": col, **extra})
                    samples[key]["daemon"].append(time.perf_counter() - t0)
                    if not result["success"]:
                        print(f"FAILED {key}: {result['error']}", flush=True)
                    else:
                        answers[key] = result  # the checks use a warm answer (a first one may time out)
            loads.append(load_average())
            print(f"round {rnd + 1}/{args.rounds} (load average {loads[-1]:.1f})", flush=True)
        report["load_average"] = {"median": statistics.median(loads), "min": min(loads), "max": max(loads)}
        write(args.out, report, samples)  # the timings are kept even if the checks below fail
        # ---- correctness of call_hierarchy incoming
        checks = {}
        for name, rel, line, col in CALL_TARGETS:
            raw_calls = raw_incoming(raw, root, rel, line, col)
            raw_sites = {(Path(c["from"]["uri"].removeprefix("file://")).relative_to(root).as_posix(),
                          r["start"]["line"] + 1) for c in raw_calls for r in c["fromRanges"]}
            if not answers[f"call_hierarchy {name}"]["success"]:
                checks[name] = {"error": answers[f"call_hierarchy {name}"]["error"]}
                continue
            data = answers[f"call_hierarchy {name}"]["data"]
            tool_sites = {(s["path"], s["line"]) for n in data["calls"] for s in n["calls_at"]}
            ref_sites = call_sites_from_refs(raw, root, rel, line, col)
            refs = daemon.call_tool("find_references", {"file_path": rel, "line": line, "column": col, "limit": 0})
            our_ref_sites = tool_call_sites(root, refs["data"])
            missing = sorted(raw_sites - tool_sites)
            only_refs, only_tool = sorted(ref_sites - tool_sites), sorted(tool_sites - ref_sites)
            checks[name] = {"server_callers": len(raw_calls), "tool_callers": len(data["calls"]),
                            "server_sites": len(raw_sites), "tool_sites": len(tool_sites),
                            "server_sites_missing_from_tool": len(missing), "missing_examples": missing[:10],
                            "refs_call_sites": len(ref_sites),
                            "in_refs_not_in_tool": len(only_refs), "in_refs_not_in_tool_examples": only_refs[:10],
                            "in_tool_not_in_refs": len(only_tool), "in_tool_not_in_refs_examples": only_tool[:10],
                            "codeagent_refs_call_sites": len(our_ref_sites),
                            "codeagent_refs_equal_raw_refs": our_ref_sites == ref_sites,
                            "in_codeagent_refs_not_in_tool": sorted(our_ref_sites - tool_sites)[:10],
                            "in_tool_not_in_codeagent_refs": sorted(tool_sites - our_ref_sites)[:10]}
        report["correctness"] = checks
    finally:
        raw.close()
        daemon.stop()
        shutil.rmtree(work.parent, ignore_errors=True)
    write(args.out, report, samples)
    la = report.get("load_average", {})
    print(f"\nload average during the rounds: median {la.get('median')}, min {la.get('min')}, max {la.get('max')}")
    print("\n| request | raw p50 (ms) | daemon p50 (ms) | daemon/raw (p50s) | p50 of pair ratios |\n|---|---|---|---|---|")
    for k, w in report["warm"].items():
        print(f"| {k} | {w['raw_p50_s'] * 1000:.1f} | {w['daemon_p50_s'] * 1000:.1f} | {w['ratio']:.2f}x "
              f"| {w['pair_ratio_p50']:.2f}x |")
    print("\ncorrectness (call_hierarchy incoming):")
    print(json.dumps(report["correctness"], indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
