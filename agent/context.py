"""What the model sees each turn: the messages built from the run so far, within a token budget.

Kept always: the system prompt and the task. The last `keep_turns` turns are kept whole; older tool
outputs shrink to a one-line summary; the latest known state of each file the run touched is kept
(head and tail when long) once the turn that showed it has been elided. The budget is the model's
context window less the reply's tokens and the tool schemas; `messages()` never goes over it: it
keeps fewer turns whole, then shortens file states and outputs, then drops the oldest summaries.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .errors import CodeagentError
from .llm import ToolCall
from .result import bounded

FILE_STATE_CHARS = 6000  # per file, head + tail
SUMMARY_CHARS = 160
ASSISTANT_CHARS = 4000  # an old turn's own text beyond this is cut too
MARGIN = 0.05  # of the window, for the estimate's error and the chat template's own tokens


class ContextOverflowError(CodeagentError):
    """Even the system prompt and the task alone do not fit the context window."""


# ----------------------------------------------------------------------------- counting tokens
class TokenCounter:
    """Counts tokens with tiktoken when its encoding is already on disk, else estimates (over, not under)."""

    def __init__(self, encode: Callable[[str], list[int]] | None = None):
        self._encode = encode
        self.exact = encode is not None

    def text(self, s: str) -> int:
        if self._encode is not None:
            return len(self._encode(s))
        ascii_chars = len(s.encode("ascii", "ignore"))
        # code averages ~3.5-4 characters a token; non-ASCII text is often a token per character or more
        return math.ceil(ascii_chars / 3) + (len(s) - ascii_chars)

    def messages(self, msgs: list[dict[str, Any]]) -> int:
        total = 3
        for m in msgs:
            total += 4 + self.text(m.get("content") or "")
            if m.get("tool_calls"):
                total += self.text(json.dumps(m["tool_calls"]))
        return total


def make_counter() -> TokenCounter:
    """tiktoken downloads its encoding on first use; we never let it: only a cached copy is used."""
    try:
        import tiktoken
        import tiktoken.load
    except ImportError:
        return TokenCounter()
    name = "o200k_base"
    url = f"https://openaipublic.blob.core.windows.net/encodings/{name}.tiktoken"
    # tiktoken's own cache lookup (tiktoken/load.py); these are tiktoken's variables, not our settings
    cache_dir = os.environ.get("TIKTOKEN_CACHE_DIR") or os.environ.get("DATA_GYM_CACHE_DIR") or str(
        Path(tempfile.gettempdir()) / "data-gym-cache")
    if not (Path(cache_dir) / hashlib.sha1(url.encode()).hexdigest()).is_file():
        return TokenCounter()
    try:
        enc = tiktoken.get_encoding(name)
    except Exception:  # a corrupt cache or a changed tiktoken: estimate rather than fail
        return TokenCounter()
    return TokenCounter(lambda s: enc.encode(s, disallowed_special=()))


# ----------------------------------------------------------------------------- the run so far
@dataclass(slots=True)
class Observation:
    call: ToolCall
    text: str  # what the model reads (already bounded by the loop)
    success: bool

    def summary(self) -> str:
        first = next((ln.strip() for ln in self.text.splitlines() if ln.strip()), "")
        lines = self.text.count("\n") + 1 if self.text else 0
        status = "ok" if self.success else "FAILED"
        args = self.call.arguments if len(self.call.arguments) <= 80 else self.call.arguments[:77] + "..."
        line = f"[elided] {self.call.name}({args}) → {status}, {lines} lines: {first}"
        return line if len(line) <= SUMMARY_CHARS else line[: SUMMARY_CHARS - 1] + "…"


@dataclass(slots=True)
class Turn:
    """One model reply, the results of its calls, and the harness's notes after it (hints)."""

    step: int
    content: str
    calls: list[ToolCall] = field(default_factory=list)
    observations: list[Observation] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    protocol: str = "tools"  # under "json", `content` is the reply text holding the action


@dataclass(slots=True)
class FileState:
    text: str
    step: int
    shown: bool  # the text was shown whole by a read in that step


