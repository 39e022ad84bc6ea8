"""The file cache's word -> files index (filecache.FileCache.index_words): which cached texts hold a
word, so a long-lived session's search for one name answers without scanning every text."""

from __future__ import annotations

import re

# A "word" as word_positions (name_occurrences) sees it: a maximal run of letters, digits, "_" and "$".
WORD = re.compile(r"[\w$]+")


def index_words(words: dict[str, str | list[str]], rel: str, text: str, *, add: bool) -> int:
    """Add (or remove) `rel` as a holder of each word of `text`; the change in (word, file) pairs.
    Most words are in one file: a word maps to that file's path, or to a list of paths (a third of
    the memory of sets)."""
    change = 0
    for word in set(WORD.findall(text)):
        held = words.get(word)
        if add:
            if held is None:
                words[word] = rel
            elif isinstance(held, str):
                words[word] = [held, rel]
            else:
                held.append(rel)
            change += 1
        elif held == rel:
            del words[word]
            change -= 1
        elif isinstance(held, list) and rel in held:
            held.remove(rel)
            change -= 1
            if len(held) == 1:
                words[word] = held[0]
    return change
