"""Which codeagent a benchmark imports: the installed one when there is one, else this checkout.

A bench's own client must be the same code as the `codeagent` processes it measures: a daemon
serves only clients of its own installation (it stops when another's asks), so a bench that put
this checkout first on its path beside a `pip install .` (the way README's figures are measured)
failed at its first daemon call. An editable install finds this checkout either way."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

CHECKOUT = Path(__file__).resolve().parent.parent


def use() -> None:
    """Put this checkout on the import path unless an installed codeagent is importable."""
    if importlib.util.find_spec("agent") is None and str(CHECKOUT) not in sys.path:
        sys.path.insert(0, str(CHECKOUT))
