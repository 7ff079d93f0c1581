"""What a complaint's sentence vector reads as, in any language the encoder reads: a death or a hospital admission.

The keyword rule (``alerts.rules``: English, romanised Hindi, Devanagari) is the floor; this signal adds the
complaints that say the same in another script or other words ("மருத்துவமனையில் சேர்க்கப்பட்டனர்"). A signal is
a handful of written prototype sentences in the languages of the bundled data; a complaint carries the signal when
its vector's cosine with the closest prototype is at least the signal's threshold, chosen on
data/incidents/validation.csv by benchmarks/signals.py (docs/benchmarks.md). The search worker stores each
complaint's signals (``ComplaintLog.store_vectors``), and an alert rule naming the signal counts it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from .vectors import SentenceVectors


@dataclass(frozen=True)
class Signal:
    """A meaning a complaint may carry: its name, prototype sentences and the cosine that counts."""

    name: str
    prototypes: tuple[str, ...]
    threshold: float


#: a death or a hospital admission after the meal, in the languages of the bundled complaints
DEATH_OR_HOSPITAL = Signal(
    "death_or_hospital",
    (
        "children were admitted to hospital after eating the mid-day meal",
        "a child died after eating the school meal",
        "students were taken to hospital and admitted",
        "खाना खाने के बाद बच्चे अस्पताल में भर्ती कराए गए",
        "मिड डे मील खाने से एक बच्चे की मौत हो गई",
        "khana khane ke baad bachche aspatal me bharti hue",
        "ek bacche ki maut ho gayi khana khane se",
        "மதிய உணவு சாப்பிட்ட குழந்தைகள் மருத்துவமனையில் சேர்க்கப்பட்டனர்",
        "உணவு சாப்பிட்ட ஒரு குழந்தை இறந்துவிட்டது",
        "మధ్యాహ్న భోజనం తిన్న పిల్లలను ఆసుపత్రిలో చేర్చారు",
        "భోజనం తిన్న ఒక విద్యార్థి మరణించాడు",
        "ಬಿಸಿಯೂಟ ತಿಂದ ಮಕ್ಕಳನ್ನು ಆಸ್ಪತ್ರೆಗೆ ದಾಖಲಿಸಲಾಯಿತು",
        "ಊಟ ತಿಂದ ಒಬ್ಬ ಮಗು ಸಾವನ್ನಪ್ಪಿದೆ",
        "মিড ডে মিল খেয়ে শিশুদের হাসপাতালে ভর্তি করা হয়েছে",
        "খাবার খেয়ে একটি শিশুর মৃত্যু হয়েছে",
        "जेवणानंतर मुलांना रुग्णालयात दाखल करण्यात आले",
        "जेवण खाल्ल्यानंतर एका मुलाचा मृत्यू झाला",
        "ભોજન પછી બાળકોને હોસ્પિટલમાં દાખલ કરવામાં આવ્યા",
        "ભોજન ખાધા પછી એક બાળકનું મૃત્યુ થયું",
        "کھانا کھانے کے بعد بچوں کو ہسپتال میں داخل کرایا گیا",
        "کھانا کھانے سے ایک بچے کی موت ہو گئی",
        "ഉച്ചഭക്ഷണം കഴിച്ച കുട്ടികളെ ആശുപത്രിയിൽ പ്രവേശിപ്പിച്ചു",
        "ଖାଇବା ପରେ ପିଲାମାନଙ୍କୁ ହସ୍ପିଟାଲରେ ଭର୍ତ୍ତି କରାଗଲା",
        "ਖਾਣਾ ਖਾਣ ਤੋਂ ਬਾਅਦ ਬੱਚਿਆਂ ਨੂੰ ਹਸਪਤਾਲ ਵਿੱਚ ਦਾਖਲ ਕਰਵਾਇਆ ਗਿਆ",
    ),
    threshold=0.88,
)
SIGNALS: tuple[Signal, ...] = (DEATH_OR_HOSPITAL,)
#: the vectors (``SentenceVectors.family``) the thresholds of ``SIGNALS`` were chosen for: with others, no signal
#: is read (a cosine threshold means nothing for another encoder)
TUNED_FOR = "e5-prefixed"


class SignalReader:
    """Reads the ``signals`` in unit vectors made by ``vectors`` (the prototypes are embedded once)."""

    def __init__(self, vectors: SentenceVectors, signals: Sequence[Signal] = SIGNALS) -> None:
        self.signals = tuple(signals)
        self._prototypes = [vectors.passages(list(s.prototypes)) for s in self.signals]  # each (P, H)

    @classmethod
    def for_vectors(cls, vectors: SentenceVectors) -> "SignalReader | None":
        """The reader of ``SIGNALS`` for ``vectors``, or None when their thresholds were not chosen for them."""
        return cls(vectors) if vectors.family == TUNED_FOR else None

    def scores(self, vectors: np.ndarray) -> np.ndarray:
        """(N, S): each vector's cosine with each signal's closest prototype."""
        if len(vectors) == 0:
            return np.zeros((0, len(self.signals)), np.float32)
        return np.stack([(vectors @ p.T).max(axis=1) for p in self._prototypes], axis=1)

    def read(self, vectors: np.ndarray) -> list[list[str]]:
        """The names of the signals each unit vector (N, H) carries."""
        scores = self.scores(vectors)
        return [[s.name for j, s in enumerate(self.signals) if row[j] >= s.threshold] for row in scores]
