"""Back-to-back references queries through a real daemon and TypeScript's real server, right after
its cold start, with candidate files past a query's parse budget (name_occurrences
MAX_CHECKED_CHARS): a query for another name in the same files finds those the first one parsed
already checked (the file cache keeps each parsed file's identifier tokens), so with no gap between
the calls the leftovers are still all checked within two queries, each with the same hits a fully
checked query has."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from semantic_helpers import stop_daemon

from agent.config import Settings
from agent.daemon.client import DaemonClient
from agent.semantic.name_occurrences import MAX_CHECKED_CHARS

pytestmark = pytest.mark.timeout(600)

FILES = 20
FILLER = 250_000  # characters of plain declarations per candidate (~0.1 s of tree-sitter each)
LIB = "export class Widget {}\nexport function helper(): number {\n  return 1;\n}\n"
USE = 'import { Widget, helper } from "./lib";\n\nexport const w = new Widget();\nexport const h = helper();\n'
TSCONFIG = '{"compilerOptions": {"target": "ES2020", "module": "ES2020", "strict": true, "noEmit": true}, "include": ["src"]}\n'


def _candidate(i: int) -> str:
    """A script whose own, local Widget and helper are not the library's (the server's answer has
    none of them): two code occurrences of each name, then plain declarations."""
    filler = "".join(f'const c{i:02d}_{j:06d} = [{j}, "s{j}"];\n' for j in range(FILLER // 32))
    return (f"namespace Local{i} {{\n  class Widget {{}}\n  function helper(): number {{\n    return {i};\n  }}\n"
            f"  export const made = [new Widget(), helper()];\n}}\n{filler}")


@pytest.fixture(scope="module")
def ws(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    root = tmp_path_factory.mktemp("firstwarm").resolve()
    (root / "tsconfig.json").write_text(TSCONFIG, encoding="utf-8")
    (root / "src").mkdir()
    (root / "src" / "lib.ts").write_text(LIB, encoding="utf-8")
    (root / "src" / "use.ts").write_text(USE, encoding="utf-8")
    for i in range(FILES):
        (root / "src" / f"local_{i:02d}.ts").write_text(_candidate(i), encoding="utf-8")
    yield root
    stop_daemon(root)


def _unconfirmed(client: DaemonClient, line: int, column: int) -> tuple[int, int, int]:
    result = client.call_tool("find_references", {"file_path": "src/lib.ts", "line": line, "column": column,
                                                  "include_declaration": True, "limit": 0})
    assert result["success"], result
    data = result["data"]
    assert data["count"] == 3 and not data.get("cached")  # the declaration, the import, the use
    return data["unconfirmed_count"], data["unconfirmed_unchecked_files"], len(data["unconfirmed"])


def test_back_to_back_queries_check_every_candidate_within_two_queries(ws: Path) -> None:
    chars = sum(len((ws / "src" / f"local_{i:02d}.ts").read_text(encoding="utf-8")) for i in range(FILES))
    assert chars > 2 * MAX_CHECKED_CHARS + FILLER  # the first query (prepare + answer budgets) leaves some
    client = DaemonClient(ws, Settings.model_validate({"lsp": {"daemon_idle_timeout": 120, "query_cache": False}}))
    widget, helper = (1, 14), (2, 17)
    first = _unconfirmed(client, *widget)  # the cold start: its budgets leave candidates unchecked
    assert first[1] > 0, first
    # No gap between the calls: nothing runs between them, the queries themselves must get there.
    # helper's first query finds the files parsed for Widget checked: it leaves fewer unchecked.
    second = _unconfirmed(client, *helper)
    assert second[1] < first[1], (first, second)
    assert _unconfirmed(client, *widget) == (2 * FILES, 0, 30)  # all checked: every local Widget
    assert _unconfirmed(client, *helper) == (2 * FILES, 0, 30)  # (the list shows 30: MAX_UNCONFIRMED)
