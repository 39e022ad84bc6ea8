"""Every registered tool's schema (whoever added the tool), and the registry as the one boundary
where arguments are checked and exceptions become results."""

from __future__ import annotations

import json

import jsonschema
import pytest
from pydantic import BaseModel, Field

from agent.bootstrap import load_all_tools
from agent.errors import ToolFailure
from agent.registry import TOOL_NAME, Registry, Tool, tool
from agent.result import ToolResult
from agent.toolcontext import ToolContext

ALL = load_all_tools().tools("all", include_agent=True)
FOUNDATION = {
    "read_file": ["file_path"], "write_file": ["file_path", "content"], "list_directory": [],
    "find_files": ["pattern"], "search_in_files": ["pattern"],
    "replace_in_file": ["file_path", "old_text", "new_text"], "apply_patch": ["patch"],
}


def test_foundation_tools_have_the_contracted_names_and_parameters() -> None:
    tools = {t.name: t for t in ALL}
    for name, required in FOUNDATION.items():
        schema = tools[name].parameters_schema()
        assert schema.get("required", []) == required, name
    props = {name: set(tools[name].parameters_schema()["properties"]) for name in FOUNDATION}
    assert props["read_file"] == {"file_path", "start_line", "end_line"}
    assert props["list_directory"] == {"path", "depth"}
    assert props["find_files"] == {"pattern", "path"}
    assert props["search_in_files"] == {"pattern", "path", "regex", "case_sensitive", "glob", "context_lines",
                                        "max_results"}
    assert props["replace_in_file"] == {"file_path", "old_text", "new_text", "replace_all", "force"}
    assert props["apply_patch"] == {"patch", "force"}
    assert props["write_file"] == {"file_path", "content", "force"}
    defaults = tools["search_in_files"].parameters_schema()["properties"]
    assert (defaults["path"]["default"], defaults["regex"]["default"], defaults["case_sensitive"]["default"],
            defaults["context_lines"]["default"], defaults["max_results"]["default"]) == (".", True, True, 0, 200)


@pytest.mark.parametrize("t", ALL, ids=[t.name for t in ALL])
def test_every_tool_schema_is_valid(t: Tool) -> None:
    schema = t.openai_schema()
    json.dumps(schema)  # plain JSON, nothing else
    assert schema["type"] == "function"
    fn = schema["function"]
    assert TOOL_NAME.fullmatch(fn["name"]) and fn["name"] == t.name
    assert isinstance(fn["description"], str) and len(fn["description"]) >= 20
    params = fn["parameters"]
    jsonschema.validators.validator_for(params).check_schema(params)
    assert params["type"] == "object" and params["additionalProperties"] is False
    assert "$defs" not in json.dumps(params) and "$ref" not in json.dumps(params)
    for name, prop in params["properties"].items():
        assert prop.get("description", "").strip(), f"{t.name}.{name} has no description"
        if "default" in prop:
            jsonschema.validate(prop["default"], prop)  # the default is itself a valid value
    for name in params.get("required", []):
        assert name in params["properties"], f"{t.name}: required {name} is not a property"
    assert t.toolset in ("text", "semantic", "agent")
    if t.mutating and t.name in FOUNDATION:
        assert params["properties"]["force"]["default"] is False, f"{t.name}: force must exist and be off"


def test_tool_names_are_unique_and_toolsets_nest() -> None:
    registry = load_all_tools()
    names = [t.name for t in ALL]
    assert len(names) == len(set(names))
    text = {t.name for t in registry.tools("text")}
    semantic = {t.name for t in registry.tools("semantic")}
    assert set(FOUNDATION) <= text <= semantic == {t.name for t in registry.tools("all")}


# ----------------------------------------------------------------- the boundary


class Args(BaseModel):
    mode: str = Field(description="What to do.")
    n: int = Field(1, ge=1, description="A number.")


def _registry() -> Registry:
    reg = Registry()

    @tool(name="probe", model=Args, registry=reg)
    def probe(ctx: ToolContext, args: Args) -> ToolResult:
        """A tool that misbehaves on request, to test the boundary."""
        if args.mode == "fail":
            raise ToolFailure("expected failure")
        if args.mode == "oserror":
            open(ctx.workspace.root / "missing" / "x")  # noqa: SIM115
        if args.mode == "bug":
            table: dict[str, ToolResult] = {}
            return table["nope"]
        if args.mode == "huge":
            return ToolResult.ok("x" * 100_000 + "END")
        if args.mode == "not_a_result":
            return "oops"  # type: ignore[return-value]
        return ToolResult.ok(f"ok {args.n}")

    return reg


def test_registry_turns_every_exception_into_a_result(ctx: ToolContext) -> None:
    reg = _registry()
    assert reg.call(ctx, "probe", {"mode": "ok", "n": 2}).output == "ok 2"
    assert reg.call(ctx, "probe", '{"mode": "ok"}').output == "ok 1"
    assert reg.call(ctx, "probe", {"mode": "fail"}).error == "expected failure"
    os_err = reg.call(ctx, "probe", {"mode": "oserror"})
    assert not os_err.success and "No such file or directory" in (os_err.error or "")
    bug = reg.call(ctx, "probe", {"mode": "bug"})
    assert "internal error KeyError" in (bug.error or "") and "traceback" in bug.data
    assert "not ToolResult" in (reg.call(ctx, "probe", {"mode": "not_a_result"}).error or "")


def test_registry_bounds_output_and_says_so(ctx: ToolContext) -> None:
    res = _registry().call(ctx, "probe", {"mode": "huge"})
    limit = ctx.settings.workspace.max_output_chars
    assert res.success and len(res.output) < limit + 200 and res.output.endswith("END")
    assert "characters cut from the middle" in res.output and res.data["output_truncated"] is True


@pytest.mark.parametrize(("args", "message"), [
    ("{bad", "arguments are not valid JSON"),
    ("[]", "arguments must be a JSON object"),
    ({"mode": "ok", "extra": 1}, "unknown parameter(s) extra; the parameters are: mode, n"),
    ({"n": 2}, "mode: Field required"),
    ({"mode": "ok", "n": 0}, "n: Input should be greater than or equal to 1"),
])
def test_bad_arguments_are_usage_errors(ctx: ToolContext, args: object, message: str) -> None:
    res = _registry().call(ctx, "probe", args)  # type: ignore[arg-type]
    assert not res.success and message in (res.error or "") and res.data == {"usage_error": True}


def test_registering_badly_is_refused() -> None:
    reg = Registry()
    with pytest.raises(ValueError, match="must match"):
        tool(name="bad name!", model=Args, registry=reg)
    with pytest.raises(ValueError, match="needs a docstring"):
        tool(name="nodoc", model=Args, registry=reg)(lambda ctx, args: ToolResult.ok(""))
    tool(name="twice", model=Args, registry=reg)(_doc)
    with pytest.raises(ValueError, match="registered twice"):
        tool(name="twice", model=Args, registry=reg)(_doc)
    assert "unknown tool 'zzz'; known tools: twice" in (reg.call(None, "zzz", {}).error or "")  # type: ignore[arg-type]


def _doc(ctx: ToolContext, args: Args) -> ToolResult:
    """Documented."""
    return ToolResult.ok("")
