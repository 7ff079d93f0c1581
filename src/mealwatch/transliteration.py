"""A complaint typed in Latin letters read again in its language's own script: a second view for the encoder.

The multilingual encoder was pre-trained on far more Devanagari Hindi than on Hindi typed in Latin letters,
so "khichdi me chhipkali giri thi" reads better to it as "खिचड़ी में छिपकली गिरी थी"; so does Tanglish in Tamil
script, and every other romanised language. A full transliterator would guess a spelling for every word; this
one only looks words up. A lexicon per language is learned from the native-script words of that language's
training texts (and, for Hindi, the bundled complaints'): each word is romanised as it is commonly typed and its
spelling folded (``romanise.romanise_every_script``, ``romanise.fold_spelling``), and that key points back to the
word ("ulti", "ultee", "ulty" -> "उल्टी"; "vanti", "vaanti" -> "வாந்தி"). Romanisation guesses where Hindi drops
a vowel, and typists disagree ("chhipakli", "chhipkali"), so a word of five letters or more not found as it is
is looked up once more by its skeleton, its folded spelling without the letter "a" ("chpkli"). A Latin word of a
text typed (partly) in Latin letters that is found becomes that native word; every other word, digit, emoji and
punctuation mark stays as written, so the view has the original's words one for one. A text's language is the pipeline's
(``Pipeline.languages_of``: romanised Tamil is identified as Tamil):

    "aaj ki roti me plastic ki thaili mili"  ->  "आज की रोटी में plastic की थैली मिली"

The pipeline reads both texts and fuses the two probabilities, ``(1 − v) · p(text) + v · p(view)``, at the
weight ``v`` that validation macro-F1 prefers (0: the view is not kept); only texts the view changes are read
twice. Word ``i`` of the view is word ``i`` of the text, so explanations of the view map back word by word.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from .romanise import fold_spelling, romanise_every_script
from .text import detect_script

LEXICON_FILE = "transliteration.json"
#: 1: one lexicon, Hindi's; 2: a lexicon per language
FORMAT_VERSION = 2
#: a run of letters and signs of an Indian script but Urdu's (a word of a lexicon); the danda (।, ॥) is punctuation
NATIVE_WORD = re.compile(r"[\u0900-\u0963\u0966-\u0DFF]+")
#: a Latin word of a text (what is looked up)
LATIN_WORD = re.compile(r"[A-Za-z]+")
#: scripts (``text.detect_script``) whose Latin words the view rewrites, when the text's language has a lexicon
VIEWED_SCRIPTS = ("latn-hi", "latn-en", "latn", "mixed")
#: a word this long or longer is also looked up by its skeleton
SKELETON_LENGTH = 5


def skeleton(key: str) -> str:
    """A folded spelling without the letter "a", which romanisation and typists drop or keep at will."""
    return key.replace("a", "")


@dataclass
class Lexicon:
    """One language's folded romanised spelling -> the word in its own script most often written for it."""

    table: dict[str, str] = field(default_factory=dict)
    loose: dict[str, str] = field(default_factory=dict)  # skeleton -> word, for keys of SKELETON_LENGTH letters or more

    @classmethod
    def from_texts(cls, texts: Iterable[str]) -> "Lexicon":
        """Learn the lexicon from the native-script words of ``texts`` (the most frequent word wins a shared key)."""
        counts = Counter(w for t in texts for w in NATIVE_WORD.findall(t))
        table: dict[str, str] = {}
        loose: dict[str, str] = {}
        for word, _ in sorted(counts.items(), key=lambda item: (-item[1], item[0])):  # most frequent first
            key = fold_spelling(romanise_every_script(word))
            if len(key) >= 2 and key.isascii() and key.isalpha():
                table.setdefault(key, word)
                if len(key) >= SKELETON_LENGTH:
                    loose.setdefault(skeleton(key), word)
        return cls(table, loose)

    def lookup(self, word: str) -> str | None:
        """The native word for a Latin ``word``: by its folded spelling, else (when long) by its skeleton."""
        key = fold_spelling(word.lower())
        found = self.table.get(key)
        if found is None and len(key) >= SKELETON_LENGTH:
            found = self.loose.get(skeleton(key))
        return found

    def __len__(self) -> int:
        return len(self.table)

    def rewrite(self, text: str) -> str:
        """``text`` with every Latin word the lexicon knows written in its script, every other character kept."""
        return LATIN_WORD.sub(lambda m: self.lookup(m.group(0)) or m.group(0), text) if self.table else text

    def to_dict(self) -> dict[str, dict[str, str]]:
        return {"table": dict(sorted(self.table.items())), "loose": dict(sorted(self.loose.items()))}


