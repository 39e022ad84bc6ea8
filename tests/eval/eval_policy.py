"""The scripted model of the eval tests (a policy for the fake OpenAI server). A module of its own,
not conftest.py: `from conftest import` is ambiguous when several test folders run together."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "agent"))  # fake_openai lives there

from fake_openai import Fault, Reply, call, tools_reply  # noqa: E402


def task_of(body: dict[str, Any]) -> str:
    """The task text of a chat request (in the first user message)."""
    for m in body.get("messages", []):
        if m.get("role") == "user":
            content = m.get("content")
            return content if isinstance(content, str) else json.dumps(content)
    return ""


def answered(body: dict[str, Any]) -> bool:
    return any(m.get("role") == "tool" for m in body.get("messages", []))


def policy(body: dict[str, Any]) -> Reply | Fault:
    """A model in two steps: write 42 (on a task that asks for 42), then finish; on the other
    task it gives up at once."""
    text = task_of(body)
    if "43" in text:
        return tools_reply(call("finish", summary="I cannot do this"))
    if not answered(body):
        return tools_reply(call("write_file", file_path="answer.txt", content="42\n"))
    return tools_reply(call("finish", summary="wrote 42"))
