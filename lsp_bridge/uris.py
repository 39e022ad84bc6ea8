"""file:// URIs <-> paths (the bridge only ever talks about local files)."""

from __future__ import annotations

import functools
from pathlib import Path

from pygls import uris

from lsp_bridge.errors import InvalidEdit


def path_to_uri(path: Path) -> str:
    uri = uris.from_fs_path(str(path))
    assert uri is not None
    return uri


@functools.lru_cache(maxsize=16384)  # a references answer names the same few thousand files each time
def uri_to_path(uri: str) -> Path:
    """The local path of a file:// URI; other schemes raise InvalidEdit (the bridge edits local files)."""
    path = uris.to_fs_path(uri) if uri.startswith("file:") else None
    if not path:
        raise InvalidEdit(f"not a local file URI: {uri!r}")
    return Path(path)