class Context:
    def __init__(self, *, system: Callable[[str], str], task: str, window: int, reply_tokens: int,
                 keep_turns: int = 6, counter: TokenCounter | None = None):
        self.system = system  # protocol → system prompt
        self.task = task
        self.window = window
        self.reply_tokens = reply_tokens
        self.keep_turns = keep_turns
        self.counter = counter or TokenCounter()
        self.turns: list[Turn] = []
        self.files: dict[str, FileState] = {}

    def add(self, turn: Turn) -> None:
        self.turns.append(turn)

    def note_file(self, path: str, text: str | None, step: int, *, shown: bool) -> None:
        """The latest known text of a file the run touched (None: it was deleted)."""
        if text is None:
            self.files.pop(path, None)
        else:
            self.files[path] = FileState(text, step, shown)

    def budget(self, reserve: int = 0) -> int:
        return int(self.window * (1 - MARGIN)) - self.reply_tokens - reserve

    def messages(self, protocol: str, *, reserve: int = 0) -> list[dict[str, Any]]:
        """The messages for the next request; `reserve` is what the tool schemas take."""
        budget = self.budget(reserve)
        keep, file_cap, out_cap, dropped = min(self.keep_turns, len(self.turns)), FILE_STATE_CHARS, 0, 0
        while True:
            msgs = self._render(protocol, keep, file_cap, out_cap, dropped)
            if self.counter.messages(msgs) <= budget:
                return msgs
            longest = out_cap or self._longest_output()
            if keep > 1:
                keep -= 1  # 1. fewer turns whole
            elif file_cap > 400:
                file_cap //= 2  # 2. shorter file states
            elif longest > 400:
                out_cap = max(400, longest // 2)  # 3. shorter outputs in the kept turn
            elif dropped < len(self.turns) - keep:
                dropped += 1  # 4. the oldest summaries go
            else:
                break
        raise ContextOverflowError(
            f"the context window ({self.window} tokens, {self.reply_tokens} kept for the reply) cannot hold "
            "even the system prompt, the task and the last turn; raise llm.context_window or shorten the task")

    def _longest_output(self) -> int:
        return max((len(o.text) for t in self.turns for o in t.observations), default=0)

    # ------------------------------------------------------------------------- rendering
    def _render(self, protocol: str, keep: int, file_cap: int, out_cap: int, dropped: int) -> list[dict[str, Any]]:
        msgs: list[dict[str, Any]] = [{"role": "system", "content": self.system(protocol)},
                                      {"role": "user", "content": self.task}]
        first_whole = len(self.turns) - keep
        if dropped:
            msgs.append({"role": "user", "content": f"[{dropped} earlier turns left out to fit the context window]"})
        for i, turn in enumerate(self.turns):
            if i < dropped:
                continue
            if i == first_whole and first_whole > 0:
                state = self._file_state(turn.step, file_cap)
                if state:
                    msgs.append({"role": "user", "content": state})
            msgs.extend(self._render_turn(turn, protocol, whole=i >= first_whole, out_cap=out_cap))
        return msgs

    def _file_state(self, first_whole_step: int, cap: int) -> str:
        """Files whose latest state is not shown whole in the kept turns."""
        blocks = [f"--- {path} (as of step {st.step}) ---\n{bounded(st.text, cap)}"
                  for path, st in sorted(self.files.items()) if not (st.shown and st.step >= first_whole_step)]
        if not blocks:
            return ""
        return ("[Older turns were shortened to one line each. Latest known content of the files touched "
                "so far; re-read a file before editing it if unsure.]\n" + "\n".join(blocks))

    def _render_turn(self, turn: Turn, protocol: str, *, whole: bool, out_cap: int) -> list[dict[str, Any]]:
        def obs_text(o: Observation) -> str:
            if not whole:
                return o.summary()
            return bounded(o.text, out_cap) if out_cap else o.text

        content = turn.content if whole else bounded(turn.content, ASSISTANT_CHARS)
        out: list[dict[str, Any]] = []
        if protocol == "json":
            text = content if turn.protocol == "json" else "\n".join(
                [content] + [json.dumps({"action": c.name, "params": _args_object(c.arguments)}) for c in turn.calls])
            out.append({"role": "assistant", "content": text.strip() or "(empty reply)"})
            parts = [f"Observation from {o.call.name}:\n{obs_text(o)}" for o in turn.observations] + turn.notes
            if parts:
                out.append({"role": "user", "content": "\n\n".join(parts)})
            return out
        msg: dict[str, Any] = {"role": "assistant", "content": content or None}
        if turn.calls:
            msg["tool_calls"] = [{"id": c.id, "type": "function",
                                  "function": {"name": c.name, "arguments": json.dumps(_args_object(c.arguments))}}
                                 for c in turn.calls]
        elif not content:
            msg["content"] = "(empty reply)"
        out.append(msg)
        out.extend({"role": "tool", "tool_call_id": o.call.id, "content": obs_text(o)} for o in turn.observations)
        if turn.notes:
            out.append({"role": "user", "content": "\n\n".join(turn.notes)})
        return out


def _args_object(raw: str) -> dict[str, Any]:
    """The arguments as an object; malformed ones are wrapped (some servers re-parse the history)."""
    try:
        obj = json.loads(raw or "{}")
    except json.JSONDecodeError:
        return {"_unparsed_arguments": raw[:2000]}
    return obj if isinstance(obj, dict) else {"_unparsed_arguments": raw[:2000]}
