"""type_info: what the server's hover says at a position, cleaned for a model: the type or
signature, the symbol's kind and qualified name, and the first paragraph of its docstring."""

from __future__ import annotations

import re

from lsp_bridge import navigation
from lsp_bridge.errors import NotReady

from ..errors import ToolFailure
from ..result import ToolResult
from ..toolcontext import ToolContext
from .outlines import Outlines
from .sessions import UNAVAILABLE, server_unavailable, session_for
from .target import Target, display_path, inside_workspace

_FENCE = re.compile(r"```[\w+-]*\n(.*?)```", re.S)
_KIND = re.compile(r"^\((?P<kind>[\w ]+)\)\s*")
_KEYWORDS = ("const", "let", "var", "function", "class", "interface", "type", "enum", "namespace", "module",
             "import", "property", "method", "def", "async def")
_LINK = re.compile(r"\[([^\]]+)\]\([^)]*\)")
MAX_DOC_CHARS = 600
MAX_SIGNATURE_CHARS = 1000


def clean_hover(raw: str) -> tuple[str, str]:
    """(signature, first paragraph of the documentation) from a hover's markdown."""
    blocks = _FENCE.findall(raw)
    signature = "\n".join(b.strip() for b in blocks).strip()
    rest = _FENCE.sub("", raw)
    rest = re.sub(r"^\s*(---|\*\*\*|___)\s*$", "", rest, flags=re.M).strip()
    if not blocks and rest:  # a plain-text hover: its first line is the signature
        signature, _, rest = rest.partition("\n")
    paragraph = re.split(r"\n\s*\n", rest.strip(), maxsplit=1)[0] if rest.strip() else ""
    paragraph = _LINK.sub(r"\1", paragraph)
    paragraph = re.sub(r"\*\*|__|`|&nbsp;|\\(?=[\\`*_{}\[\]()#+\-.!])", "", paragraph)
    paragraph = " ".join(paragraph.split())
    if len(paragraph) > MAX_DOC_CHARS:
        paragraph = paragraph[:MAX_DOC_CHARS] + "…"
    return signature[:MAX_SIGNATURE_CHARS], paragraph


def kind_of(signature: str) -> tuple[str | None, str]:
    """(kind, the signature without its kind label): `(variable) sq: Square` -> variable."""
    first = signature.split("\n", 1)[0]
    if m := _KIND.match(first):
        return m["kind"], signature[m.end():]
    for word in _KEYWORDS:
        if first.startswith(word + " "):
            return word.replace("async ", ""), signature
    return None, signature


def declared_type(name: str, signature: str) -> str | None:
    """`sq: Square` -> Square (variables, parameters, properties); None for anything else."""
    body = re.sub(r"^(def|const|let|var|async def)\s+", "", signature.split("\n", 1)[0])
    for prefix in (name + ": ", name + "?: "):
        if body.startswith(prefix):
            return body[len(prefix):].strip()
    for prefix in (f".{name}: ", f".{name}?: "):  # TS qualifies members: `Circle.r: number`
        at = body.find(prefix)
        if at > 0 and "(" not in body[:at]:
            return body[at + len(prefix):].strip()
    return None


def type_info(ctx: ToolContext, target: Target) -> ToolResult:
    if target.server is None:
        raise ToolFailure(f"{target.path}: no language server handles this kind of file")
    try:
        session = session_for(ctx, target.server)
        raw = navigation.hover(session, target.real, target.pos)
        # At a definition the outline names it: no second request needed.
        outlines = Outlines(ctx)
        here = outlines.named_at(target.path, target.pos.line, target.name_start)
        definitions = [] if here is not None else session.definition(target.real, target.pos)
    except NotReady as exc:
        raise ToolFailure(f"{exc}; try again when it has finished indexing") from exc
    except UNAVAILABLE as exc:
        raise ToolFailure(f"{server_unavailable(exc)}; type_info needs the server (find_symbol and "
                          "read_file show declarations without one)") from exc
    if not raw or not raw.strip():
        return ToolResult.ok(f"the server knows no type for {target.name} at {target.location}",
                             symbol=target.name, target=str(target.location), signature="", kind=None)
    signature, doc = clean_hover(raw)
    kind, bare = kind_of(signature)
    qualified, defined_at = target.name, None
    if here is not None:
        qualified = f"{target.path}::{here.name_path}"
        defined_at = f"{target.path}:{target.pos.line + 1}:{target.name_start + 1}"
    for loc in definitions[:1]:
        rel = display_path(ctx, loc.path)
        start = loc.range.start
        defined_at = f"{rel}:{start.line + 1}:{start.character + 1}"
        qualified = (outlines.qualified(rel, start.line, start.character, target.name)
                     if inside_workspace(ctx, loc.path) else f"{rel}::{target.name}")
    typ = declared_type(target.name, bare)
    out = [f"{target.name} at {target.location}" + (f" ({kind})" if kind else ""), bare.strip()]
    if typ:
        out.append(f"type: {typ}")
    out.append(f"qualified name: {qualified}" + (f" (defined at {defined_at})" if defined_at else ""))
    if doc:
        out.append(f"doc: {doc}")
    return ToolResult.ok("\n".join(out), symbol=target.name, target=str(target.location), kind=kind,
                         signature=bare.strip(), type=typ, qualified_name=qualified, defined_at=defined_at,
                         doc=doc)
