"""Where a definition comes from, as far as its path tells: hand-written source, a stub that
only declares it (`.pyi`, `.d.ts`), or generated / vendored code (build output, installed or
copied packages, minified bundles, generated headers). `find_symbol` ranks matches in that order:
a package's `dist/esm/Observable.js` and `dist/types/Observable.d.ts` must not come before the
`src/Observable.ts` a user edits."""

from __future__ import annotations

import re

SOURCE, STUB, GENERATED_STUB, GENERATED = 0, 1, 2, 3
KIND_NAMES = {SOURCE: "source", STUB: "stub", GENERATED_STUB: "generated stub", GENERATED: "generated"}

# Folder names whose content is build output or someone else's code, at any depth.
GENERATED_DIRS = frozenset({"dist", "build", "out", "node_modules", "vendor", "vendored", "third_party",
                            "site-packages", "_build", ".next", "bower_components", "esm2015", "fesm2015"})
_GENERATED_FILE = re.compile(
    r"(\.min\.(js|mjs|cjs|css)|\.bundle\.js|[._-]generated\.\w+|_pb2\.pyi?|\.pb\.(go|h|cc)|\.g\.dart)$", re.I)
_STUB_FILE = re.compile(r"(\.pyi|\.d\.ts|\.d\.mts|\.d\.cts)$", re.I)


def provenance(path: str) -> int:
    """The rank of a workspace-relative path ('/'-separated), lower is better: SOURCE, STUB,
    GENERATED_STUB (declarations emitted into dist/: they still say more than the emitted code)
    or GENERATED."""
    parts = path.split("/")
    stub = _STUB_FILE.search(parts[-1]) is not None
    if any(part in GENERATED_DIRS for part in parts[:-1]) or _GENERATED_FILE.search(parts[-1]):
        return GENERATED_STUB if stub else GENERATED
    return STUB if stub else SOURCE
