"""The tool registry: each tool is one pydantic input model + one function.

The registry turns input models into OpenAI function-calling schemas, validates arguments, and is
the one boundary where exceptions become ToolResults: no tool ever raises into its caller. That
includes lsp_bridge's BridgeError (see agent/errors.py for the whole tree).
"""

from __future__ import annotations

import json
import re
import traceback
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, TypeVar

from pydantic import BaseModel, ValidationError

from lsp_bridge.errors import BridgeError

from .errors import CodeagentError, ToolFailure, ToolUsageError
from .result import ToolResult, bounded

if TYPE_CHECKING:
    from .toolcontext import ToolContext

Toolset = Literal["text", "semantic", "agent"]
TOOLSETS: dict[str, tuple[Toolset, ...]] = {
    "text": ("text",),
    "semantic": ("text", "semantic"),
    "all": ("text", "semantic"),
}

TOOL_NAME = re.compile(r"[a-zA-Z0-9_-]{1,64}")  # what OpenAI and MCP clients accept
M = TypeVar("M", bound=BaseModel)
ToolFn = Callable[["ToolContext", Any], ToolResult]


@dataclass(frozen=True, slots=True)
class Tool:
    """One tool: its name, input model, function and what kind of tool it is."""

    name: str
    model: type[BaseModel]
    fn: ToolFn
    description: str
    toolset: Toolset
    mutating: bool = False  # changes files (journaled, guarded, needs --confirm)
    shell: bool = False  # runs commands (needs --confirm)

    @property
    def read_only(self) -> bool:
        return not (self.mutating or self.shell)

    def parameters_schema(self) -> dict[str, Any]:
        schema = _inline_refs(self.model.model_json_schema())
        schema.pop("title", None)
        schema.pop("description", None)
        for prop in schema.get("properties", {}).values():
            prop.pop("title", None)
        schema.setdefault("properties", {})
        schema["type"] = "object"
        schema["additionalProperties"] = False
        return schema

    def openai_schema(self) -> dict[str, Any]:
        return {
            "type": "function",
            "function": {"name": self.name, "description": self.description, "parameters": self.parameters_schema()},
        }


class Registry:
    def __init__(self) -> None:
        self._tools: dict[str, Tool] = {}

    def add(self, tool: Tool) -> None:
        if tool.name in self._tools:
            raise ValueError(f"tool {tool.name!r} registered twice")
        self._tools[tool.name] = tool

    def get(self, name: str) -> Tool:
        try:
            return self._tools[name]
        except KeyError:
            known = ", ".join(sorted(self._tools))
            raise ToolUsageError(f"unknown tool {name!r}; known tools: {known}") from None

    def names(self) -> list[str]:
        return sorted(self._tools)

    def tools(self, toolset: str = "all", *, include_agent: bool = False) -> list[Tool]:
        if toolset not in TOOLSETS:
            raise ToolUsageError(f"unknown toolset {toolset!r}; choose one of {', '.join(TOOLSETS)}")
        wanted = set(TOOLSETS[toolset]) | ({"agent"} if include_agent else set())
        return [t for n, t in sorted(self._tools.items()) if t.toolset in wanted]

    def validate(self, name: str, args: str | dict[str, Any] | None) -> tuple[Tool, BaseModel]:
        """Check a call before running it. Raises ToolUsageError with a message a model can act on."""
        tool = self.get(name)
        if args is None or args == "":
            args = {}
        if isinstance(args, str):
            try:
                args = json.loads(args)
            except json.JSONDecodeError as exc:
                raise ToolUsageError(f"{name}: arguments are not valid JSON ({exc.msg} at char {exc.pos})") from exc
        if not isinstance(args, dict):
            raise ToolUsageError(f"{name}: arguments must be a JSON object, got {type(args).__name__}")
        known = {n for n, f in tool.model.model_fields.items()} | {
            f.alias for f in tool.model.model_fields.values() if f.alias
        }
        unknown = sorted(str(k) for k in args if k not in known)
        if unknown and tool.model.model_config.get("extra") != "allow":
            raise ToolUsageError(
                f"{name}: unknown parameter(s) {', '.join(unknown)}; the parameters are: {', '.join(sorted(known))}"
            )
        try:
            return tool, tool.model.model_validate(args)
        except ValidationError as exc:
            raise ToolUsageError(f"{name}: invalid arguments: {explain_validation(exc)}") from exc

    def execute(self, ctx: ToolContext, tool: Tool, params: BaseModel) -> ToolResult:
        """Run a validated call; every exception becomes a failed ToolResult here, and only here.
        The output is cut to the session's budget (workspace.max_output_chars), saying so."""
        try:
            for look in ctx.before_call:
                look()
            result = tool.fn(ctx, params)
        except (ToolFailure, CodeagentError) as exc:
            return ToolResult.fail(str(exc))
        except BridgeError as exc:  # the one place the bridge's errors become results
            return ToolResult.fail(bridge_message(tool.name, exc))
        except OSError as exc:  # permissions, disk full, ...: the model can act on the message
            where = f" ({exc.filename})" if exc.filename else ""
            return ToolResult.fail(f"{tool.name}: {exc.strerror or exc}{where}")
        except Exception as exc:  # a bug in a tool must not crash the loop
            tb = traceback.format_exc(limit=3)
            return ToolResult.fail(f"{tool.name}: internal error {type(exc).__name__}: {exc}", traceback=tb)
        if not isinstance(result, ToolResult):
            return ToolResult.fail(f"{tool.name}: internal error: returned {type(result).__name__}, not ToolResult")
        limit = ctx.settings.workspace.max_output_chars
        if len(result.output) > limit:
            result.output = bounded(result.output, limit)
            result.data.setdefault("output_truncated", True)
        return result

    def call(self, ctx: ToolContext, name: str, args: str | dict[str, Any] | None) -> ToolResult:
        """Validate and run; usage errors come back as failed results too (for the agent loop)."""
        try:
            tool, params = self.validate(name, args)
        except ToolUsageError as exc:
            return ToolResult.fail(str(exc), usage_error=True)
        return self.execute(ctx, tool, params)


