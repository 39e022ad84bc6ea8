"""One Python call site under a signature change: its arguments matched to the old parameters by
position and keyword, then written out for the new list (by name). A call that cannot be rewritten
safely (`*args` / `**kwargs` at the call, comments inside the arguments, more arguments than the
old list takes) raises `Unsafe` with the reason; the planner names the site."""

from __future__ import annotations

from dataclasses import dataclass

import tree_sitter as ts

from .params import Param


class Unsafe(Exception):
    """This call cannot be rewritten safely (the message says why)."""


@dataclass(frozen=True, slots=True)
class Bound:
    text: str
    by: str  # "pos" (passed positionally), "kw" (by keyword) or "new" (--value)


def _text(node: ts.Node) -> str:
    return (node.text or b"").decode("utf-8", "surrogatepass")


def read_arguments(args: ts.Node) -> tuple[list[str], list[tuple[str, str]]]:
    """(positional texts, [(keyword, value text)]) of an argument_list; Unsafe for splats."""
    if args.type != "argument_list":
        raise Unsafe("the argument is a bare generator expression")
    positional: list[str] = []
    keywords: list[tuple[str, str]] = []
    for child in args.named_children:
        if child.type == "comment":
            raise Unsafe("a comment inside the arguments would be lost")
        if child.type == "list_splat":
            raise Unsafe(f"`{_text(child)}` passes arguments that cannot be matched to parameters")
        if child.type == "dictionary_splat":
            raise Unsafe(f"`{_text(child)}` forwards keyword arguments that cannot be matched to parameters")
        if child.type == "keyword_argument":
            name, value = child.child_by_field_name("name"), child.child_by_field_name("value")
            if name is None or value is None:
                raise Unsafe("an unreadable keyword argument")
            keywords.append((_text(name), _text(value)))
        else:
            if keywords:
                raise Unsafe("a positional argument after a keyword argument")
            positional.append(_text(child))
    return positional, keywords


def bind(old: list[Param], positional: list[str], keywords: list[tuple[str, str]]
         ) -> tuple[dict[str, Bound], list[str], list[tuple[str, str]]]:
    """Arguments by old parameter name, plus what goes to `*args` and `**kwargs`."""
    slots = [p for p in old if p.positional]
    varargs = next((p for p in old if p.kind == "varargs"), None)
    varkw = next((p for p in old if p.kind == "varkw"), None)
    bound: dict[str, Bound] = {}
    extra_pos: list[str] = []
    for i, text in enumerate(positional):
        if i < len(slots):
            bound[slots[i].name] = Bound(text, "pos")
        elif varargs is not None:
            extra_pos.append(text)
        else:
            raise Unsafe(f"{len(positional)} positional arguments for {len(slots)} parameters")
    names = {p.name: p for p in old if p.kind not in ("varargs", "varkw", "posonly")}
    extra_kw: list[tuple[str, str]] = []
    for name, text in keywords:
        if name in names and name not in bound:
            bound[name] = Bound(text, "kw")
        elif varkw is not None and name not in bound:
            extra_kw.append((name, text))
        else:
            raise Unsafe(f"keyword argument {name!r} matches no parameter")
    return bound, extra_pos, extra_kw


def rewrite(args: ts.Node, old: list[Param], new: list[Param], values: dict[str, str]) -> str | None:
    """The new text of the argument list (parentheses included), or None when it does not change."""
    positional, keywords = read_arguments(args)
    bound, extra_pos, extra_kw = bind(old, positional, keywords)
    old_names = {p.name for p in old}
    new_kinds = {p.kind for p in new}
    if extra_pos and "varargs" not in new_kinds:
        raise Unsafe("arguments passed to the removed `*args`")
    if extra_kw and "varkw" not in new_kinds:
        raise Unsafe("keyword arguments passed to the removed `**kwargs`")
    for p in new:
        if p.name not in old_names and p.name in values:
            bound[p.name] = Bound(values[p.name], "new")
    out_pos: list[str] = []
    out_kw: list[str] = []
    forced = False  # once a parameter is skipped or passed by keyword, the rest go by keyword
    for p in new:
        got = bound.get(p.name)
        if p.kind in ("varargs", "varkw"):
            continue
        if got is None:
            if p.positional:
                forced = True
            continue
        if p.positional and not forced and got.by in ("pos", "new"):
            out_pos.append(got.text)
            continue
        if p.kind == "posonly":
            raise Unsafe(f"positional-only {p.name!r} would follow a parameter passed by keyword or left out")
        if p.positional:
            forced = True
        out_kw.append(f"{p.name}={got.text}")
    if extra_pos:
        if forced:
            raise Unsafe("arguments for `*args` after a parameter now passed by keyword")
        out_pos.extend(extra_pos)
    out_kw.extend(f"{name}={text}" for name, text in extra_kw)
    parts = out_pos + out_kw
    if parts == positional + [f"{n}={t}" for n, t in keywords]:
        return None
    return _layout(args, parts)


def _layout(args: ts.Node, parts: list[str]) -> str:
    """`(a, b)`; one argument a line, with the call's own indentation, when it was written so."""
    items = [c for c in args.named_children if c.type != "comment"]
    close = args.children[-1] if args.children else None
    if not parts or not items or items[0].start_point[0] == args.start_point[0] or close is None:
        return "(" + ", ".join(parts) + ")"
    indent = " " * items[0].start_point[1]
    closing = " " * close.start_point[1] if close.start_point[0] != items[-1].end_point[0] else ""
    trailing = "," if closing else ""
    body = (",\n" + indent).join(parts)
    return f"(\n{indent}{body}{trailing}\n{closing})" if closing else f"(\n{indent}{body})"
