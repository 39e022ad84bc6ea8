"""The receivers change_signature rules out by syntax before asking the server (receivers.py):
each skip must be one the server would answer the same way, and anything else is still asked."""

from __future__ import annotations

from pathlib import Path

from agent.refactor.rename.pysource import PySource
from agent.refactor.signature.receivers import unrelated_receiver

SOURCE = '''import os
import os.path as osp
import sys
from pkg import mod
class Own:
    def close(self):
        self.close()
        os.close(1)
        osp.close()
        sys.close()
        mod.close()
        "text".close()
        self.inner.close()
class Borrows:
    def run(self):
        self.close()
def rebinding():
    sys = mod
'''


def _verdicts(family: set[str]) -> dict[str, bool]:
    src = PySource(Path("m.py"), SOURCE)
    out = {}
    for ident in src.identifiers("close"):
        attr = ident.parent
        if attr is not None and attr.type == "attribute":
            receiver = attr.child_by_field_name("object")
            assert receiver is not None
            out[f"{ident.start_point[0] + 1}:{src.line_text(ident.start_point[0]).strip()}"] = \
                unrelated_receiver(src, receiver, "close", family)
    return out


def test_syntax_rules_out_modules_literals_and_own_methods() -> None:
    assert _verdicts(set()) == {
        "7:self.close()": True,  # Own defines close and is not in the family
        "8:os.close(1)": True,  # `import os`; `import os.path as osp` does not bind os
        "9:osp.close()": True,
        "10:sys.close()": False,  # sys is rebound in rebinding(): it may be anything
        "11:mod.close()": False,  # `from pkg import mod` may bind any object
        "12:\"text\".close()": True,
        "13:self.inner.close()": False,
        "16:self.close()": False,  # Borrows does not define close: it may come from a base
    }


def test_a_family_class_is_always_asked() -> None:
    assert _verdicts({"Own"})["7:self.close()"] is False
