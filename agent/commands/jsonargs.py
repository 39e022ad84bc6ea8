"""Parsing a tool's JSON arguments from the command line, bounded: strange input (nesting deep
enough to exhaust the recursion limit, integers of thousands of digits) is a usage error with a
one-line message, never a traceback. Standard library only."""

from __future__ import annotations

import json
from typing import Any

from .output import UsageError

MAX_DEPTH = 64  # a tool's arguments are a few levels deep (an object, a list of edits, an edit)
MAX_INT_DIGITS = 30  # larger than any line, column or count a tool takes (2**64 has 20 digits)


def _bounded_int(digits: str) -> int:
    # json hands every integer literal here before converting it: a 5,000-digit one would raise
    # ValueError from int() deep inside the parser (Python's int_max_str_digits), or be slow
    if len(digits.lstrip("-")) > MAX_INT_DIGITS:
        raise UsageError(f"--args has an integer of {len(digits.lstrip('-'))} digits (at most {MAX_INT_DIGITS})")
    return int(digits)


def _depth_over(value: Any, limit: int) -> bool:
    """Whether `value` nests deeper than `limit` levels (iterative: no recursion of our own)."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict | list):
            if depth > limit:
                return True
            children = item.values() if isinstance(item, dict) else item
            stack.extend((child, depth + 1) for child in children if isinstance(child, dict | list))
    return False


def parse_json_args(text: str, *, what: str = "--args") -> Any:
    """`text` parsed as JSON (an empty text is `{}`), or a UsageError saying what is wrong."""
    if not text.strip():
        return {}
    try:
        # the C decoder counts its nesting against the recursion limit (it cannot overflow the
        # C stack); what it accepts is then checked against MAX_DEPTH without recursing
        value = json.loads(text, parse_int=_bounded_int)
    except json.JSONDecodeError as exc:
        raise UsageError(f"{what} is not valid JSON: {exc.msg} at char {exc.pos}") from exc
    except RecursionError as exc:
        raise UsageError(f"{what} is nested too deeply (at most {MAX_DEPTH} levels)") from exc
    except ValueError as exc:  # any other conversion the decoder refuses
        raise UsageError(f"{what} is not valid JSON: {str(exc).splitlines()[0][:200]}") from exc
    if _depth_over(value, MAX_DEPTH):
        raise UsageError(f"{what} is nested too deeply (at most {MAX_DEPTH} levels)")
    return value
