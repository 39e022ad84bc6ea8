"""The workspace paths no command may change, and how bubblewrap keeps them so.

Protected (PROTECTED_NAMES, relative to the workspace root): codeagent's state folder and project
file, and the parts of .git that make host-side git run programs (config: fsmonitor, pager,
filters, aliases; hooks). The rest of .git stays writable so that git itself works inside.

Under bubblewrap each existing protected path is a read-only bind mount onto itself, so writing
fails (EROFS) and renaming or deleting it fails (EBUSY: a mount point cannot be moved or
removed); the folders holding one (.git) are bound onto themselves too, so that `mv .git x` cannot
carry the protected files away and let a new .git take their place. A missing `.codeagent.toml`
gets an empty read-only folder in its place, so it cannot be created (a folder rather than
/dev/null: git skips an empty folder, while a device file makes `git add -A` fail); bubblewrap
leaves the empty mount-point folder on the host, which the runner removes after the call
(namespaces.remove_placeholders, shared with the Landlock backend).

Under bubblewrap a protected path reached through a symlink is refused: a bind would show the
link's target (anything, even outside the workspace), and the link itself, not being a mount
point, could be replaced by the command. (Landlock puts such links back after the call.)
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from .errors import UnsafeWorkspace

PROTECTED_NAMES = (".codeagent", ".codeagent.toml", ".git/config", ".git/hooks")
# Of those, the ones that must not be created either when missing.
NO_CREATE_NAMES = (".codeagent", ".codeagent.toml")


@dataclass
class Protection:
    """The protected paths of one workspace, as absolute paths below its real root."""

    protected: list[str] = field(default_factory=list)  # exist: shown read-only
    no_create: list[str] = field(default_factory=list)  # missing: must not be created


def find_protected(root: str, *, refuse_links: bool) -> Protection:
    """Protected paths of the workspace `root` (a real path). With `refuse_links` (bubblewrap,
    whose mounts would follow a link), UnsafeWorkspace when one of them, or a folder on its way such
    as .git, is a symlink; otherwise links are listed too (Landlock puts them back after the call)."""
    out = Protection()
    for name in PROTECTED_NAMES:
        path = os.path.join(root, name)
        if os.path.lexists(path):
            real = os.path.realpath(path)
            if refuse_links and real != path:
                raise UnsafeWorkspace(
                    f"the workspace's {name} is reached through a symlink (it leads to {real}); codeagent keeps "
                    f"{name} read-only for commands and cannot do so through a link, so shell commands are refused "
                    f"here: replace the link with the real {'folder' if os.path.isdir(path) else 'file'}")
            out.protected.append(path)
        elif name in NO_CREATE_NAMES:
            parent = os.path.dirname(path)
            if refuse_links and os.path.realpath(parent) != parent:
                raise UnsafeWorkspace(f"the folder holding {name} is reached through a symlink; shell commands are "
                                      "refused here")
            out.no_create.append(path)
    return out


def bwrap_protect_args(root: str, protected: list[str], no_create: list[str]) -> list[str]:
    """bubblewrap options (after the workspace's own --bind) that keep the protected paths so."""
    out: list[str] = []
    pinned: list[str] = []
    for path in [*protected, *no_create]:
        parent = os.path.dirname(path)
        if parent != root and parent not in pinned and os.path.isdir(parent) and not os.path.islink(parent):
            pinned.append(parent)
            out += ["--bind", parent, parent]
    for path in protected:
        out += ["--ro-bind", path, path]
    for path in no_create:
        out += ["--size", "4096", "--tmpfs", path, "--remount-ro", path]
    return out
