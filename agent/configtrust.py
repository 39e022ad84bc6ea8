"""Which settings a project config file (`.codeagent.toml`, a workspace file and so untrusted input)
may choose, and the filter that applies that to the file's data.

Every leaf field of `Settings` has one class in `FIELD_TRUST` (a test fails on a field without one):

- project  — a project may set it freely (the model, its sampling, syntax and index behaviour, ...);
- tighten  — a limit: a project may lower it, never raise it above what the layers below (defaults,
             the user's config) set (for a switch, false is the tighter value);
- user     — a security setting: only the user config, the environment, a flag, or a project file the
             user trusted with `codeagent trust` may set it. Anything that widens what commands may do,
             decides where secrets go, or names a program codeagent runs on the host is one, and so is
             any future setting that is a command line codeagent executes.

This module knows nothing of the models' content (agent.config imports it, not the reverse).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, ValidationError

Trust = Literal["project", "tighten", "user"]

FIELD_TRUST: dict[str, Trust] = {
    "workspace.max_read_bytes": "tighten",
    "workspace.max_output_chars": "tighten",
    "workspace.search_engine": "project",
    "workspace.search_timeout": "tighten",
    # where the API key is sent, and the key itself: only the user
    "llm.base_url": "user",
    "llm.api_key": "user",
    "llm.model": "project",
    "llm.temperature": "project",
    "llm.max_tokens": "project",
    "llm.timeout": "project",
    "llm.max_retries": "project",
    "llm.retry_backoff": "project",
    "llm.context_window": "project",
    "llm.protocol": "project",
    "llm.stream": "project",
    "agent.max_steps": "tighten",
    "agent.max_total_tokens": "tighten",
    "agent.max_seconds": "tighten",
    "agent.keep_turns": "project",
    "agent.git_checkpoint": "project",  # host git runs neutralised (agent.hostgit)
    "lsp.python_server": "project",  # a built-in name only: lsp_bridge.servers.get_spec refuses others
    "lsp.typescript_server": "project",
    "lsp.server_commands": "user",  # a program started on the host, outside the sandbox
    "lsp.install_dir": "user",  # where the server programs started on the host are found
    "lsp.auto_install": "tighten",
    "lsp.ready_timeout": "tighten",
    "lsp.request_timeout": "tighten",
    "lsp.daemon": "project",
    "lsp.daemon_idle_timeout": "tighten",
    "lsp.server_idle_timeout": "tighten",
    "lsp.server_memory_limit_mb": "tighten",
    "lsp.query_cache": "tighten",  # a project may turn it off, never back on
    "lsp.watch_files": "project",
    "lsp.diagnostics_delta": "project",
    "lsp.diagnostics_wait": "tighten",
    "lsp.check_timeout": "tighten",
    "lsp.server_fallback": "project",  # a choice between two built-in servers
    "lsp.max_results": "tighten",
    "syntax.guard": "project",
    "syntax.index_cache": "project",
    "syntax.index_workers": "project",
    "syntax.parallel_min_files": "project",
    "syntax.max_file_bytes": "tighten",
    "syntax.progress": "project",
    "syntax.max_ast_lines": "tighten",
    "shell.policy.enabled": "user",
    "shell.policy.default_rules": "user",
    "shell.policy.disabled_rules": "user",
    "shell.policy.rules": "user",  # an allow rule exempts commands from the built-in ones
    "shell.policy.writable_paths": "user",
    "shell.sandbox": "user",
    "shell.default_timeout": "tighten",
    "shell.max_timeout": "tighten",
    "shell.install_timeout": "tighten",
    "shell.max_output_chars": "tighten",
    "shell.max_log_bytes": "tighten",
    "shell.keep_logs": "tighten",
    "shell.memory_limit_mb": "tighten",
    "shell.max_processes": "tighten",
    "shell.max_file_size_mb": "tighten",
    "shell.tmp_size_mb": "tighten",
    "shell.memory_cgroup": "user",  # false drops the cap that counts shared memory
    "shell.address_space_factor": "user",  # 0 means no RLIMIT_AS: lower is not tighter
    "shell.sandbox_uid": "user",
    "shell.system_paths": "user",
    "shell.read_only_paths": "user",
    "shell.writable_paths": "user",
    "shell.hidden_paths": "user",
    "shell.env_allow": "user",
    "shell.env_deny": "user",
    "shell.env_set": "user",
    "shell.install_env_allow": "user",
    "mcp.max_text_chars": "tighten",
    "mcp.max_structured_chars": "tighten",
    "mcp.progress_interval": "project",
}

TRUST_HINT = "a security setting; only your user config or `codeagent trust` can allow it"


def leaf_paths(model: type[BaseModel], prefix: str = "") -> Iterator[str]:
    """Dotted paths of every leaf field: a field whose type is a section model is walked into;
    anything else (numbers, strings, lists, dicts, lists of rule models) is a leaf."""
    for name, info in model.model_fields.items():
        path = f"{prefix}{name}"
        section = _section_type(info.annotation)
        if section is None:
            yield path
        else:
            yield from leaf_paths(section, path + ".")


def _section_type(annotation: Any) -> type[BaseModel] | None:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    return None


def trust_of(path: str, known: frozenset[str]) -> Trust | None:
    """The class of a leaf path; None for a path that is not a Settings field (validation reports
    it); "user" for a field someone forgot to classify (fail safe)."""
    if path in FIELD_TRUST:
        return FIELD_TRUST[path]
    return "user" if path in known else None


SECRET_FIELDS = frozenset({"llm.api_key"})  # never printed


def show(value: Any, path: str = "") -> str:
    """A value as the user wrote it (TOML-like): strings quoted, true/false; secrets hidden."""
    if path in SECRET_FIELDS:
        return "<hidden>"
    try:
        return json.dumps(value, ensure_ascii=False, default=str)
    except (TypeError, ValueError):
        return repr(value)


@dataclass(frozen=True, slots=True)
class ProjectSetting:
    path: str
    value: Any
    trust: Trust | None
    loosens: Any = None  # for an ignored limit: the value it would have loosened


def flatten(data: Mapping[str, Any], known: frozenset[str], prefix: str = "") -> Iterator[tuple[str, Any]]:
    """(leaf path, value) of a config file's data; a table that is not a leaf is walked into."""
    for key, value in data.items():
        path = f"{prefix}{key}"
        if isinstance(value, Mapping) and trust_of(path, known) is None and any(
                k.startswith(path + ".") for k in known):
            yield from flatten(value, known, path + ".")
        else:
            yield path, value


