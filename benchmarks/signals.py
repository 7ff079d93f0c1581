"""The death-or-hospital alert in every language (issue 25): the keyword floor, the lexicon signal, and the refused
signal read from sentence vectors alone.

On data/incidents (validation, and with ``--test`` test.csv once) prints, per language, how many complaints the
alert rule's keywords count (``alerts.rules.DEATH_OR_HOSPITAL``: English, romanised Hindi, Devanagari) and how many
the signal adds (``search.signals.DEATH_OR_HOSPITAL``: the lexicon's hospital and death concepts in every
language), then every complaint the signal adds, so that a reader can judge each one. With ``--vectors``, also the
signal measured first and refused: the cosine of a complaint's e5 vector with its closest prototype sentence (a
hospital admission or a death, written in each language), its precision and recall against the lexicon at each
threshold.

    python benchmarks/signals.py [--data data/incidents] [--test] [--vectors]
"""

from __future__ import annotations

import argparse
import csv
import sys
from collections import Counter
from pathlib import Path

import numpy as np

from mealwatch.severity import DEATH_OR_HOSPITAL as KEYWORDS
from mealwatch.alerts.rules import keyword_pattern
from mealwatch.search.concepts import concepts_of, mask_of
from mealwatch.search.signals import DEATH_OR_HOSPITAL, signals_of
from mealwatch.text import normalize

ROOT = Path(__file__).resolve().parents[1]
#: the prototypes of the refused vector signal (a hospital admission or a death in the bundled languages)
PROTOTYPES = (
    "children were admitted to hospital after eating the mid-day meal", "a child died after eating the school meal",
    "खाना खाने के बाद बच्चे अस्पताल में भर्ती कराए गए", "मिड डे मील खाने से एक बच्चे की मौत हो गई",
    "khana khane ke baad bachche aspatal me bharti hue", "மதிய உணவு சாப்பிட்ட குழந்தைகள் மருத்துவமனையில் சேர்க்கப்பட்டனர்",
    "మధ్యాహ్న భోజనం తిన్న పిల్లలను ఆసుపత్రిలో చేర్చారు", "ಬಿಸಿಯೂಟ ತಿಂದ ಮಕ್ಕಳನ್ನು ಆಸ್ಪತ್ರೆಗೆ ದಾಖಲಿಸಲಾಯಿತು",
    "মিড ডে মিল খেয়ে শিশুদের হাসপাতালে ভর্তি করা হয়েছে", "जेवणानंतर मुलांना रुग्णालयात दाखल करण्यात आले",
    "ભોજન પછી બાળકોને હોસ્પિટલમાં દાખલ કરવામાં આવ્યા", "کھانا کھانے کے بعد بچوں کو ہسپتال میں داخل کرایا گیا",
    "ഉച്ചഭക്ഷണം കഴിച്ച കുട്ടികളെ ആശുപത്രിയിൽ പ്രവേശിപ്പിച്ചു", "ଖାଇବା ପରେ ପିଲାମାନଙ୍କୁ ହସ୍ପିଟାଲରେ ଭର୍ତ୍ତି କରାଗଲା",
    "ਖਾਣਾ ਖਾਣ ਤੋਂ ਬਾਅਦ ਬੱਚਿਆਂ ਨੂੰ ਹਸਪਤਾਲ ਵਿੱਚ ਦਾਖਲ ਕਰਵਾਇਆ ਗਿਆ",
)  # fmt: skip


def report(name: str, rows: list[dict[str, str]], vectors: bool) -> None:
    patterns = [keyword_pattern(k) for k in KEYWORDS]
    floor = [any(p.search(normalize(r["text"])) for p in patterns) for r in rows]
    signal = [DEATH_OR_HOSPITAL.name in signals_of(mask_of(concepts_of(r["text"]))) for r in rows]
    print(f"{name}: {len(rows)} complaints; keywords (the floor) count {sum(floor)}, the signal {sum(signal)}, "
          f"either {sum(a or b for a, b in zip(floor, signal))}")  # fmt: skip
    by_language = Counter(r["language"] for r in rows)
    kw, sig = Counter(), Counter()
    for r, a, b in zip(rows, floor, signal):
        kw[r["language"]] += a
        sig[r["language"]] += b and not a
    print("  language: complaints, counted by keywords, added by the signal")
    for language, n in by_language.most_common():
        print(f"  {language}: {n}, {kw[language]}, +{sig[language]}")
    missed = [r for r, a, b in zip(rows, floor, signal) if a and not b]
    print(f"  counted by keywords but not by the signal: {len(missed)}")
    print("  added by the signal (judge each):")
    for r, a, b in zip(rows, floor, signal):
        if b and not a:
            print(f"    [{r['language']}] {' '.join(r['text'].split())[:150]}")
    if vectors:
        from mealwatch.search.vectors import SentenceVectors

        e5 = SentenceVectors.pretrained("e5")
        scores = (e5.passages([r["text"] for r in rows]) @ e5.passages(list(PROTOTYPES)).T).max(axis=1)
        truth = np.array(signal)
        print("  refused: the cosine with the closest prototype, against the lexicon")
        for threshold in np.arange(0.80, 0.91, 0.01):
            said = scores >= threshold
            hit = int((said & truth).sum())
            print(f"    >= {threshold:.2f}: precision {hit / max(1, said.sum()):.3f}, recall {hit / truth.sum():.3f}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=ROOT / "data" / "incidents")
    ap.add_argument("--test", action="store_true")
    ap.add_argument("--vectors", action="store_true", help="also the refused signal read from e5 vectors")
    args = ap.parse_args()
    for name in ("validation", "test") if args.test else ("validation",):
        with open(args.data / f"{name}.csv", encoding="utf-8", newline="") as f:
            report(name, list(csv.DictReader(f)), args.vectors)
    return 0


if __name__ == "__main__":
    sys.exit(main())
