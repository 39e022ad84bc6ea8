"""Configuration: one pydantic model, fed by (lowest first) defaults, the user file
(`~/.config/codeagent/config.toml`), the project file (`.codeagent.toml`), environment variables and
command-line flags. Nothing else in the package reads `os.environ` for settings.

The project file is a workspace file, so untrusted input: it may only choose what agent.configtrust
lets a project choose, unless the user trusted its exact content (`codeagent trust`, agent.truststore).

Each family owns one section; a section's fields each carry a docstring (the description).
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    ValidationError,
    field_validator,
    model_validator,
)

from .configpaths import ENV_VARS as ENV_VARS  # re-exported: the table of variables that feed settings
from .configpaths import PROJECT_CONFIG, env_overrides, trust_store_path, user_config_path
from .configtrust import describe_ignored, split_project
from .errors import CodeagentError
from .truststore import TrustStore, TrustStoreError, digest


class ConfigError(CodeagentError):
    """The configuration is invalid; the message names the source and the field."""


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_assignment=True)


class WorkspaceSettings(_Section):
    max_read_bytes: int = Field(10 * 1024 * 1024, ge=1024, description="Largest file a tool reads, in bytes.")
    max_output_chars: int = Field(30_000, ge=1000, description="Largest tool output shown to a model, in characters.")
    search_engine: Literal["auto", "ripgrep", "python"] = Field(
        "auto", description="search_in_files engine: auto (ripgrep when installed, else Python), ripgrep, python.")
    search_timeout: float = Field(60.0, gt=0, description="Seconds one search_in_files call may take; then partial results.")


class LLMSettings(_Section):
    """The model endpoint: any OpenAI-compatible chat-completions server."""

    base_url: str | None = Field(None, description="Endpoint base URL, e.g. http://localhost:8000/v1; unset means OpenAI's.")
    api_key: str | None = Field(None, repr=False, description="API key; local servers accept any value.")
    model: str | None = Field(None, min_length=1, description="Model name as the endpoint knows it.")
    temperature: float = Field(0.2, ge=0.0, le=2.0, description="Sampling temperature.")
    max_tokens: int = Field(4096, ge=16, description="Most tokens the model may write in one reply.")
    timeout: float = Field(60.0, gt=0, description="Seconds one request may take before it counts as failed.")
    max_retries: int = Field(2, ge=0, le=10, description="Retries of a transient failure (429, 5xx, timeout, reset).")
    retry_backoff: float = Field(1.0, ge=0.0, description="Seconds before the first retry; doubles each time.")
    context_window: int = Field(32_768, ge=2048, description="The model's context window in tokens.")
    protocol: Literal["auto", "tools", "json"] = Field(
        "auto", description="tools: native tool calling; json: JSON actions in text; auto: tools, json if refused.")
    stream: bool = Field(False, description="Stream replies (tokens shown as they arrive).")

    @field_validator("base_url")
    @classmethod
    def _check_url(cls, value: str | None) -> str | None:
        if value is not None and not value.startswith(("http://", "https://")):
            raise ValueError(f"must start with http:// or https:// (got {value!r})")
        return value

    @model_validator(mode="after")
    def _reply_fits(self) -> LLMSettings:
        if self.max_tokens > self.context_window // 2:
            raise ValueError(f"max_tokens ({self.max_tokens}) must be at most half of context_window "
                             f"({self.context_window}), or the conversation has no room")
        return self


class AgentSettings(_Section):
    """Limits and behaviour of `codeagent run`."""

    max_steps: int = Field(30, ge=1, description="Most model turns in one run.")
    max_total_tokens: int = Field(1_000_000, ge=1000, description="Most tokens (prompt + reply, summed) in one run.")
    max_seconds: float = Field(1800.0, gt=0, description="Most wall-clock seconds one run may take.")
    keep_turns: int = Field(6, ge=1, description="Most recent turns kept whole in the context; older outputs elided.")
    git_checkpoint: bool = Field(False, description="Record a git checkpoint ref of the tree before each run.")


class LspSettings(_Section):
    """Language servers and the semantic tools (find_references, rename_symbol, ...)."""

    python_server: str = Field("basedpyright", description="Python server: basedpyright or pyright.")
    typescript_server: str = Field(
        "tsc", description="TypeScript/JavaScript server: tsc (TypeScript 7's native `tsc --lsp`, alias tsgo) "
        "or typescript-language-server (classic tsserver, alias tsls).")
    server_fallback: bool = Field(
        True, description="When tsc (TypeScript 7) rejects the project's tsconfig.json (e.g. `baseUrl`, "
        "`moduleResolution: node`), use typescript-language-server (TypeScript 5.x) for that workspace.")
    server_commands: dict[str, list[str]] = Field(
        default_factory=dict, description="Override the command line of a language's server, e.g. "
        "{python = [\"basedpyright-langserver\", \"--stdio\"]}; keys: python, typescript.")
    install_dir: str | None = Field(
        None, description="Folder for npm-installed servers (default: the user cache, ~/.cache/codeagent/servers).")
    auto_install: bool = Field(True, description="Install a missing npm server on first use (needs the npm registry).")
    ready_timeout: float = Field(
        180.0, gt=0, description="Seconds to wait for a server to finish indexing before a cross-file query.")
    request_timeout: float = Field(60.0, gt=0, description="Seconds one server request may take.")
    daemon: Literal["auto", "never"] = Field(
        "auto", description="auto: CLI semantic commands run in a per-workspace background process that keeps "
        "servers warm (started on demand, in-process if it cannot start); never: always in-process.")
    daemon_idle_timeout: float = Field(
        900.0, gt=0, description="Seconds without a request after which the background process exits.")
    server_idle_timeout: float = Field(
        600.0, gt=0, description="Seconds a language server in a running daemon or MCP server may go unused "
        "before it is stopped (the next request that needs it starts it again).")
    server_memory_limit_mb: int = Field(
        4096, ge=1, description="A language server of a daemon, MCP server or agent run holding more memory "
        "(MiB, its process tree's resident set) after a request is restarted before the next one; the next "
        "result says so.")
    query_cache: bool = Field(
        True, description="Let a running daemon answer a repeated read-only query (references, definition, type, "
        "calls, implementations, type hierarchy) from its cache while its file watch has seen no change since.")
    watch_files: bool = Field(
        True, description="Notice changed files through inotify folder watches (Linux) instead of stat'ing every "
        "source file before each request; turn off on network filesystems changed from other machines.")
    diagnostics_delta: bool = Field(
        True, description="After each edit, report the diagnostics it introduced (only when a server already runs).")
    diagnostics_wait: float = Field(
        5.0, ge=0, description="Seconds the diagnostics delta waits for the server's fresh diagnostics.")
    max_results: int = Field(500, ge=10, description="Most references or sites listed in one tool result.")
    check_timeout: float = Field(
        120.0, gt=0, description="Seconds a rename's check (`--check`, rename_symbol's check_diagnostics) waits for "
        "the server to re-check the changed files; files not checked by then fail the check.")


class SyntaxSettings(_Section):
    """The tree-sitter layer: the repo symbol index, the edit guard, get_ast."""

    guard: bool = Field(True, description="Undo an edit that adds syntax errors to a file (force=true keeps it).")
    index_cache: bool = Field(
        True, description="Keep the symbol index on disk in the workspace's .codeagent/ folder between sessions.")
    index_workers: int = Field(
        0, ge=0, le=64, description="Processes that parse files for the index; 0: one per CPU core.")
    parallel_min_files: int = Field(
        300, ge=1, description="Fewest files to (re)parse before the index uses several processes.")
    max_file_bytes: int = Field(
        2 * 1024 * 1024, ge=1024, description="Files larger than this are not parsed by the index or the guard.")
    progress: Literal["auto", "always", "never"] = Field(
        "auto", description="Progress bar while indexing a large tree: auto shows it when stderr is a terminal.")
    max_ast_lines: int = Field(300, ge=20, description="Most lines get_ast prints before it cuts the tree.")


class PolicyRule(_Section):
    """One rule of the shell policy. It matches a simple command (also one reached through a wrapper,
    `bash -c`, `eval`, `$(...)`, ...) when the program matches and every condition given holds."""

    id: str = Field(min_length=1, description="Name shown in a refusal; `disabled_rules` refers to it.")
    action: Literal["deny", "allow"] = Field("deny", description="deny refuses the command; allow exempts it from later rules.")
    programs: list[str] = Field(min_length=1, description="fnmatch patterns on the program's file name; '*' for any.")
    flags: list[str] = Field(default_factory=list, description="Options that trigger the rule: '-c' (also inside "
                             "'-Ic' or '-cCODE'), '--eval' (also '--eval=X' and unambiguous prefixes like '--ev').")
    value_options: list[str] = Field(default_factory=list, description="Options that take the next word as value.")
    stop_at: list[str] = Field(default_factory=list, description="Options after which the words are not the program's "
                               "own (python -m): option scanning stops there.")
    args: list[str] = Field(default_factory=list, description="Regular expressions; any argument matching any triggers.")
    paths: Literal["outside", "root"] | None = Field(None, description="outside: a path argument leaves the workspace "
                                                      "(or cannot be known); root: one is the workspace root itself.")
    path_args: list[str] = Field(default_factory=lambda: ["operands"], description="Which words are paths: "
                                 "'operands', 'last' (last operand), 'opt:-t' (an option's value), 'kv:of' (of=PATH).")
    redirects: Literal["outside"] | None = Field(None, description="outside: an output redirect writes outside the workspace.")
    stdin_code: bool = Field(False, description="Triggers when the program reads its code from a pipe, here-document, "
                             "process substitution or /dev/stdin instead of a file.")
    reason: str = Field("refused by a configured rule", min_length=1, description="What the refusal tells the model.")


class ShellPolicySettings(_Section):
    """Layer 1 of shell safety: rules checked on the parsed command before it runs."""

    enabled: bool = Field(True, description="Check commands against the rules before running them.")
    default_rules: bool = Field(True, description="Use the built-in rules (privilege escalation, destructive commands "
                                "outside the workspace, inline interpreter code, ...) after `rules`.")
    disabled_rules: list[str] = Field(default_factory=list, description="Ids of built-in rules to drop, e.g. "
                                      "[\"inline-code\"] to allow `python -c`.")
    rules: list[PolicyRule] = Field(default_factory=list, description="Your rules; checked before the built-in ones, "
                                    "first match wins.")
    writable_paths: list[str] = Field(
        default_factory=lambda: ["/tmp", "/var/tmp", "/dev/null", "/dev/stdout", "/dev/stderr", "/dev/fd",
                                 "/dev/tty", "/proc/self/fd"],
        description="Paths outside the workspace that commands may write (the sandbox's private /tmp, /dev/null).")


class ShellSettings(_Section):
    """run_command, run_shell_command, install_dependencies: the policy, the OS sandbox and limits."""

    policy: ShellPolicySettings = Field(default_factory=ShellPolicySettings, description="The command policy.")
    sandbox: Literal["auto", "bwrap", "landlock", "off"] = Field(
        "auto", description="OS sandbox: auto (bubblewrap, else Landlock), bwrap, landlock, or off (no sandbox: "
        "commands run with your full rights; only for machines that are themselves disposable).")
    default_timeout: float = Field(60.0, gt=0, description="Seconds a command may run when the call gives no timeout.")
    max_timeout: float = Field(600.0, gt=0, description="Most seconds a call may ask for.")
    install_timeout: float = Field(1800.0, gt=0, description="Seconds install_dependencies may take.")
    max_output_chars: int = Field(30_000, ge=1000, description="Output shown to the model: head and tail, the middle cut.")
    max_log_bytes: int = Field(256 * 1024 * 1024, ge=0, description="Most bytes of one command's full output kept "
                               "in .codeagent/shell/ when the output was cut (0: keep none).")
    keep_logs: int = Field(50, ge=0, description="Most full-output files kept in .codeagent/shell/ (oldest removed).")
    memory_limit_mb: int = Field(4096, ge=64, description="Memory cap of each command, in MiB: a cgroup limit on all "
                                 "its processes together where the system allows one (see memory_cgroup), and "
                                 "RLIMIT_DATA (heap and private mappings) on each process (under a cgroup not "
                                 "below 1024 MiB, which Node needs to start).")
    memory_cgroup: bool = Field(True, description="Run each command in its own cgroup limited to memory_limit_mb "
                                "(cgroup v2 delegation, systemd-run, or a writable cgroup v1 memory controller), "
                                "which also counts shared memory; false: the rlimits alone.")
    address_space_factor: float = Field(
        2.0, ge=0, description="Without a cgroup, RLIMIT_AS = memory_limit_mb x this (0: no RLIMIT_AS), since "
        "RLIMIT_DATA misses shared memory. Runtimes reserve more address space than they use; measured: Python "
        "starts in tens of MiB, Node 24 in 1.5 GiB (WebAssembly falls back to bounds checks), the JVM 17 needs about "
        "3 GiB (1 GiB class space, code cache, a heap it sizes to fit). 2 keeps them all working at the default "
        "4096 MiB; lower caps may need a higher factor for Node or Java.")
    max_processes: int = Field(4096, ge=16, description="Process cap (RLIMIT_NPROC; counts all processes of the "
                               "user, and the kernel does not apply it to root).")
    max_file_size_mb: int = Field(2048, ge=1, description="Largest file a command may write (RLIMIT_FSIZE), in MiB.")
    tmp_size_mb: int = Field(2048, ge=16, description="Size of the sandbox's private /tmp and home folder, in MiB.")
    sandbox_uid: int | None = Field(None, ge=1, description="User id inside the bubblewrap sandbox (default: yours, "
                                    "or 1000 when the agent runs as root: commands never run as root).")
    system_paths: list[str] = Field(
        default_factory=lambda: ["/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt"],
        description="Folders visible read-only inside the sandbox (those that exist).")
    read_only_paths: list[str] = Field(
        default_factory=lambda: ["~/.rustup", "~/go/pkg/mod"],
        description="More read-only folders (toolchains outside PATH); the PATH's own folders are added automatically.")
    writable_paths: list[str] = Field(default_factory=list, description="More writable folders besides the workspace.")
    hidden_paths: list[str] = Field(
        default_factory=lambda: ["~/.ssh", "~/.aws", "~/.config", "~/.netrc", "~/.*_history", "~/.gnupg",
                                 "~/.docker", "~/.kube", "~/.git-credentials", "~/.npmrc", "~/.pypirc",
                                 "~/.cargo/credentials", "~/.cargo/credentials.toml", "~/.m2/settings.xml",
                                 "~/.azure", "~/.gcloud", "~/.terraform.d", "~/.vault-token"],
        description="Secrets never visible inside the sandbox, even inside a visible folder (globs allowed).")
    env_allow: list[str] = Field(
        default_factory=lambda: ["PATH", "LANG", "LANGUAGE", "LC_*", "TZ", "TERM", "USER", "LOGNAME", "SHELL",
                                 "PYENV_*", "RUSTUP_HOME", "RUSTUP_TOOLCHAIN", "CARGO_HOME", "GOPATH", "GOROOT",
                                 "GOFLAGS", "GOTOOLCHAIN", "JAVA_HOME", "NVM_DIR", "NODE_PATH", "CI", "NO_COLOR",
                                 "FORCE_COLOR", "COLUMNS", "SOURCE_DATE_EPOCH", "PYTHONHASHSEED", "PYTHONUTF8"],
        description="Environment variables passed to commands (fnmatch patterns); nothing else is passed.")
    env_deny: list[str] = Field(
        default_factory=lambda: ["*KEY*", "*TOKEN*", "*SECRET*", "*PASSWORD*", "*PASSWD*", "*CREDENTIAL*",
                                 "*AUTH*", "*COOKIE*", "*SESSION*", "*PRIVATE*"],
        description="Patterns never passed even when allowed by a pattern (a name listed exactly in env_allow wins).")
    env_set: dict[str, str] = Field(default_factory=dict, description="Variables set for every command.")
    install_env_allow: list[str] = Field(
        default_factory=lambda: ["PIP_INDEX_URL", "PIP_EXTRA_INDEX_URL", "PIP_TRUSTED_HOST", "PIP_FIND_LINKS",
                                 "PIP_CERT", "PIP_NO_INDEX", "UV_INDEX_URL", "NPM_CONFIG_REGISTRY",
                                 "npm_config_registry", "YARN_REGISTRY", "GOPROXY", "GONOSUMDB", "GOPRIVATE",
                                 "GOSUMDB", "CARGO_REGISTRIES_*", "HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY",
                                 "http_proxy", "https_proxy", "no_proxy", "SSL_CERT_FILE", "SSL_CERT_DIR",
                                 "REQUESTS_CA_BUNDLE", "NODE_EXTRA_CA_CERTS"],
        description="Extra variables passed to install_dependencies only (registry mirrors, proxies, CAs).")


class McpSettings(_Section):
    """The MCP server (`codeagent mcp`). MCP clients reject very large tool results."""

    max_text_chars: int = Field(
        25_000, ge=1000, description="Largest text part of one MCP tool result, in characters; longer is cut with a note.")
    max_structured_chars: int = Field(
        50_000, ge=1000, description="Largest structured part (JSON) of one MCP tool result; big lists and strings are cut.")
    progress_interval: float = Field(
        2.0, gt=0, description="Seconds between progress notifications while a tool call runs.")


class Settings(_Section):
    """All settings. Sections are added by each tool family."""

    workspace: WorkspaceSettings = Field(default_factory=WorkspaceSettings, description="Files and output limits.")
    llm: LLMSettings = Field(default_factory=LLMSettings, description="The model endpoint.")
    agent: AgentSettings = Field(default_factory=AgentSettings, description="Agent run limits.")
    lsp: LspSettings = Field(default_factory=LspSettings, description="Language servers and semantic tools.")
    syntax: SyntaxSettings = Field(default_factory=SyntaxSettings, description="Tree-sitter index, guard, AST.")
    shell: ShellSettings = Field(default_factory=ShellSettings, description="Shell commands: policy, sandbox, limits.")
    mcp: McpSettings = Field(default_factory=McpSettings, description="The MCP server: result budget, progress.")

    _warnings: list[str] = PrivateAttr(default_factory=list)

    @property
    def warnings(self) -> list[str]:
        """What loading said about the sources: project settings it ignored, and why."""
        return list(self._warnings)




def deep_merge(base: dict[str, Any], extra: Mapping[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for key, value in extra.items():
        if isinstance(value, Mapping) and isinstance(out.get(key), dict):
            out[key] = deep_merge(out[key], value)
        else:
            out[key] = value
    return out


def _read_toml(path: Path) -> dict[str, Any]:
    data = read_config_bytes(path)
    return {} if data is None else parse_toml(path, data)


def read_config_bytes(path: Path) -> bytes | None:
    """A config file's bytes (None when absent): parsed and hashed from the same read."""
    try:
        with open(path, "rb") as fh:
            return fh.read()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read: {exc.strerror or exc}") from exc


