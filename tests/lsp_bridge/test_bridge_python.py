"""basedpyright through the bridge on fixtures/pyproj: definition, references, rename, diagnostics."""

from __future__ import annotations

import hashlib
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from bridgekit import applied, copy_fixture, pos_of, rel_lines

from lsp_bridge import BridgeError, LspSession, Position, RenameRefused, SessionPool, apply_changes


def test_definition_across_files_from_a_line_with_emoji(py_session: LspSession, pyproj: Path) -> None:
    labels = pyproj / "shapes/labels.py"
    [loc] = py_session.definition(labels, pos_of(labels, "area_of", "🎉🎉"))
    assert loc.path == pyproj / "shapes/geometry.py"
    line = loc.path.read_text().split("\n")[loc.range.start.line]
    assert line[loc.range.start.character:loc.range.end.character] == "area_of"
    assert line.startswith("def area_of")


def test_references_cover_every_module_and_skip_strings_comments_and_the_shadowing_local(
        py_session: LspSession, pyproj: Path) -> None:
    geometry = pyproj / "shapes/geometry.py"
    refs = py_session.references(geometry, pos_of(geometry, "area_of", "def area_of"))
    found = rel_lines(pyproj, refs)
    assert found == [
        ("shapes/__init__.py", 2), ("shapes/__init__.py", 5),  # import and __all__
        ("shapes/geometry.py", 29),
        ("shapes/labels.py", 2), ("shapes/labels.py", 6), ("shapes/labels.py", 10),
        ("shapes/registry.py", 4), ("shapes/registry.py", 20),
        ("tests/test_shapes.py", 0), ("tests/test_shapes.py", 6), ("tests/test_shapes.py", 10),
    ]
    for loc in refs:  # every range covers exactly the identifier, emoji lines included
        line = loc.path.read_text(encoding="utf-8").split("\n")[loc.range.start.line]
        assert line[loc.range.start.character:loc.range.end.character] == "area_of"
    sent: list[bool] = []  # on_sent runs once the request is written, before the answer is in
    without_decl = py_session.references(geometry, pos_of(geometry, "area_of", "def area_of"),
                                         include_declaration=False, on_sent=lambda: sent.append(True))
    assert len(without_decl) == len(refs) - 1
    assert sent == [True]


def test_the_plain_references_answer_is_the_typed_one(py_session: LspSession, pyproj: Path) -> None:
    """The session takes a references result as plain JSON (convert.plain_locations); the same
    request typed by the protocol layer and converted as before gives the very same locations."""
    from lsprotocol import types as lsp

    from lsp_bridge import convert
    from lsp_bridge.client import BridgeClient
    from lsp_bridge.uris import path_to_uri

    geometry = pyproj / "shapes/geometry.py"
    at = pos_of(geometry, "area_of", "def area_of")

    async def both(client: BridgeClient) -> tuple[list[object], list[object]]:
        doc = await py_session._prepare(client, geometry, at)
        params = lsp.ReferenceParams(text_document=lsp.TextDocumentIdentifier(uri=path_to_uri(geometry)),
                                     position=doc.lines.to_server(at, client.encoding),
                                     context=lsp.ReferenceContext(include_declaration=True))
        typed = await client.request(lsp.TEXT_DOCUMENT_REFERENCES, params, 60)
        plain = await client.request(lsp.TEXT_DOCUMENT_REFERENCES, params, 60, plain=True)
        assert isinstance(plain, list) and all(isinstance(item, dict) for item in plain)
        lines = py_session._files.lines_checked
        return (list(convert.plain_locations(plain, lines, client.encoding)),
                list(convert.locations(typed, lines, client.encoding)))

    plain, typed = py_session._call(both)
    assert plain == typed and len(plain) == 11
    assert plain == py_session.references(geometry, at)


def test_method_references_through_instances_leave_the_unrelated_method_alone(
        py_session: LspSession, pyproj: Path) -> None:
    geometry = pyproj / "shapes/geometry.py"
    refs = py_session.references(geometry, pos_of(geometry, "scale", "def scale(self, factor: float) -> Circle"))
    found = rel_lines(pyproj, refs)
    assert ("shapes/geometry.py", 11) in found  # Circle.scale itself
    assert ("shapes/labels.py", 10) in found  # Circle(2.0).scale(0.5) in another module
    assert ("tests/test_shapes.py", 14) in found  # Circle(1.0).scale(2.0) in the tests
    assert ("shapes/registry.py", 14) not in found  # Registry.scale: same name, other class
    assert ("tests/test_shapes.py", 24) not in found  # registry.scale(3.0)