def nest(path: str, value: Any) -> dict[str, Any]:
    out: dict[str, Any] = {}
    node = out
    parts = path.split(".")
    for part in parts[:-1]:
        node = node.setdefault(part, {})
    node[parts[-1]] = value
    return out


def _get(model: BaseModel, path: str) -> Any:
    obj: Any = model
    for part in path.split("."):
        obj = getattr(obj, part)
    return obj


def split_project(data: Mapping[str, Any], lower: dict[str, Any], settings_cls: type[BaseModel],
                  merge: Callable[[dict[str, Any], Mapping[str, Any]], dict[str, Any]],
                  ) -> tuple[dict[str, Any], list[ProjectSetting]]:
    """The part of an untrusted project file's `data` that applies over `lower` (the merged layers
    below it, already valid), and the settings it ignores (security settings, loosened limits).
    A value that is not valid is kept, so validation names the file and the field."""
    known = frozenset(leaf_paths(settings_cls))
    base = settings_cls.model_validate(lower)
    kept: dict[str, Any] = {}
    ignored: list[ProjectSetting] = []
    for path, value in flatten(data, known):
        trust = trust_of(path, known)
        if trust == "user":
            ignored.append(ProjectSetting(path, value, trust))
            continue
        if trust == "tighten":
            try:
                candidate = settings_cls.model_validate(merge(lower, nest(path, value)))
            except ValidationError:
                pass  # invalid: kept, and reported with the file's name
            else:
                new, old = _get(candidate, path), _get(base, path)
                if new > old:
                    ignored.append(ProjectSetting(path, value, trust, loosens=old))
                    continue
        kept = merge(kept, nest(path, value))
    return kept, ignored


def describe_ignored(source: str, item: ProjectSetting) -> str:
    if item.trust == "tighten":
        return (f"{source}: ignored {item.path} = {show(item.value, item.path)} (it loosens the limit {show(item.loosens)} "
                "of your user config or the defaults; a project may only tighten limits)")
    return f"{source}: ignored {item.path} = {show(item.value, item.path)} ({TRUST_HINT})"


def security_settings(data: Mapping[str, Any], settings_cls: type[BaseModel]) -> list[tuple[str, Any]]:
    """(path, value) of the security settings in a config file's data (what `codeagent trust` shows)."""
    known = frozenset(leaf_paths(settings_cls))
    return [(p, v) for p, v in flatten(data, known) if trust_of(p, known) == "user"]


def other_settings(data: Mapping[str, Any], settings_cls: type[BaseModel]) -> list[tuple[str, Any]]:
    known = frozenset(leaf_paths(settings_cls))
    return [(p, v) for p, v in flatten(data, known) if trust_of(p, known) != "user"]