def parse_toml(path: Path, data: bytes) -> dict[str, Any]:
    try:
        return tomllib.loads(data.decode("utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: not valid TOML: {exc}") from exc


def load_settings(
    root: str | os.PathLike[str] | None = None,
    *,
    overrides: Mapping[str, Any] | None = None,
    env: Mapping[str, str] | None = None,
    user_file: Path | None = None,
) -> Settings:
    """Merge every source into one validated Settings (see the module docstring for the order).
    The project file's security settings apply only when the user trusted its exact content;
    what it may not set is left out and said in `Settings.warnings`."""
    env = os.environ if env is None else env
    merged: dict[str, Any] = {}
    warnings: list[str] = []
    user_path = user_file.expanduser() if user_file else user_config_path(env)
    sources: list[tuple[str, dict[str, Any] | _ProjectLayer]] = [(str(user_path), _read_toml(user_path))]
    if root is not None:
        project = Path(root) / PROJECT_CONFIG
        raw = read_config_bytes(project)
        if raw is not None:
            sources.append((str(project), _ProjectLayer(root, raw, parse_toml(project, raw), env, warnings)))
    sources.append(("environment", env_overrides(env)))
    sources.append(("command line", dict(overrides or {})))
    for name, data in sources:
        merged = deep_merge(merged, data.allowed(merged) if isinstance(data, _ProjectLayer) else data)
        try:
            Settings.model_validate(merged)
        except ValidationError as exc:
            raise ConfigError(f"invalid configuration from {name}: {_explain(exc)}") from exc
    settings = Settings.model_validate(merged)
    settings._warnings = warnings
    return settings


class _ProjectLayer:
    """The project file's data: all of it when the user trusted this content, else only what a
    project may choose over the layers below (agent.configtrust)."""

    def __init__(self, root: str | os.PathLike[str], raw: bytes, data: dict[str, Any], env: Mapping[str, str],
                 warnings: list[str]):
        self.root, self.raw, self.data, self.env, self.warnings = root, raw, data, env, warnings

    def allowed(self, lower: dict[str, Any]) -> dict[str, Any]:
        if self._trusted():
            return self.data
        kept, ignored = split_project(self.data, lower, Settings, deep_merge)
        self.warnings.extend(describe_ignored(PROJECT_CONFIG, item) for item in ignored)
        return kept

    def _trusted(self) -> bool:
        store = TrustStore(trust_store_path(self.env))
        try:
            status = store.status(self.root, digest(self.raw))
        except TrustStoreError as exc:
            self.warnings.append(f"{PROJECT_CONFIG}: its security settings are ignored: {exc}")
            return False
        if status == "changed":
            self.warnings.append(
                f"{PROJECT_CONFIG} was trusted with `codeagent trust` but has changed since; its security "
                "settings are ignored until you trust it again")
        return status == "trusted"


def _explain(exc: ValidationError) -> str:
    return "; ".join(f"{'.'.join(str(p) for p in err['loc'])}: {err['msg']}" for err in exc.errors())