def test_implementation_of_a_method(py_session: LspSession, pyproj: Path) -> None:
    tests = pyproj / "tests/test_shapes.py"
    locs = py_session.implementation(tests, pos_of(tests, "scale", "Circle(1.0).scale"))
    assert [rel_lines(pyproj, [loc])[0] for loc in locs] == [("shapes/geometry.py", 11)]


def test_type_definition_of_an_instance(py_session: LspSession, pyproj: Path) -> None:
    tests = pyproj / "tests/test_shapes.py"
    [loc] = py_session.type_definition(tests, pos_of(tests, "circle", "assert circle.radius"))
    assert rel_lines(pyproj, [loc]) == [("shapes/geometry.py", 7)]  # class Circle


def test_prepare_rename_gives_the_symbol_range_or_refuses(py_session: LspSession, pyproj: Path) -> None:
    geometry = pyproj / "shapes/geometry.py"
    at = pos_of(geometry, "area_of", "def area_of")
    rng = py_session.prepare_rename(geometry, Position(at.line, at.character + 3))
    assert (rng.start, rng.end) == (at, Position(at.line, at.character + len("area_of")))
    with pytest.raises(RenameRefused):
        py_session.prepare_rename(geometry, pos_of(geometry, "import", "import math"))


def test_diagnostics_for_a_new_file(py_session: LspSession, pyproj: Path) -> None:
    bad = pyproj / "shapes/bad.py"
    bad.write_text("from shapes.geometry import area_of\n\nvalue: int = area_of(1)\nundefined_name\n")
    try:
        py_session.files_changed([bad])
        found = {(d.range.start.line, d.severity) for d in py_session.diagnostics(bad)}
        assert (2, "error") in found and (3, "error") in found
        assert all(d.source for d in py_session.diagnostics(bad))
        assert py_session.diagnostics(pyproj / "shapes/geometry.py") == []
        # The bridge's settings reach the server (pulled with workspace/configuration; nothing is
        # pushed): under basedpyright's own default mode ("recommended") this file gets warnings.
        bad.write_text("def untyped(x):\n    return x\n")
        py_session.files_changed([bad])
        assert py_session.diagnostics(bad) == []
    finally:
        bad.unlink()  # right after an edit: pyright may never end its progress for checking it
        py_session.files_changed([bad])
    geometry = pyproj / "shapes/geometry.py"  # answers still come (a silent progress stops counting)
    assert len(py_session.references(geometry, pos_of(geometry, "area_of", "def area_of"))) == 11


def test_references_are_never_stale_after_a_file_changes_on_disk(py_session: LspSession, pyproj: Path) -> None:
    geometry = pyproj / "shapes/geometry.py"
    at = pos_of(geometry, "area_of", "def area_of")
    before = len(py_session.references(geometry, at))
    extra = pyproj / "shapes/extra.py"
    extra.write_text("from shapes.geometry import area_of\n\nTWICE = area_of  # alias\n")
    try:
        py_session.files_changed([extra])  # a new file: announced by the caller
        assert len(py_session.references(geometry, at)) == before + 2
        # A change nobody announced is still seen (the bridge compares the disk before each request).
        extra.write_text("from shapes.geometry import area_of\n\nTWICE = area_of\nTHRICE = area_of\n")
        assert len(py_session.references(geometry, at)) == before + 3
        labels = pyproj / "shapes/labels.py"
        original = labels.read_text(encoding="utf-8")
        labels.write_text("# moved down a line\n" + original, encoding="utf-8")
        try:
            lines = {loc.range.start.line for loc in py_session.references(geometry, at) if loc.path == labels}
            assert lines == {3, 7, 11}
        finally:
            labels.write_text(original, encoding="utf-8")
    finally:
        extra.unlink()
        py_session.files_changed([extra])
    assert len(py_session.references(geometry, at)) == before


