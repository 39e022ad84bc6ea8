"""The rename engine: the language server's rename, completed (stubs, method families, aliases,
`__all__`/`__slots__`, attribute-name strings, keyword arguments), every edit with its reason,
and a review list of occurrences no rule confirmed. See engine.py."""

from .engine import RenameLimits, complete_references, plan_rename
from .model import REASONS, RenamePlan, ReviewItem, SiteEdit
from .render import render_plan

__all__ = ["REASONS", "RenameLimits", "RenamePlan", "ReviewItem", "SiteEdit", "complete_references", "plan_rename",
           "render_plan"]
