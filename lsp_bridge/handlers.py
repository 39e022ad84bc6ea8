"""What a server asks of the bridge's client (configuration, registrations, progress, logs,
diagnostics, folders, edits), answered on the client's protocol state."""

from __future__ import annotations

import re
import time
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from lsprotocol import types as lsp

from lsp_bridge.readiness import expect_enumeration

if TYPE_CHECKING:
    from lsp_bridge.client import BridgeClient

_FOUND_FILES = re.compile(r"Found (\d+) source files?|No source files found")
# pyright logs these when it (re)loads its configuration; the file enumeration follows.
_RECONFIGURING = re.compile(r"^(Loading (pyproject\.toml|configuration) file|No include entries specified|"
                            r"No configuration file found|Starting service instance)")


def heard_plain(client: BridgeClient, raw: dict[str, Any]) -> bool:
    """Handle a well-formed log or progress notification as parsed JSON (True), else leave the
    message to pygls (False). Servers send a few around every request (tsgo logs ~5 lines after
    each answer, pyright's progress comes just before it), and typing each through pygls cost
    ~0.1-0.3 ms right when the answer is due."""
    if client.protocol._shutdown or "id" in raw:  # (pygls ignores messages once shut down)
        return False
    log_text, progress = plain_log_message(raw), plain_progress(raw)
    if log_text is None and progress is None:
        return False
    try:
        if log_text is not None:
            heard_log(client, log_text)
        elif progress is not None:
            heard_progress(client, *progress)
    except Exception as exc:  # as pygls does for a handler: noted, the reader goes on
        client.stderr_tail.append(f"[handler error] {type(exc).__name__}: {exc}")
    return True


def answered_plain(client: BridgeClient, raw: dict[str, Any]) -> bool:
    """Answer a well-formed `window/workDoneProgress/create` request (null, as the typed handler
    does) straight from parsed JSON (True), else leave the message to pygls (False). pyright asks
    it at the start of every references request and computes only once it has our answer, so the
    answer is on the request's critical path; typing it through pygls cost ~0.1-0.2 ms there."""
    if (client.protocol._shutdown or raw.get("method") != lsp.WINDOW_WORK_DONE_PROGRESS_CREATE
            or raw.keys() != {"jsonrpc", "id", "method", "params"} or raw["jsonrpc"] != "2.0"):
        return False
    msg_id, params = raw["id"], raw["params"]
    if (type(msg_id) not in (str, int) or type(params) is not dict or params.keys() != {"token"}
            or type(params["token"]) not in (str, int)):
        return False
    try:  # pygls' framing and writer; a broken pipe is noted as pygls' path notes it
        client.protocol._send_data({"jsonrpc": "2.0", "id": msg_id, "result": None})
    except Exception as exc:
        client.stderr_tail.append(f"[handler error] {type(exc).__name__}: {exc}")
    return True


def heard_log(client: BridgeClient, message: str) -> None:
    """A window/logMessage: kept in the client's log tail; pyright's say when it (re)enumerates."""
    client.log.append(message[:2000])
    match = _FOUND_FILES.search(message)
    if _RECONFIGURING.match(message):
        expect_enumeration("pyright", client)
    elif match:
        client.found_files = int(match.group(1)) if match.group(1) else 0
        client.enumeration_due = None
    client._notify_change()


def heard_progress(client: BridgeClient, token: str, value: Any) -> None:
    """A $/progress notification: which work the server says it is doing (readiness waits on it)."""
    kind = value.get("kind") if isinstance(value, Mapping) else getattr(value, "kind", None)
    if kind == "begin":
        title = value.get("title") if isinstance(value, Mapping) else getattr(value, "title", "")
        client.progress_active[token] = str(title or "")
        client.progress_heard[token] = time.monotonic()
    elif kind == "report" and token in client.progress_active:
        client.progress_heard[token] = time.monotonic()
    elif kind == "end":
        client.progress_active.pop(token, None)
        client.progress_heard.pop(token, None)
        client.progress_done += 1
    client._notify_change()


def _notification(raw: dict[str, Any], method: str) -> dict[str, Any] | None:
    """The params object of a well-formed notification of `method` as parsed JSON, else None."""
    if raw.get("method") != method or raw.keys() != {"jsonrpc", "method", "params"} or raw["jsonrpc"] != "2.0":
        return None
    params = raw["params"]
    return params if type(params) is dict else None


