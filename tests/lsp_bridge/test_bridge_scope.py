"""Which files a project's own pyright configuration hides from the server (they are opened so
references and renames still cover them)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from lsp_bridge.pyright_scope import hidden_by_config


def test_hidden_by_config(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[tool.pyright]\ninclude = ["src/pkg"]\nexclude = ["src/pkg/gen"]\n')
    files = [tmp_path / p for p in ("src/pkg/a.py", "src/pkg/gen/b.py", "tests/test_a.py", "setup.py")]
    assert hidden_by_config(tmp_path, files) == [files[1], files[2], files[3]]
    (tmp_path / "pyrightconfig.json").write_text('{\n  // JSONC\n  "include": ["."]\n}')
    assert hidden_by_config(tmp_path, files) == []  # pyrightconfig.json wins over pyproject.toml
    (tmp_path / "pyrightconfig.json").unlink()
    (tmp_path / "pyproject.toml").write_text('[tool.basedpyright]\nexclude = ["**/gen"]\n')
    assert hidden_by_config(tmp_path, files) == [files[1]]
    (tmp_path / "pyproject.toml").write_text("[tool.ruff]\nline-length = 100\n")
    assert hidden_by_config(tmp_path, files) == []


def test_no_config_reads_no_file_list(tmp_path: Path) -> None:
    def never() -> list[Path]:
        raise AssertionError("the file list was read without a narrowing config")

    def lazy() -> Iterator[Path]:
        yield from never()

    assert hidden_by_config(tmp_path, lazy()) == []
