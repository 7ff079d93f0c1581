"""Romanised Hindi read again in Devanagari: a second view of a complaint for the encoder.

The multilingual encoder was pre-trained on far more Devanagari Hindi than on Hindi typed in Latin letters,
so "khichdi me chhipkali giri thi" reads better to it as "खिचड़ी में छिपकली गिरी थी". A full transliterator
would guess a spelling for every word; this one only looks words up. Its lexicon is learned from Devanagari
text (the training data's own and the bundled complaints'): each Devanagari word is romanised as Hinglish is
typed and its spelling folded (``romanise.romanise``, ``romanise.fold_spelling``), and that key points back
to the word ("ulti", "ultee", "ulty" -> "उल्टी"). Romanisation guesses where Hindi drops a vowel, and typists
disagree ("chhipakli", "chhipkali"), so a word of five letters or more not found as it is is looked up once
more by its skeleton, its folded spelling without the letter "a" ("chpkli"). A Latin word of a romanised-Hindi
or mixed text that is found becomes that Devanagari word; every other word, digit, emoji and punctuation mark
stays as written, so the view has the original's words one for one:

    "aaj ki roti me plastic ki thaili mili"  ->  "आज की रोटी में plastic की थैली मिली"

The pipeline reads both texts and fuses the two probabilities, ``(1 − v) · p(text) + v · p(view)``, at the
weight ``v`` that validation macro-F1 prefers (0: the view is not kept); only texts the view changes are read
twice. Word ``i`` of the view is word ``i`` of the text, so explanations of the view map back word by word.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from .romanise import fold_spelling, romanise
from .text import detect_script

LEXICON_FILE = "transliteration.json"
FORMAT_VERSION = 1
#: a run of Devanagari letters and marks (a word of the lexicon)
DEVANAGARI_WORD = re.compile(r"[\u0900-\u0963\u0971-\u097F]+")
#: a Latin word of a text (what is looked up)
LATIN_WORD = re.compile(r"[A-Za-z]+")
#: scripts whose Latin words are Hindi (``text.detect_script``)
VIEWED_SCRIPTS = ("latn-hi", "mixed")
#: a word this long or longer is also looked up by its skeleton
SKELETON_LENGTH = 5


def skeleton(key: str) -> str:
    """A folded spelling without the letter "a", which romanisation and typists drop or keep at will."""
    return key.replace("a", "")


@dataclass
class DevanagariLexicon:
    """Folded romanised spelling -> the Devanagari word most often written for it."""

    table: dict[str, str] = field(default_factory=dict)
    loose: dict[str, str] = field(default_factory=dict)  # skeleton -> word, for keys of SKELETON_LENGTH letters or more

    @classmethod
    def from_texts(cls, texts: Iterable[str]) -> "DevanagariLexicon":
        """Learn the lexicon from the Devanagari words of ``texts`` (the most frequent word wins a shared key)."""
        counts = Counter(w for t in texts for w in DEVANAGARI_WORD.findall(t))
        table: dict[str, str] = {}
        loose: dict[str, str] = {}
        for word, _ in sorted(counts.items(), key=lambda item: (-item[1], item[0])):  # most frequent first
            key = fold_spelling(romanise(word))
            if len(key) >= 2 and key.isascii() and key.isalpha():
                table.setdefault(key, word)
                if len(key) >= SKELETON_LENGTH:
                    loose.setdefault(skeleton(key), word)
        return cls(table, loose)

    def lookup(self, word: str) -> str | None:
        """The Devanagari word for a Latin ``word``: by its folded spelling, else (when long) by its skeleton."""
        key = fold_spelling(word.lower())
        found = self.table.get(key)
        if found is None and len(key) >= SKELETON_LENGTH:
            found = self.loose.get(skeleton(key))
        return found

    def __len__(self) -> int:
        return len(self.table)

    def applies(self, text: str) -> bool:
        """Whether ``text`` is romanised Hindi or mixed script, whose Latin words the view rewrites."""
        return detect_script(text) in VIEWED_SCRIPTS

    def view(self, text: str) -> str:
        """``text`` with every Latin word the lexicon knows written in Devanagari (unchanged when it does not
        ``apply``)."""
        if not self.table or not self.applies(text):
            return text
        return LATIN_WORD.sub(lambda m: self.lookup(m.group(0)) or m.group(0), text)

    def save(self, folder: str | Path) -> None:
        """Write ``transliteration.json`` into ``folder``."""
        from .atomic import write_text_atomically

        data = {
            "format": FORMAT_VERSION,
            "table": dict(sorted(self.table.items())),
            "loose": dict(sorted(self.loose.items())),
        }
        write_text_atomically(Path(folder) / LEXICON_FILE, json.dumps(data, ensure_ascii=False, indent=0) + "\n")

    @classmethod
    def load(cls, folder: str | Path) -> "DevanagariLexicon":
        """Read ``transliteration.json`` from ``folder``; a damaged file is an error naming it."""
        from .transformer import CheckpointError

        file = Path(folder) / LEXICON_FILE
        try:
            data = json.loads(file.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise CheckpointError(f"{file} is missing: the model's config fuses a transliteration view") from None
        except (json.JSONDecodeError, UnicodeDecodeError) as e:
            raise CheckpointError(f"{file} is not valid JSON: {e}") from e
        ok = isinstance(data, dict) and data.get("format") == FORMAT_VERSION
        tables = [data.get(name) for name in ("table", "loose")] if ok else [None]
        if not all(isinstance(t, dict) and all(isinstance(k, str) and isinstance(v, str) for k, v in t.items())
                   for t in tables):  # fmt: skip
            raise CheckpointError(f"{file} is not a transliteration lexicon of format {FORMAT_VERSION}")
        return cls(*tables)
