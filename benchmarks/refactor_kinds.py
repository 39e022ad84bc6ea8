"""The other task kinds of benchmarks/refactor_bench.py: a move, a signature change and a
symbol-aware bug fix, on the bundled eval suite's Python projects and judged by their judges (the
sandboxed unittest run plus the expected/forbidden/unchanged file checks).

Each kind has a scripted optimal policy per toolset, with no knowledge beyond what its tools show:
- text: search the name (\\bNAME\\b), read every file with a match (a model must see the code it
  edits), then the edits, one replace_in_file / write_file each;
- semantic: the one semantic tool that does the job (move_symbol, change_signature; when the tool
  refuses, the policy reads why and finishes with find_references and text edits); for the bug
  fix, find_references lists every caller with its line, one read of the file whose fix is not
  on the reference line, then one replace_in_file per fix.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

Turn = list[tuple[str, dict[str, Any]]]


def _search(name: str) -> Turn:
    return [("search_in_files", {"pattern": rf"\b{name}\b", "glob": "*.py", "max_results": 5000})]


def _reads(*paths: str) -> Turn:
    return [("read_file", {"file_path": p}) for p in paths]


def _replace(path: str, old: str, new: str) -> tuple[str, dict[str, Any]]:
    return ("replace_in_file", {"file_path": path, "old_text": old, "new_text": new})


@dataclass(frozen=True)
class KindTask:
    name: str
    kind: str  # move, signature, bugfix
    suite_task: str  # the folder under agent/eval/suite
    text: tuple[Turn, ...]
    semantic: tuple[Turn, ...]
    # what the semantic policy does when its tool refuses ("nothing was changed"): it reads the
    # refusal and finishes the job with the tools it has left
    fallback: tuple[Turn, ...] = ()


SLUGIFY = '''def slugify(title: str) -> str:
    text = unicodedata.normalize("NFKD", title).encode("ascii", "ignore").decode("ascii")
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")
'''

MOVE = KindTask(
    "move/slugify", "move", "py-move-function",
    text=(
        _search("slugify"),
        _reads("blog/utils.py", "blog/posts.py", "blog/feed.py", "tests/test_blog.py", "blog/text.py"),
        [_replace("blog/text.py", "def excerpt(", f"import re\nimport unicodedata\n\n\n{SLUGIFY}\n\ndef excerpt("),
         _replace("blog/utils.py", f"import re\nimport unicodedata\nfrom datetime import date\n\n\n{SLUGIFY}\n\n",
                  "from datetime import date\n\n\n"),
         _replace("blog/posts.py", "from blog.utils import slugify, year_folder",
                  "from blog.text import slugify\nfrom blog.utils import year_folder"),
         _replace("blog/feed.py", "from blog import utils", "from blog import text"),
         _replace("blog/feed.py", "utils.slugify(t)", "text.slugify(t)")],
    ),
    semantic=([("move_symbol", {"file_path": "blog/utils.py", "symbol": "slugify", "dest": "blog/text.py"})],),
)

SIGNATURE_EDITS = [
    _replace("img/ops.py", "def resize(image: dict, width: int, height: int)",
             "def resize(image: dict, height: int, width: int)"),
    _replace("img/thumbs.py", "resize(image, 160, 90)", "resize(image, 90, 160)"),
    _replace("img/thumbs.py", "resize(image, side, height=side)", "resize(image, height=side, width=side)"),
    _replace("img/pipeline.py", "ops.resize(image, 600, 800)", "ops.resize(image, 800, 600)"),
]
SIGNATURE = KindTask(
    "signature/resize", "signature", "py-signature-swap",
    text=(
        _search("resize"),
        _reads("img/ops.py", "img/thumbs.py", "img/pipeline.py"),
        SIGNATURE_EDITS,
    ),
    semantic=([("change_signature", {"file_path": "img/ops.py", "symbol": "resize",
                                     "new_params": "(image: dict, height: int, width: int)"})],),
    # refused: tests/test_img.py passes `resize` to inspect.signature (a reference that is not a
    # call); the callers come from find_references, the edits are the text policy's
    fallback=([("find_references", {"file_path": "img/ops.py", "symbol": "resize"})], SIGNATURE_EDITS),
)

_FIXES = [
    _replace("users/views.py", "    return find_user(user_id).name",
             '    user = find_user(user_id)\n    return user.name if user is not None else "unknown"'),
    _replace("users/views.py", '    return f"Hello, {user.name}!"',
             '    return f"Hello, {user.name}!" if user is not None else "Hello!"'),
    _replace("users/mail.py", "    return repo.find_user(user_id).email",
             "    user = repo.find_user(user_id)\n    return user.email if user is not None else None"),
]
BUGFIX = KindTask(
    "bugfix/find_user", "bugfix", "py-bugfix-every-caller",
    text=(_search("find_user"), _reads("users/repo.py", "users/views.py", "users/mail.py"), _FIXES),
    # the reference lines show two of the three fixes; greeting's is on the line after its call
    semantic=([("find_references", {"file_path": "users/repo.py", "symbol": "find_user"})],
              _reads("users/views.py"), _FIXES),
)

KIND_TASKS = [MOVE, SIGNATURE, BUGFIX]