def test_files_created_and_deleted_behind_its_back_are_seen(py_session: LspSession, pyproj: Path) -> None:
    """Nobody calls files_changed: the folder watches report a new module (in a new package too)
    and its deletion before the next request."""
    geometry = pyproj / "shapes/geometry.py"
    at = pos_of(geometry, "area_of", "def area_of")
    before = len(py_session.references(geometry, at))
    extra = pyproj / "shapes/extra_unannounced.py"
    package = pyproj / "more_shapes"
    extra.write_text("from shapes.geometry import area_of\n\nONCE = area_of\n")
    package.mkdir()
    (package / "__init__.py").write_text("from shapes.geometry import area_of\n\nAGAIN = area_of\n")
    try:
        found = py_session.references(geometry, at)
        assert len(found) == before + 4
        assert {extra, package / "__init__.py"} <= {loc.path for loc in found}
    finally:
        extra.unlink()
        shutil.rmtree(package)
    assert len(py_session.references(geometry, at)) == before


def test_rename_from_a_use_site_covers_imports_all_and_keyword_free_calls(
        py_session: LspSession, pyproj: Path) -> None:
    tests = pyproj / "tests/test_shapes.py"
    edits = py_session.rename(tests, pos_of(tests, "area_of", "area_of(Circle"), "compute_area")
    by_file = {e.path.relative_to(pyproj).as_posix(): e for e in edits}
    assert set(by_file) == {"shapes/__init__.py", "shapes/geometry.py", "shapes/labels.py",
                            "shapes/registry.py", "tests/test_shapes.py"}
    for edit in edits:
        assert edit.kind == "edit" and edit.new_path is None
        assert edit.seen_hash == hashlib.sha256(edit.path.read_bytes()).hexdigest()
    new = applied(edits)
    init = new[pyproj / "shapes/__init__.py"]
    assert "import Circle, Square, compute_area" in init and '"compute_area"' in init
    geometry = new[pyproj / "shapes/geometry.py"]
    assert "def compute_area(" in geometry
    assert "# area_of rounds: this comment mentions area_of" in geometry  # comment untouched
    assert "area_of = shape.area()" in geometry and "total += area_of" in geometry  # shadowing local
    registry = new[pyproj / "shapes/registry.py"]
    assert 'label = "area_of"' in registry and "compute_area(item, precision=1)" in registry
    labels = new[pyproj / "shapes/labels.py"]
    assert 'naïve = "été 🎉"; return f"{naïve} {compute_area(circle)}"' in labels
    assert 'emoji = "🎉🎉"; size = Circle(2.0).scale(0.5); return f"{emoji} {compute_area(size, precision=3)}"' in labels


def test_rename_keyword_parameter_updates_keyword_arguments_only_for_that_function(
        py_session: LspSession, pyproj: Path) -> None:
    geometry = pyproj / "shapes/geometry.py"
    edits = py_session.rename(geometry, pos_of(geometry, "precision", "def area_of"), "digits")
    new = applied(edits)
    assert "def area_of(shape: Circle | Square, *, digits: int = 2)" in new[geometry]
    assert "round(shape.area(), digits)" in new[geometry]
    assert "def total_area(shapes: list[Circle | Square], precision: int = 2)" in new[geometry]
    assert "area_of(item, digits=1)" in new[pyproj / "shapes/registry.py"]
    assert "area_of(Square(1.5), digits=1)" in new[pyproj / "tests/test_shapes.py"]


def test_rename_method_leaves_the_same_named_method_of_another_class(
        py_session: LspSession, pyproj: Path) -> None:
    geometry = pyproj / "shapes/geometry.py"
    edits = py_session.rename(geometry, pos_of(geometry, "scale", "def scale(self, factor: float) -> Circle"),
                              "resize")
    new = applied(edits)
    assert "def resize(self, factor: float) -> Circle" in new[geometry]
    assert "def scale(self, factor: float) -> Square" in new[geometry]
    assert pyproj / "shapes/registry.py" not in new or "def scale(self, factor: float) -> None" in new[
        pyproj / "shapes/registry.py"]
    assert "Circle(2.0).resize(0.5)" in new[pyproj / "shapes/labels.py"]


def test_rename_refused_for_a_keyword(py_session: LspSession, pyproj: Path) -> None:
    geometry = pyproj / "shapes/geometry.py"
    with pytest.raises(RenameRefused):
        py_session.rename(geometry, pos_of(geometry, "return", "return Circle"), "x")


