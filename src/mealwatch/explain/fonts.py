"""Fonts for pictures of words in any script: matplotlib's DejaVu Sans has no Devanagari, Bengali or Tamil.

``families_for(words)`` returns a font-family fallback list (DejaVu Sans first) that covers the
characters of ``words`` with the installed fonts (Debian: ``fonts-noto-core``), and names what no
installed font can draw, so a picture can say so instead of drawing empty boxes silently.
"""

from __future__ import annotations

import functools
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass

from matplotlib import font_manager
from matplotlib.ft2font import FT2Font

BASE_FAMILY = "DejaVu Sans"
#: words in family names of fonts worth trying for the scripts of Indian complaints
SCRIPT_HINTS = ("Devanagari", "Bengali", "Gurmukhi", "Gujarati", "Oriya", "Tamil", "Telugu", "Kannada",
                "Malayalam", "Sinhala", "Lohit", "Mangal", "Nirmala", "Kohinoor", "Noto Sans")  # fmt: skip
FONT_PACKAGE_HINT = "install a font with these scripts (Debian: apt-get install fonts-noto-core)"


@dataclass(frozen=True)
class FontChoice:
    """The families to draw with (in fallback order) and the characters none of them has."""

    families: tuple[str, ...]
    missing: frozenset[str]

    @property
    def note(self) -> str:
        """A one-line note for the picture, or "" when every character can be drawn."""
        if not self.missing:
            return ""
        return f"{len(self.missing)} characters have no installed font: {FONT_PACKAGE_HINT}"


@functools.cache
def _candidates() -> tuple[tuple[str, frozenset[int]], ...]:
    """(family, code points) of the base font and of installed fonts whose names suggest Indic scripts."""
    found: dict[str, frozenset[int]] = {}
    entries = sorted(font_manager.fontManager.ttflist, key=lambda f: (f.name != BASE_FAMILY, "UI" in f.name, f.name))
    for entry in entries:
        if entry.name in found or not (entry.name == BASE_FAMILY or any(h in entry.name for h in SCRIPT_HINTS)):
            continue
        try:
            found[entry.name] = frozenset(FT2Font(entry.fname).get_charmap())
        except (OSError, RuntimeError):  # an unreadable font file is skipped, not fatal
            continue
    return tuple(found.items())


def _drawable(ch: str) -> bool:
    """Characters that need a glyph (not spaces, joiners or other format characters)."""
    return not (ch.isspace() or unicodedata.category(ch) in ("Cf", "Cc"))


def _script(ch: str) -> str:
    """The script word of a character's Unicode name ("DEVANAGARI" for "DEVANAGARI LETTER KA")."""
    return unicodedata.name(ch, "UNKNOWN").split(" ")[0]


def families_for(words: Iterable[str]) -> FontChoice:
    """The fewest installed families (after DejaVu Sans) that draw every character of ``words``."""
    needed = {ch for w in words for ch in w if _drawable(ch)}
    families = [BASE_FAMILY]
    candidates = _candidates()
    covered = next((cps for name, cps in candidates if name == BASE_FAMILY), frozenset())
    left = {ch for ch in needed if ord(ch) not in covered}
    for name, cps in sorted(candidates, key=lambda c: -sum(_script(ch) in c[0].upper() for ch in left)):
        if not left:
            break
        hit = {ch for ch in left if ord(ch) in cps}
        if hit:
            families.append(name)
            left -= hit
    return FontChoice(tuple(families), frozenset(left))
