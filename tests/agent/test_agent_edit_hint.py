"""The cross-file hint through the agent loop, over real HTTP (the tests' OpenAI-protocol server)
with the real Python language server: a text edit that renames a symbol used in other files tells
the model which files and names rename_symbol; unrelated edits (a local variable, a string, a
comment, a one-file symbol, a call site) say nothing; a text-only run and a run whose server
cannot start say nothing either, and every edit is made."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
from fake_openai import FakeOpenAI, call, tools_reply

from agent.bootstrap import open_context
from agent.config import LLMSettings, LspSettings, Settings
from agent.runner import run_agent
from agent.trajectory import read_events

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "pyproj"
DEF_LINE = "def area_of(shape: Circle | Square, *, precision: int = 2) -> float:"


def run(root: Path, steps: list[Any], toolset: str = "semantic",
        lsp: LspSettings | None = None) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The run's trajectory events and the chat requests the model was sent."""
    with FakeOpenAI([*steps, tools_reply(call("finish", summary="done"))]) as server:
        settings = Settings(llm=LLMSettings(base_url=server.base_url, model="m", retry_backoff=0.0),
                            **({"lsp": lsp} if lsp else {}))
        with open_context(root, settings=settings, run_id="hint") as ctx:
            outcome, _ = run_agent(ctx, settings, "edit", toolset=toolset)
            assert outcome.ok, outcome.message
            return read_events(ctx.workspace, "hint"), server.requests


def hints(events: list[dict[str, Any]]) -> list[str]:
    return [e["text"] for e in events if e["type"] == "note" and e.get("category") == "semantic_hint"]


def edits_made(events: list[dict[str, Any]]) -> int:
    return sum(1 for e in events if e["type"] == "tool_result" and e["name"] == "replace_in_file" and e["success"])


def replace(path: str, old: str, new: str) -> tuple[str, Any]:
    return call("replace_in_file", file_path=path, old_text=old, new_text=new)


@pytest.fixture
def root(tmp_path: Path) -> Path:
    shutil.copytree(FIXTURE, tmp_path / "p")
    return tmp_path / "p"


@pytest.mark.timeout(300)
def test_a_text_rename_of_a_cross_file_function_names_rename_symbol(root: Path) -> None:
    events, requests = run(root, [
        tools_reply(call("read_file", file_path="shapes/geometry.py")),
        tools_reply(replace("shapes/geometry.py", DEF_LINE, DEF_LINE.replace("area_of", "compute_area"))),
    ])
    assert edits_made(events) == 1 and "def compute_area(" in (root / "shapes/geometry.py").read_text()
    [hint] = hints(events)
    assert hint.startswith("`area_of` (shapes/geometry.py:30) is also used in 4 other files "
                           "(shapes/__init__.py, shapes/labels.py, shapes/registry.py, ...)"), hint
    assert "rename_symbol renames a symbol everywhere in one edit" in hint
    # the model reads it in the request after the edit
    assert hint in str(requests[2]["messages"])


@pytest.mark.timeout(300)
def test_changing_an_import_of_a_cross_file_symbol_gives_the_hint(root: Path) -> None:
    events, _ = run(root, [
        tools_reply(call("read_file", file_path="shapes/labels.py")),
        tools_reply(replace("shapes/labels.py", "from shapes.geometry import Circle, area_of",
                            "from shapes.geometry import Circle, compute_area")),
    ])
    [hint] = hints(events)
    assert hint.startswith("`area_of` (shapes/labels.py:3) is also used in"), hint
    assert "shapes/geometry.py" in hint


@pytest.mark.timeout(300)
def test_unrelated_edits_say_nothing(root: Path) -> None:
    events, _ = run(root, [
        tools_reply(call("read_file", file_path="shapes/geometry.py")),
        # a local variable that shadows the cross-file function's name (a defining line, indented)
        tools_reply(replace("shapes/geometry.py", "        area_of = shape.area()  # a local",
                            "        part = shape.area()  # a local")),
        tools_reply(replace("shapes/geometry.py", "        total += area_of\n", "        total += part\n")),
        # a string holding the name, and a comment naming it
        tools_reply(replace("shapes/registry.py", 'label = "area_of"', 'label = "area"')),
        tools_reply(replace("shapes/geometry.py", "# area_of rounds: this comment mentions area_of",
                            "# rounds: this comment mentions nothing")),
        # a comment that looks like a definition: the server finds no symbol there
        tools_reply(replace("shapes/geometry.py", "import math\n", "import math\n# def area_of(shape) lives below\n")),
        tools_reply(replace("shapes/geometry.py", "# def area_of(shape) lives below\n", "# see below\n")),
        # a function used in one file only
        tools_reply(replace("tests/test_shapes.py", "def test_area_of_circle()", "def test_circle_area()")),
        # a call site of the cross-file function (not its definition, not an import)
        tools_reply(replace("shapes/labels.py", "{area_of(size, precision=3)}", "{round(size.area(), 3)}")),
        # an import of a module swapped for another (a library's here), and a name dropped from an import
        tools_reply(replace("shapes/geometry.py", "import math\n", "import cmath as math\n")),
        tools_reply(replace("shapes/registry.py", "from shapes.geometry import Circle, Square, area_of",
                            "from shapes.geometry import Circle, Square")),
    ])
    assert edits_made(events) == 10
    assert hints(events) == []


@pytest.mark.timeout(300)
def test_a_text_only_run_gets_no_hint(root: Path) -> None:
    events, _ = run(root, [
        tools_reply(call("read_file", file_path="shapes/geometry.py")),
        tools_reply(replace("shapes/geometry.py", DEF_LINE, DEF_LINE.replace("area_of", "compute_area"))),
    ], toolset="text")
    assert edits_made(events) == 1 and hints(events) == []


@pytest.mark.timeout(300)
def test_a_server_that_cannot_start_leaves_the_edit_alone_and_silent(root: Path) -> None:
    broken = LspSettings(server_commands={"python": [str(root / "no-such-server")]})
    events, _ = run(root, [
        tools_reply(call("read_file", file_path="shapes/geometry.py")),
        tools_reply(replace("shapes/geometry.py", DEF_LINE, DEF_LINE.replace("area_of", "compute_area"))),
    ], lsp=broken)
    assert edits_made(events) == 1 and hints(events) == []
    assert "def compute_area(" in (root / "shapes/geometry.py").read_text()