@dataclass
class NativeScriptView:
    """A lexicon per language: a complaint typed in Latin letters read again in its language's own script."""

    lexicons: dict[str, Lexicon] = field(default_factory=dict)  # ISO 639-1 code -> its lexicon

    @classmethod
    def from_texts(cls, texts: Sequence[str], languages: Sequence[str]) -> "NativeScriptView":
        """A lexicon for each language of ``languages`` whose ``texts`` have native-script words."""
        by_language: dict[str, list[str]] = {}
        for text, language in zip(texts, languages):
            by_language.setdefault(language, []).append(text)
        lexicons = {code: Lexicon.from_texts(group) for code, group in sorted(by_language.items())}
        return cls({code: lexicon for code, lexicon in lexicons.items() if lexicon.table})

    def applies(self, text: str, language: str | None) -> bool:
        """Whether ``text`` in ``language`` is (partly) typed in Latin letters and the language has a lexicon."""
        return language in self.lexicons and detect_script(text) in VIEWED_SCRIPTS

    def view(self, text: str, language: str | None) -> str:
        """``text`` with every Latin word its language's lexicon knows written in that language's script
        (unchanged when the view does not ``apply``); word i of the view is word i of the text."""
        if not self.applies(text, language):
            return text
        return self.lexicons[language].rewrite(text)

    def save(self, folder: str | Path) -> None:
        """Write ``transliteration.json`` into ``folder``."""
        from .atomic import write_text_atomically

        data = {"format": FORMAT_VERSION, "languages": {code: lex.to_dict() for code, lex in self.lexicons.items()}}
        write_text_atomically(Path(folder) / LEXICON_FILE, json.dumps(data, ensure_ascii=False, indent=0) + "\n")

    @classmethod
    def load(cls, folder: str | Path) -> "NativeScriptView":
        """Read ``transliteration.json`` from ``folder`` (a format-1 file is Hindi's lexicon); a damaged file is an
        error naming it."""
        from .transformer import CheckpointError

        file = Path(folder) / LEXICON_FILE
        try:
            data = json.loads(file.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise CheckpointError(f"{file} is missing: the model's config fuses a transliteration view") from None
        except (json.JSONDecodeError, UnicodeDecodeError) as e:
            raise CheckpointError(f"{file} is not valid JSON: {e}") from e
        version = data.get("format") if isinstance(data, dict) else None
        languages = {"hi": data} if version == 1 else data.get("languages") if version == FORMAT_VERSION else None
        if not isinstance(languages, dict) or not all(_is_lexicon(v) for v in languages.values()):
            raise CheckpointError(f"{file} is not a transliteration lexicon of format 1 or {FORMAT_VERSION}")
        return cls({code: Lexicon(v["table"], v["loose"]) for code, v in languages.items()})


def _is_lexicon(data: object) -> bool:
    """Whether ``data`` is a lexicon's two tables of strings."""
    tables = [data.get(name) for name in ("table", "loose")] if isinstance(data, dict) else [None]
    return all(isinstance(t, dict) and all(isinstance(k, str) and isinstance(v, str) for k, v in t.items())
               for t in tables)  # fmt: skip
