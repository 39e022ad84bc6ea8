"""How every command ends: exit codes, the usage error, printing JSON and a tool's result (a long
one through the user's pager, $PAGER else `less -FRX`, when stdout is a terminal; never when piped).
Standard library only: the warm-daemon path (via_daemon.py) runs on nothing else, and imports
only what it uses (json only to encode what the daemon did not encode already)."""

from __future__ import annotations

import os
import sys

from .colour import print_text

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2


class UsageError(Exception):
    """A command-line usage error (exit 2)."""


def print_json(obj: Any, encoded: bytes | None = None) -> None:
    """One line of JSON. `encoded`: `obj` already encoded so (UTF-8, ensure_ascii off, default
    separators; a daemon's answer), written as it is when stdout is UTF-8 (whatever its error
    handler: the daemon's strict encoding left no lone surrogate for one to act on)."""
    if encoded is not None and writes_encoded(sys.stdout):
        sys.stdout.flush()
        sys.stdout.buffer.write(encoded + b"\n")
        return
    import json

    sys.stdout.write(json.dumps(obj, ensure_ascii=False, indent=None, default=str) + "\n")


def writes_encoded(stream: Any) -> bool:
    """Whether print_json writes an `encoded` answer as it is to `stream` (a UTF-8 one)."""
    encoding = str(getattr(stream, "encoding", "")).lower().replace("-", "").replace("_", "")
    return encoding == "utf8" and hasattr(stream, "buffer")


def emit(as_json: bool, result: dict[str, Any], text: str | None = None, encoded: bytes | None = None) -> int:
    """Print a tool's result (one JSON object with `as_json`, else its output, errors on stderr);
    the exit code. What the daemon says of its servers (a restart) goes to stderr as well."""
    for note in (result.get("data") or {}).get("server_notes") or []:
        print(f"codeagent: note: {note}", file=sys.stderr)
    try:
        if as_json:
            print_json(result, encoded)
        elif result.get("success"):
            # the tool cut its output to a model's budget; the CLI prints what the user asked for
            whole = (result.get("data") or {}).get("full_output")
            page_out(text if text is not None else whole if isinstance(whole, str) else result.get("output", ""))
        else:
            if result.get("output"):
                print_text(result["output"])
            print(f"codeagent: {result.get('error')}", file=sys.stderr)
        sys.stdout.flush()
    except BrokenPipeError:  # `codeagent refs ... | head`: the reader has all it wanted
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return EXIT_OK if result.get("success") else EXIT_FAILED


def page_out(text: str) -> None:
    """Print `text` whole (a pager only scrolls it; nothing is ever cut)."""
    command = _pager(text)
    if command is not None:
        import subprocess  # (shlex, shutil and subprocess are imported where used: ~8 ms of a warm call)

        try:
            subprocess.run(command, input=text + "\n", text=True, check=False)
            return
        except OSError:
            pass  # no such pager: print it
    print_text(text)


def _pager(text: str) -> list[str] | None:
    if not sys.stdout.isatty() or not sys.stdin.isatty():
        return None
    import shlex
    import shutil

    rows = shutil.get_terminal_size((80, 24)).lines
    if text.count("\n") + 1 < rows:
        return None
    chosen = os.environ.get("PAGER")
    if chosen is not None:
        words = shlex.split(chosen)
        return words or None  # PAGER="" turns it off
    return ["less", "-FRX"] if shutil.which("less") else None


def print_undo_hint(result: dict[str, Any], root: str) -> None:
    """After a call that wrote files (a journal entry), one line on stderr saying how to undo it;
    stderr, so that stdout stays the result (or the one JSON object)."""
    if not result.get("success") or not (result.get("data") or {}).get("journal_id"):
        return
    import shlex

    try:
        here = os.path.realpath(root) == os.path.realpath(os.getcwd())
    except OSError:
        here = False
    where = "" if here else f" --root {shlex.quote(root)}"
    print(f"codeagent: undo this with `codeagent undo{where}`", file=sys.stderr)