REGISTRY = Registry()


def tool(
    *, name: str, model: type[M], toolset: Toolset = "text", mutating: bool = False, shell: bool = False,
    registry: Registry | None = None,
) -> Callable[[Callable[[ToolContext, M], ToolResult]], Callable[[ToolContext, M], ToolResult]]:
    """Register a function as a tool. Its docstring is the description the model reads."""

    if not TOOL_NAME.fullmatch(name):
        raise ValueError(f"tool name {name!r} must match {TOOL_NAME.pattern}")

    def wrap(fn: Callable[[ToolContext, M], ToolResult]) -> Callable[[ToolContext, M], ToolResult]:
        doc = " ".join((fn.__doc__ or "").split())
        if not doc:
            raise ValueError(f"tool {name!r} needs a docstring: it is the model's description")
        (registry or REGISTRY).add(Tool(name, model, fn, doc, toolset, mutating, shell))
        return fn

    return wrap


def bridge_message(tool_name: str, exc: BridgeError) -> str:
    """`tool: [what it was doing: ]the bridge's message`. Code that knows more context adds it
    with `exc.add_note(...)` and re-raises, rather than translating the error itself."""
    where = " ".join(getattr(exc, "__notes__", ()))
    return f"{tool_name} {where}: {exc}" if where else f"{tool_name}: {exc}"


def explain_validation(exc: ValidationError) -> str:
    parts = []
    for err in exc.errors():
        loc = ".".join(str(p) for p in err["loc"]) or "(arguments)"
        parts.append(f"{loc}: {err['msg']}")
    return "; ".join(parts)


def _inline_refs(schema: dict[str, Any]) -> dict[str, Any]:
    """OpenAI-compatible servers differ in $ref support; inline every $defs reference."""
    defs = schema.pop("$defs", {})

    def walk(node: Any) -> Any:
        if isinstance(node, dict):
            ref = node.get("$ref")
            if isinstance(ref, str) and ref.startswith("#/$defs/"):
                target = dict(defs[ref.split("/")[-1]])
                target.pop("title", None)
                merged = {**walk(target), **{k: walk(v) for k, v in node.items() if k != "$ref"}}
                return merged
            return {k: walk(v) for k, v in node.items()}
        if isinstance(node, list):
            return [walk(v) for v in node]
        return node

    out = walk(schema)
    assert isinstance(out, dict)
    return out


def toolset_names(tools: Iterable[Tool]) -> list[str]:
    return [t.name for t in tools]
