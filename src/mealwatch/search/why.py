"""Why a search result came back: the words it shares with the query (read in one script: Devanagari romanised,
spellings folded, so "bachhe behosh" meets "बच्चे बेहोश") and, for similar complaints, the labels they share."""

from __future__ import annotations

import re
from collections.abc import Iterable

from ..romanise import fold_spelling, romanise_text
from ..text import normalize

_WORD = re.compile(r"[^\W_][\w\u0900-\u0dff]*")
#: words too common in complaints to say why two are alike
COMMON = frozenset(
    "the and for was were are this that with from have has had not but our all school schools food meal meals "
    "mid day today children child students student khana hai hain tha thi the ke ki ka ko me mein se par aur "
    "bhi koi nahi ek".split()
)  # fmt: skip


def words(text: str) -> dict[str, str]:
    """A text's words of three letters or more as compared (romanised, folded) -> the word as written."""
    out: dict[str, str] = {}
    for written in _WORD.findall(normalize(text)):
        key = fold_spelling(romanise_text(written.lower()))
        if len(key) >= 3 and key not in COMMON and written.lower() not in COMMON:
            out.setdefault(key, written)
    return out


def shared_words(query: str, text: str, limit: int = 6) -> list[str]:
    """The words of ``text`` (as written in it) that ``query`` also has, in the order they appear in ``text``."""
    wanted = words(query)
    return [w for key, w in words(text).items() if key in wanted][:limit]


def shared_labels(a: Iterable[str], b: Iterable[str]) -> list[str]:
    """Labels both complaints carry, in ``a``'s order."""
    other = set(b)
    return [label for label in a if label in other]
