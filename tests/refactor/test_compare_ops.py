"""`--compare` for `codeagent signature|move|delete` against the real servers: each prints (and adds
to the JSON) what the text-only route would do beside the semantic dry run, writes nothing, and
names the concrete site where the text route is wrong: the regex call rewrite reorders another
class's same-named method; the cut/paste move misses a qualified use through `import m as geo`;
deleting the block alone leaves the barrel re-export, and would delete a function a test still uses."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.timeout(900)

Tree = Callable[[Path], dict[str, bytes]]
EXTRA = {
    "shapes/app.py": (
        "\n\nclass Ruler:\n"
        "    def scaled(self, a, b):\n"
        "        return a - b\n"
        "\n\n"
        "def measure() -> int:\n"
        "    return Ruler().scaled(7, 8)\n"),
    "shapes/report.py": "import shapes.geometry as geo\n\n\ndef area_report() -> str:\n    return str(geo.circle_area(2))\n",
}


@pytest.fixture
def pyproj(shapes: Path) -> Path:
    """The shapes package with a same-named method of another class and a qualified import."""
    (shapes / "shapes/app.py").write_text((shapes / "shapes/app.py").read_text() + EXTRA["shapes/app.py"])
    (shapes / "shapes/report.py").write_text(EXTRA["shapes/report.py"])
    return shapes


def test_signature_compare_names_the_other_classes_call(pyproj: Path, tree: Tree, cli: Callable[..., Any]) -> None:
    before = tree(pyproj)
    out = cli("signature", "shapes/geometry.py:10:5", "(factor, length, offset=0)", "--compare", "--root",
              str(pyproj), "--json", cwd=pyproj)
    assert out.returncode == 0, out.stdout + out.stderr
    compared = out.json["data"]["compare"]
    assert compared["wrong"] == [{"path": "shapes/app.py", "line": 20, "old": ["    return Ruler().scaled(7, 8)"],
                                  "text_route": ["    return Ruler().scaled(8, 7)"],
                                  "codeagent": ["    return Ruler().scaled(7, 8)"]}]
    assert compared["missed_count"] == 0 and compared["different_count"] == 0
    assert tree(pyproj) == before
    text = cli("signature", "shapes/geometry.py:10:5", "(factor, length, offset=0)", "--compare", "--root",
               str(pyproj), cwd=pyproj)
    assert "shapes/app.py:20: changed by the text route only (wrong)" in text.stdout
    assert "(nothing was written: --compare is a dry run)" in text.stdout


def test_move_compare_names_the_missed_qualified_use(pyproj: Path, tree: Tree, cli: Callable[..., Any]) -> None:
    before = tree(pyproj)
    out = cli("move", "shapes/geometry.py:19:5", "shapes/circles.py", "--compare", "--root", str(pyproj), "--json",
              cwd=pyproj)
    assert out.returncode == 0, out.stdout + out.stderr
    missed = out.json["data"]["compare"]["missed"]
    assert {"path": "shapes/report.py", "line": 5, "old": ["    return str(geo.circle_area(2))"],
            "text_route": ["    return str(geo.circle_area(2))"],
            "codeagent": ["    return str(circle_area(2))"]} in missed
    assert tree(pyproj) == before


def test_delete_compare_text_route_would_delete_a_used_function(
        tsdel: Path, tree: Tree, cli: Callable[..., Any]) -> None:
    before = tree(tsdel)
    out = cli("delete", "src/util.ts:16:17", "--compare", "--root", str(tsdel), "--json", cwd=tsdel)
    assert out.returncode == 1, out.stdout + out.stderr
    compared = out.json["data"]["compare"]
    assert compared["text_deletes_referenced"] is True
    assert compared["semantic_refused"] is True
    assert [(w["path"], w["line"], w["text_route"]) for w in compared["wrong"]] == [("src/util.ts", 15, [])]
    assert "tests/util.test.ts:4:10: return testedOnly(2) === 4; still references testedOnly" in compared["references"]
    assert tree(tsdel) == before
    out = cli("delete", "src/util.ts:7:17", "--compare", "--root", str(tsdel), "--json", cwd=tsdel)
    assert out.returncode == 0, out.stdout + out.stderr
    compared = out.json["data"]["compare"]
    assert {"path": "src/index.ts", "line": 2, "old": ["export { loadConfig, label } from \"./util\";"],
            "text_route": ["export { loadConfig, label } from \"./util\";"],
            "codeagent": ["export { label } from \"./util\";"]} in compared["missed"]
    assert compared["text_deletes_referenced"] is False
    assert tree(tsdel) == before