def test_applied_rename_keeps_the_fixture_tests_passing(tmp_path: Path) -> None:
    """End to end on a private copy: rename, write the edits, run the project's own tests."""
    root = copy_fixture("pyproj", tmp_path)
    pool = SessionPool(request_timeout=120, ready_timeout=240)
    try:
        session = pool.get(root, "python")
        geometry = root / "shapes/geometry.py"
        edits = session.rename(geometry, pos_of(geometry, "area_of", "def area_of"), "compute_area")
        for path, text in applied(edits).items():
            path.write_text(text, encoding="utf-8")
        session.files_changed([e.path for e in edits])
        tests = root / "tests/test_shapes.py"
        test_text = tests.read_text(encoding="utf-8").replace("area_of(", "compute_area(").replace(
            "compute_area: 9.0", "area_of: 9.0")
        assert test_text == tests.read_text(encoding="utf-8")  # the rename already did exactly this
        run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(tests)],
                             cwd=root, capture_output=True, text=True, timeout=120)
        assert run.returncode == 0, run.stdout + run.stderr
        refs = session.references(geometry, pos_of(geometry, "compute_area", "def compute_area"))
        assert len(refs) == 11
    finally:
        pool.close_all()


def test_project_config_that_narrows_include_does_not_hide_files_from_rename(tmp_path: Path) -> None:
    root = copy_fixture("pyproj", tmp_path)
    with (root / "pyproject.toml").open("a") as handle:
        handle.write('\n[tool.pyright]\ninclude = ["shapes"]\n')
    pool = SessionPool(request_timeout=120, ready_timeout=240)
    try:
        session = pool.get(root, "python")
        geometry = root / "shapes/geometry.py"
        edits = session.rename(geometry, pos_of(geometry, "area_of", "def area_of"), "compute_area")
        assert session.hidden_files == 2  # tests/__init__.py and tests/test_shapes.py
        assert root / "tests/test_shapes.py" in {e.path for e in edits}
    finally:
        pool.close_all()


def test_concurrent_callers_from_many_threads(py_session: LspSession, pyproj: Path) -> None:
    geometry = pyproj / "shapes/geometry.py"
    at = pos_of(geometry, "area_of", "def area_of")
    with ThreadPoolExecutor(max_workers=6) as pool:
        results = list(pool.map(lambda _i: len(py_session.references(geometry, at)), range(12)))
    assert results == [11] * 12


def test_a_position_outside_the_file_is_a_clear_error(py_session: LspSession, pyproj: Path) -> None:
    with pytest.raises(BridgeError, match="outside the file"):
        py_session.references(pyproj / "shapes/geometry.py", Position(9999, 0))
    with pytest.raises(BridgeError, match="outside the file"):
        py_session.definition(pyproj / "shapes/geometry.py", Position(0, 500))


def test_rename_after_an_unannounced_edit_uses_the_new_content(py_session: LspSession, pyproj: Path) -> None:
    labels = pyproj / "shapes/labels.py"
    original = labels.read_text(encoding="utf-8")
    labels.write_text("# a line nobody announced\n" + original, encoding="utf-8")
    try:
        geometry = pyproj / "shapes/geometry.py"
        edits = py_session.rename(geometry, pos_of(geometry, "area_of", "def area_of"), "compute_area")
        [for_labels] = [e for e in edits if e.path == labels]
        assert for_labels.seen_hash == hashlib.sha256(labels.read_bytes()).hexdigest()
        assert sorted(c.range.start.line for c in for_labels.changes) == [3, 7, 11]
        assert "compute_area(size, precision=3)" in apply_changes(labels.read_text(encoding="utf-8"),
                                                                  for_labels.changes)
    finally:
        labels.write_text(original, encoding="utf-8")


def test_the_server_runs_with_nodes_compile_cache(py_session: LspSession, tmp_path: Path) -> None:
    """node keeps the compiled server bundle on disk between starts, unless the user chose a cache."""
    from lsp_bridge.servers import server_env

    assert py_session.pid is not None
    environ = Path(f"/proc/{py_session.pid}/environ").read_bytes().split(b"\0")
    cache = next(v for v in environ if v.startswith(b"NODE_COMPILE_CACHE=")).split(b"=", 1)[1].decode()
    assert Path(cache).is_dir() and any(Path(cache).iterdir()), "node wrote its cache there"
    assert server_env({"NODE_COMPILE_CACHE": str(tmp_path)})["NODE_COMPILE_CACHE"] == str(tmp_path)
