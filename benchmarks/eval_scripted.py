"""The sample report of the README: `codeagent eval` on bundled tasks with SCRIPTED policies (no
model) served by the tests' fake OpenAI server. The text policy searches and replaces by hand;
the semantic policy calls rename_symbol. It shows the report's shape and the cost of each toolset's
optimal path, not how a real model behaves.

    python benchmarks/eval_scripted.py OUT_DIR
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "agent"))

from fake_openai import FakeOpenAI, Reply, call, tools_reply  # noqa: E402

from agent.cli import main  # noqa: E402

TEXT_STEPS = {
    "py-rename-function-traps": [
        call("search_in_files", pattern=r"\bparse_row\b"),
        call("replace_in_file", file_path="pkg/rows.py", old_text="def parse_row(", new_text="def parse_line("),
        call("replace_in_file", file_path="pkg/loader.py", old_text="parse_row", new_text="parse_line",
             replace_all=True),
    ],
    "py-rename-class": [
        call("search_in_files", pattern=r"\bUserRecord\b"),
        *[call("replace_in_file", file_path=f, old_text="UserRecord", new_text="Account", replace_all=True)
          for f in ("accounts/models.py", "accounts/service.py", "accounts/export.py")],
    ],
}
SEMANTIC_STEPS = {
    "py-rename-function-traps": [call("rename_symbol", file_path="pkg/rows.py", symbol="parse_row",
                                      new_name="parse_line")],
    "py-rename-class": [call("rename_symbol", file_path="accounts/models.py", symbol="UserRecord",
                             new_name="Account")],
}


def policy(body: dict[str, Any]) -> Reply:
    names = {t["function"]["name"] for t in body.get("tools", [])}
    task = next(str(m.get("content")) for m in body["messages"] if m.get("role") == "user")
    done = sum(1 for m in body["messages"] if m.get("role") == "assistant")
    task_id = "py-rename-class" if "UserRecord" in task else "py-rename-function-traps"
    steps = (SEMANTIC_STEPS if "rename_symbol" in names else TEXT_STEPS)[task_id]
    if done < len(steps):
        return tools_reply(steps[done])
    return tools_reply(call("finish", summary="renamed"))


if __name__ == "__main__":
    out = sys.argv[1] if len(sys.argv) > 1 else "eval-scripted"
    with FakeOpenAI([policy] * 400) as server:
        sys.exit(main(["eval", "--tasks", ",".join(TEXT_STEPS), "--base-url", server.base_url, "--model", "scripted",
                       "--out", out, "--repeat", "2"]))
