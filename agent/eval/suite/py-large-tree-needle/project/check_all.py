"""Imports every generated module (a stale import of a removed function fails here)."""
import importlib
import pathlib
import sys

import tools.checksums

if hasattr(tools.checksums, "legacy_checksum"):
    sys.exit("legacy_checksum still exists")
count = 0
for path in sorted(pathlib.Path("gen").rglob("mod*.py")):
    importlib.import_module(".".join(path.with_suffix("").parts))
    count += 1
if count < 2000:
    sys.exit(f"only {count} generated modules: the tree was damaged")
print(f"{count} modules import")
