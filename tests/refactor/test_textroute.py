"""The text-only route (agent/refactor/textroute): pure functions over {path: text}, checked on
exact texts: blocks by indentation and by brace counting (decorators, JSDoc, overloads), delete,
move's cut/paste and single-line import rewrites (and what it leaves: a qualified use), the regex
call rewriting of a signature change (a same-named method of another class rewritten too), the
unified diff applied back, and two routes' results compared by hunk."""

from __future__ import annotations

from agent.commit import unified_diff
from agent.refactor.textroute.blocks import block, without_lines
from agent.refactor.textroute.diff import apply_unified, compare_texts
from agent.refactor.textroute.routes import text_delete, text_move
from agent.refactor.textroute.signature import parse_params, split_top, text_signature

PY = ("import os\n"
      "\n"
      "\n"
      "# helper\n"
      "@cache\n"
      "def f(a, b):\n"
      "    return os.sep.join([a, b])\n"
      "\n"
      "\n"
      "def g():\n"
      "    return f(1, 2)\n")
TS = ("/** Scales. */\n"
      "export function scale(x: number): number;\n"
      "export function scale(x: string): string;\n"
      "export function scale(x: any): any {\n"
      "  return x;\n"
      "}\n"
      "\n"
      "export type Mode =\n"
      "  | \"a\"\n"
      "  | \"b\";\n"
      "\n"
      "export const ONE = 1;\n")


def test_blocks_by_indentation_and_by_braces() -> None:
    assert block(PY, "f", True) == (3, 7)  # the comment and decorator above, the body, not the gap
    assert block(PY, "g", True) == (9, 11)
    assert block(TS, "scale", False) == (0, 6)  # JSDoc and both overloads
    assert block(TS, "Mode", False) == (7, 10)
    assert block(TS, "ONE", False) == (11, 12)
    assert block(PY, "missing", True) is None


def test_without_lines_leaves_no_gap() -> None:
    assert without_lines(PY, 3, 7) == "import os\n\n\ndef g():\n    return f(1, 2)\n"
    assert without_lines(PY, 9, 11) == "import os\n\n\n# helper\n@cache\ndef f(a, b):\n    return os.sep.join([a, b])\n"


def test_text_delete_removes_only_the_block() -> None:
    files = {"m.py": PY, "use.py": "from m import f\n"}
    assert text_delete(files, "m.py", "f") == {"m.py": "import os\n\n\ndef g():\n    return f(1, 2)\n"}


def test_text_move_cuts_pastes_and_rewrites_single_line_imports() -> None:
    files = {"pkg/m.py": PY, "pkg/use.py": "from pkg.m import f, g\nimport pkg.m as mm\n\nmm.f(1, 2)\n"}
    out = text_move(files, "pkg/m.py", "pkg/n.py", "f")
    assert out["pkg/n.py"] == "import os\n\n\n# helper\n@cache\ndef f(a, b):\n    return os.sep.join([a, b])\n"
    assert out["pkg/m.py"] == "import os\nfrom pkg.n import f\n\n\ndef g():\n    return f(1, 2)\n"
    assert out["pkg/use.py"] == "from pkg.m import g\nfrom pkg.n import f\nimport pkg.m as mm\n\nmm.f(1, 2)\n"


def test_text_move_typescript_adds_export_star_beside_export_star() -> None:
    files = {"src/a.ts": TS, "src/index.ts": "export * from \"./a\";\n",
             "src/b.ts": "import { ONE, scale } from \"./a\";\n"}
    out = text_move(files, "src/a.ts", "src/c.ts", "scale")
    assert out["src/index.ts"] == "export * from \"./a\";\nexport * from \"./c\";\n"
    assert out["src/b.ts"] == "import { ONE } from \"./a\";\nimport { scale } from \"./c\";\n"
    assert out["src/c.ts"].startswith("/** Scales. */\nexport function scale(x: number): number;\n")


def test_split_and_params() -> None:
    assert split_top("a, f(b, c), [d, e], 'x,y'") == ["a", "f(b, c)", "[d, e]", "'x,y'"]
    assert [(p.name, p.kind) for p in parse_params("self, a, *rest, k=1, **kw")] == [
        ("self", "normal"), ("a", "normal"), ("rest", "varargs"), ("k", "kwonly"), ("kw", "varkw")]


def test_text_signature_rewrites_every_name_call_even_another_classes_method() -> None:
    files = {"m.py": "def f(a, b, c=0):\n    return a\n",
             "use.py": "f(1, 2)\nf(b=2, a=1)\nf(*xs)\nother.f(3, 4)\n"}
    out = text_signature(files, "m.py", 0, "f", "(b, a, c=0, d=None)", {"d": "9"})
    assert out["m.py"] == "def f(b, a, c=0, d=None):\n    return a\n"
    assert out["use.py"] == "f(2, 1, d=9)\nf(b=2, a=1, d=9)\nf(*xs)\nother.f(4, 3, d=9)\n"


def test_apply_unified_round_trip_with_a_created_file() -> None:
    before = {"a.py": "x\ny\nz\n", "b.py": "1\n2"}
    after = {"a.py": "x\nz\nw\n", "b.py": "1\n3\n", "c.py": "new\n"}
    diff = "".join(unified_diff(p, before.get(p), t) for p, t in after.items())
    assert apply_unified(diff, before) == after


def test_compare_texts_missed_wrong_and_different() -> None:
    before = {"a.py": "one\ntwo\nthree\nfour\n"}
    text = {"a.py": "one\nTWO\nthree\nfour!\n"}
    semantic = {"a.py": "ONE\nTWO\nthree\nfour?\n"}
    got = compare_texts(before, text, semantic)
    assert [(i["line"], i["codeagent"]) for i in got["missed"]] == [(1, ["ONE"])]
    assert [(i["line"], i["text_route"], i["codeagent"]) for i in got["different"]] == [(4, ["four!"], ["four?"])]
    assert got["wrong"] == []
    got = compare_texts(before, text, {})
    assert [i["line"] for i in got["wrong"]] == [2, 4]
