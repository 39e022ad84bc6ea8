"""The rename engine against a real basedpyright on fixtures/renamecases (one server for the
module): every case's exact sites and reasons, the resulting files, the review list, and the
unrelated same-named method left alone. Plans only: nothing is written."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from agent.refactor import EditPlan
from agent.refactor.commit import file_edits
from agent.refactor.rename import complete_references, plan_rename
from agent.refactor.render import render_plan
from agent.workspace import Workspace
from lsp_bridge import Position, SessionPool

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "renamecases"

pytestmark = pytest.mark.timeout(600)


class Project:
    def __init__(self, root: Path, server: object):
        self.root = root
        self.ws = Workspace(root)
        self.server = server

    def pos(self, rel: str, needle: str, offset: int = 0) -> Position:
        """The position `offset` characters into the first occurrence of `needle` in `rel`."""
        for line, text in enumerate((self.root / rel).read_text(encoding="utf-8").split("\n")):
            col = text.find(needle)
            if col >= 0:
                return Position(line, col + offset)
        raise AssertionError(f"{needle!r} not in {rel}")

    def plan(self, rel: str, needle: str, offset: int, new: str) -> EditPlan:
        return plan_rename(self.server, self.ws, self.root / rel, self.pos(rel, needle, offset), new)  # type: ignore[arg-type]

    def sites(self, plan: EditPlan) -> set[tuple[str, int, int, str]]:
        """(file, 1-based line, 1-based column, reason) of every planned edit."""
        return {(s.path, s.line, s.column, s.reason) for s in plan.sites}

    def result(self, plan: EditPlan) -> dict[str, str]:
        """The text each changed file would have."""
        return {fe.path: fe.new_text or "" for fe in file_edits(self.ws, plan).edits}

    def review(self, plan: EditPlan) -> set[tuple[str, int, int, str]]:
        return {(r.location.path, r.location.line, r.location.column, r.kind) for r in plan.review}


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Project]:
    root = (tmp_path_factory.mktemp("renamecases") / "proj").resolve()
    shutil.copytree(FIXTURE, root)
    pool = SessionPool()
    try:
        yield Project(root, pool.get(root, "python"))
    finally:
        pool.close_all()


def test_function_with_stub_reexport_all_and_tests_outside_checker_include(project: Project) -> None:
    plan = project.plan("shapes/core.py", "def area", 4, "surface")
    assert project.sites(plan) == {
        ("shapes/core.py", 30, 5, "lsp"),
        ("shapes/core.pyi", 11, 5, "stub"),
        ("shapes/__init__.py", 5, 19, "stub"),
        ("shapes/__init__.py", 5, 27, "stub"),
        ("shapes/__init__.py", 7, 32, "__all__"),
        ("shapes/aliases.py", 5, 19, "stub"),  # `area as compute_area`: the imported name only
        ("tests/test_shapes.py", 12, 19, "stub"),  # typed through the stub, outside pyright's include
        ("tests/test_shapes.py", 39, 14, "embedded-code"),  # `import shapes` in a script run as a subprocess
    }
    files = project.result(plan)
    assert files["shapes/__init__.py"] == (
        '"""A small package whose names the rename tests change."""\n\n'
        "from .circle import Circle\nfrom .core import Shape, make_shape\nfrom .core import surface as surface\n\n"
        '__all__ = ["Circle", "Shape", "surface", "make_shape"]\n'
    )
    assert "from .core import surface as compute_area\n" in files["shapes/aliases.py"]
    assert any("outside the project's pyright include" in n for n in plan.notes)


def test_rename_from_the_stub_reaches_the_implementation(project: Project) -> None:
    from_stub = project.plan("shapes/core.pyi", "def area", 4, "surface")
    from_impl = project.plan("shapes/core.py", "def area", 4, "surface")
    assert {s[:3] for s in project.sites(from_stub)} == {s[:3] for s in project.sites(from_impl)}
    assert project.result(from_stub) == project.result(from_impl)


def test_method_family_and_unrelated_same_named_method(project: Project) -> None:
    plan = project.plan("shapes/core.py", "def scale", 4, "resize")
    assert project.sites(plan) == {
        ("shapes/core.py", 15, 9, "lsp"),
        ("shapes/core.py", 19, 21, "lsp"),
        ("shapes/core.pyi", 6, 9, "stub"),
        ("shapes/circle.py", 5, 9, "hierarchy"),
        ("shapes/rings.py", 11, 9, "hierarchy"),  # Donut(Ring(Round = Circle)): Ring does not override
        ("tests/test_shapes.py", 7, 9, "hierarchy"),  # an override in tests
        ("tests/test_shapes.py", 52, 22, "hierarchy"),  # Square(1).scale(2): bound to the override
        ("tests/test_shapes.py", 55, 13, "embedded-code"),  # an override in code kept in a string
    }
    files = project.result(plan)
    assert "shapes/image.py" not in files  # Image.scale is another method
    assert "assert Image().scale(3).zoom == 3" in files["tests/test_shapes.py"]
    assert project.review(plan) == {
        ("shapes/image.py", 8, 9, "code"),
        ("shapes/image.py", 14, 16, "code"),
        ("tests/test_shapes.py", 26, 20, "code"),
        ("tests/test_shapes.py", 30, 40, "string"),  # getattr(Shape(1), "scale"): reported, not edited
    }
    assert 'getattr(Shape(1), "scale")' in files["tests/test_shapes.py"]


def test_rename_from_the_stub_method_follows_the_source_family(project: Project) -> None:
    from_stub = project.plan("shapes/core.pyi", "def scale", 4, "resize")
    from_impl = project.plan("shapes/core.py", "def scale", 4, "resize")
    assert {s[:3] for s in project.sites(from_stub)} == {s[:3] for s in project.sites(from_impl)}
    assert {("shapes/core.py", 15, 9, "lsp"), ("shapes/circle.py", 5, 9, "hierarchy"),
            ("tests/test_shapes.py", 7, 9, "hierarchy")} <= project.sites(from_stub)


def test_rename_from_an_override_renames_the_base_and_siblings(project: Project) -> None:
    plan = project.plan("shapes/circle.py", "def scale", 4, "resize")
    assert {s[:3] for s in project.sites(plan)} == {
        ("shapes/core.py", 15, 9), ("shapes/core.py", 19, 21), ("shapes/core.pyi", 6, 9),
        ("shapes/circle.py", 5, 9), ("shapes/rings.py", 11, 9), ("tests/test_shapes.py", 7, 9),
        ("tests/test_shapes.py", 52, 22),
        ("tests/test_shapes.py", 55, 13),
    }
    assert ("shapes/core.py", 15, 9, "hierarchy") in project.sites(plan)


def test_attribute_slots_attribute_strings_and_receivers(project: Project) -> None:
    plan = project.plan("shapes/core.py", "self._size = size", 5, "_extent")
    assert project.sites(plan) == {
        ("shapes/core.py", 9, 19, "__slots__"),
        ("shapes/core.py", 12, 14, "lsp"),
        ("shapes/core.py", 16, 32, "lsp"),
        ("shapes/core.py", 22, 27, "attr-string"),  # hasattr(self, "_size")
        ("shapes/core.py", 23, 52, "attr-string"),  # getattr(self, '_size') inside an f-string
        ("shapes/core.py", 27, 24, "attr-string"),  # setattr(self, "_size", 0.0)
        ("shapes/core.py", 31, 19, "lsp"),
        ("shapes/core.py", 31, 33, "lsp"),
        ("shapes/circle.py", 6, 28, "receiver-type"),  # self in a subclass
        ("tests/test_shapes.py", 8, 28, "receiver-type"),
        ("tests/test_shapes.py", 17, 18, "receiver-type"),  # typed through the stub, which lacks _size
        ("tests/test_shapes.py", 22, 14, "receiver-type"),
        ("tests/test_shapes.py", 34, 18, "untyped-receiver"),  # def size_of(thing): thing._size
    }
    core = project.result(plan)["shapes/core.py"]
    assert '__slots__ = ("_extent", "label")' in core
    assert "return f\"{self.label}: {getattr(self, '_extent')}\"" in core
    assert "_size" not in core
    assert plan.review == []


def test_parameter_keyword_arguments_through_the_stub(project: Project) -> None:
    plan = project.plan("shapes/core.py", "precise: bool", 0, "exact")
    assert project.sites(plan) == {
        ("shapes/core.py", 30, 27, "lsp"),
        ("shapes/core.py", 32, 21, "lsp"),
        ("shapes/core.pyi", 11, 27, "stub"),
        ("tests/test_shapes.py", 12, 34, "kwarg"),
    }
    assert "shapes.area(Shape(3), exact=True)" in project.result(plan)["tests/test_shapes.py"]


def test_dataclass_field_keywords_in_the_constructor_and_replace(project: Project) -> None:
    plan = project.plan("shapes/records.py", "width: int", 0, "span")
    assert project.sites(plan) == {
        ("shapes/records.py", 8, 5, "lsp"),
        ("shapes/records.py", 13, 23, "kwarg"),  # replace(r, width=...): r is typed as Record
        ("shapes/records.py", 13, 31, "lsp"),
        ("shapes/records.py", 16, 18, "kwarg"),
    }


def test_module_alias_is_a_local_name(project: Project) -> None:
    plan = project.plan("shapes/aliases.py", "as co", 3, "coll")  # pyright refuses: `collections` is stdlib
    assert project.sites(plan) == {
        ("shapes/aliases.py", 3, 23, "alias"),
        ("shapes/aliases.py", 8, 11, "alias"),
        ("shapes/aliases.py", 11, 33, "alias"),
        ("shapes/aliases.py", 12, 12, "alias"),
    }
    assert project.review(plan) == set()  # other modules' `co` are other names: not even reviewed
    files = project.result(plan)
    assert set(files) == {"shapes/aliases.py"}
    assert "import collections as coll\n" in files["shapes/aliases.py"]


def test_function_alias_renames_only_the_alias(project: Project) -> None:
    plan = project.plan("shapes/aliases.py", "compute_area", 0, "area_of")
    assert project.sites(plan) == {("shapes/aliases.py", 5, 27, "alias"), ("shapes/aliases.py", 16, 16, "alias")}


def test_rename_from_a_use_site(project: Project) -> None:
    plan = project.plan("tests/test_shapes.py", "shapes.area", 7, "surface")
    assert {s[:3] for s in project.sites(plan)} == {
        s[:3] for s in project.sites(project.plan("shapes/core.py", "def area", 4, "surface"))}


def test_complete_references_are_the_rename_sites_without_changes(project: Project) -> None:
    refs = complete_references(project.server, project.ws, project.root / "shapes/core.py",  # type: ignore[arg-type]
                               project.pos("shapes/core.py", "def scale", 4))
    rename = project.plan("shapes/core.py", "def scale", 4, "resize")
    assert project.sites(refs) == project.sites(rename)
    assert {s.new_text for s in refs.sites} == {"scale"}
    assert project.review(refs) == project.review(rename)


def test_render_lists_reasons_review_and_notes(project: Project) -> None:
    plan = project.plan("shapes/core.py", "def scale", 4, "resize")
    text = render_plan(plan, project.ws)
    assert text.splitlines()[0] == (
        "rename scale -> resize: 8 site(s) in 5 file(s) (embedded-code 1, hierarchy 4, lsp 2, stub 1)")
    assert "    7:9 [hierarchy] def scale(self, factor: float) -> \"Square\":" in text
    assert "  tests/test_shapes.py:30:40 [string] assert callable(getattr(Shape(1), \"scale\"))" in text
    data = plan.to_dict()
    assert data["reasons"] == {"embedded-code": 1, "hierarchy": 4, "lsp": 2, "stub": 1}
    assert {"path": "shapes/circle.py", "line": 5, "column": 9, "end_line": 5, "end_column": 14,
            "new_text": "resize", "reason": "hierarchy"} in data["edits"]
    assert data["review_total"] == 4
