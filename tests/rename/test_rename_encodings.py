"""A rename through the real basedpyright in files that are not UTF-8: a GBK file and a Latin-1 file,
each with non-ASCII text before the identifier on the same line. The bridge is given the workspace's
decoder, so the server, its columns and the written text agree; the files keep their encoding and
only the identifier's bytes change."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.timeout(600)

CORE = 'def area_of(width: int, height: int) -> int:\n    """The area."""\n    return width * height\n'
GBK = ('# 这是一个用中文写的模块，用来测试编码的处理是否正确。\n'
       '# 面积的计算函数在核心模块里面定义。\n'
       'from pkg.core import area_of\n'
       '\n'
       '标签 = "面积"; 结果 = area_of(2, 3)  # 计算面积\n'
       '说明 = "长方形的面积等于长乘以宽"\n')
LATIN1 = ('# Ce module est écrit en français, encodé en Latin-1 (ISO-8859-1).\n'
          '# Numéro de série: àéèêëîïôöùûüç\n'
          'from pkg.core import area_of\n'
          '\n'
          'café = "crème brûlée"; résultat = area_of(4, 5)  # déjà vu\n')


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = (tmp_path / "proj").resolve()
    (root / "pkg").mkdir(parents=True)
    (root / "pkg/__init__.py").write_text("", encoding="utf-8")
    (root / "pkg/core.py").write_text(CORE, encoding="utf-8")
    (root / "pkg/gbk_user.py").write_bytes(GBK.encode("gbk"))
    (root / "pkg/latin_user.py").write_bytes(LATIN1.encode("latin-1"))
    monkeypatch.setenv("CODEAGENT_LSP_DAEMON", "never")
    return root


def test_gbk_and_latin1_files_renamed_exactly_in_their_encoding(project: Path, cli: Callable[..., Any]) -> None:
    out = cli("rename", "pkg/core.py:1:5", "compute_area", "--root", str(project), "--json", cwd=project)
    assert out.returncode == 0, out.stderr
    data = out.json["data"]
    assert sorted(data["files"]) == ["pkg/core.py", "pkg/gbk_user.py", "pkg/latin_user.py"]
    # the call after the non-ASCII text is found by the server and placed at the character column
    assert {"path": "pkg/gbk_user.py", "line": 5, "column": 17, "end_line": 5, "end_column": 24,
            "reason": "lsp"} in data["sites"]
    assert {"path": "pkg/latin_user.py", "line": 5, "column": 35, "end_line": 5, "end_column": 42,
            "reason": "lsp"} in data["sites"]
    assert data["site_count"] == 5
    assert (project / "pkg/gbk_user.py").read_bytes() == GBK.replace("area_of", "compute_area").encode("gbk")
    assert (project / "pkg/latin_user.py").read_bytes() == LATIN1.replace("area_of", "compute_area").encode("latin-1")
    assert (project / "pkg/core.py").read_bytes() == CORE.replace("area_of", "compute_area").encode("utf-8")
