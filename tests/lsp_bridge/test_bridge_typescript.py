"""TypeScript through the bridge on fixtures/tsproj, with both servers: TypeScript 7's native
`tsc --lsp` (the default) and typescript-language-server over tsserver 5.9."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from bridgekit import applied, pos_of, rel_lines, require_server

from lsp_bridge import LspSession, SessionPool

SERVERS = ["tsc", "typescript-language-server"]


@pytest.fixture(scope="module", params=SERVERS)
def ts(request: pytest.FixtureRequest, tsproj: Path) -> Iterator[LspSession]:
    require_server(request.param)
    pool = SessionPool(servers={"typescript": request.param}, request_timeout=120, ready_timeout=240)
    session = pool.get(tsproj, "typescript")
    assert session.ready(timeout=240)
    yield session
    pool.close_all()


def test_default_typescript_server_is_the_native_one() -> None:
    from lsp_bridge import DEFAULT_SERVERS

    assert DEFAULT_SERVERS["typescript"] == "tsc"


def test_references_across_modules(ts: LspSession, tsproj: Path) -> None:
    geometry = tsproj / "src/geometry.ts"
    refs = ts.references(geometry, pos_of(geometry, "totalArea", "export function totalArea"))
    assert rel_lines(tsproj, refs) == [("src/geometry.ts", 3), ("src/index.ts", 0), ("src/index.ts", 5)]
    for loc in refs:
        line = loc.path.read_text(encoding="utf-8").split("\n")[loc.range.start.line]
        assert line[loc.range.start.character:loc.range.end.character] == "totalArea"


def test_interface_method_references_and_implementations(ts: LspSession, tsproj: Path) -> None:
    models = tsproj / "src/models.ts"
    refs = ts.references(models, pos_of(models, "area", "area(): number;"))
    assert rel_lines(tsproj, refs) == [("src/geometry.ts", 4), ("src/models.ts", 2), ("src/models.ts", 9),
                                       ("src/models.ts", 18)]
    impls = ts.implementation(models, pos_of(models, "Shape", "export interface Shape"))
    assert rel_lines(tsproj, impls) == [("src/models.ts", 5), ("src/models.ts", 14)]


def test_definition_from_a_line_with_emoji(ts: LspSession, tsproj: Path) -> None:
    index = tsproj / "src/index.ts"
    [loc] = ts.definition(index, pos_of(index, "totalArea", "🎉"))
    assert (loc.path, loc.range.start.line) == (tsproj / "src/geometry.ts", 3)


def test_rename_from_a_use_site_renames_the_declaration(ts: LspSession, tsproj: Path) -> None:
    index = tsproj / "src/index.ts"
    edits = ts.rename(index, pos_of(index, "totalArea", "🎉"), "sumAreas")
    new = applied(edits)
    assert set(new) == {index, tsproj / "src/geometry.ts"}
    assert new[index].startswith('import { makeCircle, sumAreas } from "./geometry";')  # no alias
    assert 'const mood = "été 🎉"; const sum = sumAreas(shapes);' in new[index]
    assert 'const label = "totalArea";' in new[index]  # string untouched
    geometry = new[tsproj / "src/geometry.ts"]
    assert "export function sumAreas(shapes: Shape[])" in geometry
    assert "// totalArea sums areas: this comment mentions totalArea" in geometry  # comment untouched


def test_rename_tsx_component_used_from_another_tsx(ts: LspSession, tsproj: Path) -> None:
    panel = tsproj / "src/components/Panel.tsx"
    edits = ts.rename(panel, pos_of(panel, "Badge", "<Badge"), "ShapeBadge")
    new = applied(edits)
    assert set(new) == {panel, tsproj / "src/components/Badge.tsx"}
    assert 'import { ShapeBadge } from "./Badge";' in new[panel] and "<ShapeBadge shape={shape} />" in new[panel]
    assert "export function ShapeBadge(props" in new[tsproj / "src/components/Badge.tsx"]


def test_rename_class_used_across_files(ts: LspSession, tsproj: Path) -> None:
    models = tsproj / "src/models.ts"
    edits = ts.rename(models, pos_of(models, "Circle", "export class Circle"), "Disc")
    new = applied(edits)
    assert "export class Disc implements Shape" in new[models]
    assert 'import { Disc, Shape } from "./models";' in new[tsproj / "src/geometry.ts"]
    assert "return new Disc(radius);" in new[tsproj / "src/geometry.ts"]
    assert 'name = "circle";' in new[models]


def test_diagnostics_report_type_errors(ts: LspSession, tsproj: Path) -> None:
    bad = tsproj / "src/bad.ts"
    bad.write_text('import { totalArea } from "./geometry";\nconst n: string = totalArea([]);\n')
    try:
        ts.files_changed([bad])
        found = [d for d in ts.diagnostics(bad) if d.severity in ("error", "warning")]
        assert [(d.range.start.line, d.severity) for d in found] == [(1, "error")]
        assert "string" in found[0].message
        assert ts.diagnostics(tsproj / "src/geometry.ts") == []
    finally:
        bad.unlink()
        ts.files_changed([bad])
