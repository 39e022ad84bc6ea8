"""Tool modules; importing this package registers every tool. One module per family."""

from . import (
    agent_tools,  # noqa: F401
    code,  # noqa: F401
    edit,  # noqa: F401
    files,  # noqa: F401
    project,  # noqa: F401
    refactor,  # noqa: F401
    search,  # noqa: F401
    shell,  # noqa: F401
    syntax,  # noqa: F401
)
