"""A TypeScript project TypeScript 7 rejects (`baseUrl`, `moduleResolution: node`: TS5102, TS5108)
still works: tsc's own diagnostics for tsconfig.json are read, the workspace falls back to
typescript-language-server (TypeScript 5.x), that is said once, and `diagnostics` reports the
config errors. Real CLI, real tsc --lsp and typescript-language-server (issue 15, point 7)."""

from __future__ import annotations

from pathlib import Path

import pytest
from semantic_helpers import run_cli

TSCONFIG = """{
  "compilerOptions": {
    "target": "es2020",
    "module": "commonjs",
    "moduleResolution": "node",
    "baseUrl": ".",
    "strict": true
  },
  "include": ["src"]
}
"""
UTIL = "export function helper(n: number): number {\n  return n * 2;\n}\n"
# `src/lib/util` resolves through baseUrl only: TypeScript 7 cannot find it.
MAIN = 'import { helper } from "src/lib/util";\n\nexport const doubled = helper(2);\nconsole.log(helper(3));\n'
NOTE = "tsc rejects tsconfig.json (TS5102, TS5108"


@pytest.fixture
def project(root: Path) -> Path:
    (root / "src" / "lib").mkdir(parents=True)
    (root / "tsconfig.json").write_text(TSCONFIG, encoding="utf-8")
    (root / "src" / "lib" / "util.ts").write_text(UTIL, encoding="utf-8")
    (root / "src" / "main.ts").write_text(MAIN, encoding="utf-8")
    return root


def test_rejected_tsconfig_falls_back_to_typescript_5(project: Path) -> None:
    res = run_cli("refs", "src/lib/util.ts:1:17", "--root", str(project), "--json", "--no-daemon", timeout=600)
    assert res.returncode == 0, res.stderr
    assert res.json["data"]["count"] == 4  # the declaration, the import and both uses (through baseUrl)
    assert {f["path"] for f in res.json["data"]["files"]} == {"src/lib/util.ts", "src/main.ts"}
    assert res.stderr.count(NOTE) == 1, res.stderr  # said once
    assert "using typescript-language-server for this workspace" in res.stderr


def test_without_the_fallback_tsc_misses_the_baseurl_import(project: Path) -> None:
    """What the fallback is for: TypeScript 7 alone does not see the import."""
    res = run_cli("refs", "src/lib/util.ts:1:17", "--root", str(project), "--json", "--no-daemon",
                  env={"CODEAGENT_SERVER_FALLBACK": "false"}, timeout=600)
    assert res.returncode == 0, res.stderr
    assert res.json["data"]["count"] == 1
    assert NOTE not in res.stderr


def test_diagnostics_reports_the_config_errors(project: Path) -> None:
    res = run_cli("diagnostics", "src/main.ts", "--root", str(project), "--json", "--no-daemon", timeout=600)
    assert res.returncode == 0, res.stderr
    data = res.json["data"]
    config = {(d["path"], d["code"], d["line"]) for d in data["config_diagnostics"]}
    assert ("tsconfig.json", "5108", 5) in config and ("tsconfig.json", "5102", 6) in config
    assert "typescript-language-server" in data["server_note"]
    assert "tsconfig.json:6:5: error: Option 'baseUrl' has been removed" in res.json["output"]


def test_an_accepted_tsconfig_keeps_tsc(root: Path) -> None:
    (root / "src").mkdir()
    (root / "tsconfig.json").write_text('{"compilerOptions": {"strict": true}, "include": ["src"]}\n')
    (root / "src" / "a.ts").write_text("export const a = 1;\nexport const b = a + 1;\n")
    res = run_cli("diagnostics", "src/a.ts", "--root", str(root), "--json", "--no-daemon", timeout=600)
    assert res.returncode == 0, res.stderr
    assert "config_diagnostics" not in res.json["data"] and NOTE not in res.stderr
