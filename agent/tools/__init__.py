"""Tool modules; importing this package registers every tool. One module per family."""

from . import files  # noqa: F401