def plain_progress(raw: dict[str, Any]) -> tuple[str, Any] | None:
    """(token, value) of a well-formed $/progress notification as parsed JSON (what pygls would
    type as ProgressParams: an integer or string token; the value stays JSON), else None."""
    params = _notification(raw, lsp.PROGRESS)
    if params is None or params.keys() != {"token", "value"}:
        return None
    token = params["token"]
    return (str(token), params["value"]) if type(token) in (str, int) else None


def plain_log_message(raw: dict[str, Any]) -> str | None:
    """The message of a well-formed window/logMessage notification as parsed JSON (what pygls
    would type as LogMessageParams: a string message, a MessageType 1-5), else None (pygls then
    types it, and words its refusal, as before)."""
    params = _notification(raw, lsp.WINDOW_LOG_MESSAGE)
    if params is None or params.keys() != {"type", "message"}:
        return None
    message, kind = params["message"], params["type"]
    return message if type(message) is str and type(kind) is int and 1 <= kind <= 5 else None


def install_handlers(client: BridgeClient) -> None:
    """Answer what the server asks of the client and keep the state it reports on `client`."""
    @client.feature(lsp.WORKSPACE_CONFIGURATION)
    def configuration(params: lsp.ConfigurationParams) -> list[Any]:
        return [client._settings(item.section) for item in params.items]

    @client.feature(lsp.CLIENT_REGISTER_CAPABILITY)
    def register(params: lsp.RegistrationParams) -> None:
        for reg in params.registrations:
            client.registrations[reg.id] = reg

    @client.feature(lsp.CLIENT_UNREGISTER_CAPABILITY)
    def unregister(params: lsp.UnregistrationParams) -> None:
        for unreg in params.unregisterations:
            client.registrations.pop(unreg.id, None)

    @client.feature(lsp.WINDOW_WORK_DONE_PROGRESS_CREATE)
    def progress_create(params: lsp.WorkDoneProgressCreateParams) -> None:
        return None

    @client.feature(lsp.PROGRESS)
    def progress(params: lsp.ProgressParams) -> None:
        heard_progress(client, str(params.token), params.value)

    @client.feature(lsp.WINDOW_LOG_MESSAGE)
    def log_message(params: lsp.LogMessageParams) -> None:
        heard_log(client, params.message)

    @client.feature(lsp.WINDOW_SHOW_MESSAGE)
    def show_message(params: lsp.ShowMessageParams) -> None:
        client.log.append(params.message[:2000])

    @client.feature(lsp.WINDOW_SHOW_MESSAGE_REQUEST)
    def show_message_request(params: lsp.ShowMessageRequestParams) -> None:
        client.log.append(params.message[:2000])
        return None

    @client.feature(lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    def publish(params: lsp.PublishDiagnosticsParams) -> None:
        client.diagnostics[params.uri] = list(params.diagnostics)
        client.diagnostic_seq[params.uri] = client.diagnostic_seq.get(params.uri, 0) + 1
        client.diagnostic_version[params.uri] = params.version
        client._notify_change()

    @client.feature(lsp.WORKSPACE_WORKSPACE_FOLDERS)
    def folders(params: None) -> list[lsp.WorkspaceFolder]:
        return [lsp.WorkspaceFolder(uri=client.root.as_uri(), name=client.root.name)]

    @client.feature(lsp.WORKSPACE_APPLY_EDIT)
    def apply_edit(params: lsp.ApplyWorkspaceEditParams) -> lsp.ApplyWorkspaceEditResult:
        # The bridge never writes files behind the caller's back.
        return lsp.ApplyWorkspaceEditResult(applied=False, failure_reason="read-only client")

    for method in (lsp.WORKSPACE_SEMANTIC_TOKENS_REFRESH, lsp.WORKSPACE_DIAGNOSTIC_REFRESH,
                   lsp.WORKSPACE_INLAY_HINT_REFRESH, lsp.WORKSPACE_CODE_LENS_REFRESH,
                   lsp.WORKSPACE_INLINE_VALUE_REFRESH, lsp.WORKSPACE_FOLDING_RANGE_REFRESH):
        client.feature(method)(_answer_none)
    client.feature(lsp.TELEMETRY_EVENT)(_answer_none)
    client.feature("$/typescriptVersion")(_answer_none)  # typescript-language-server's greeting


def _answer_none(params: Any) -> None:
    return None
