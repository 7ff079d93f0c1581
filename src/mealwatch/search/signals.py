"""What a complaint says that an alert rule counts, in any language the complaints come in: a death or a hospital
admission.

The alert rule's keywords (``alerts.rules``: English, romanised Hindi, Devanagari) are the floor; a signal adds the
complaints that say the same in another script ("மருத்துவமனையில் சேர்க்கப்பட்டனர்", "হাসপাতালে ভর্তি"). A signal
is a set of concepts of the multilingual lexicon (``concepts.py``): a complaint carries it when its text mentions
one of them. The search worker stores each complaint's signals with its vector (``ComplaintLog.store_vectors``,
which marks the complaint's alert check due), and a rule naming the signal counts it.

A signal read from the sentence vectors alone (the cosine with prototype sentences in every language) was
measured first and refused: on data/incidents/validation.csv no threshold kept its precision above 0.25 while
finding half the complaints that mention a hospital or a death (benchmarks/signals.py, docs/benchmarks.md).
"""

from __future__ import annotations

from dataclasses import dataclass

from .concepts import BITS


@dataclass(frozen=True)
class Signal:
    """A meaning an alert rule may count: its name and the lexicon's concepts that carry it."""

    name: str
    concepts: tuple[str, ...]

    def __post_init__(self) -> None:
        unknown = [c for c in self.concepts if c not in BITS]
        if unknown:
            raise ValueError(f"signal {self.name!r}: unknown concept {unknown[0]!r}")

    @property
    def mask(self) -> int:
        return sum(BITS[c] for c in self.concepts)


#: a death or a hospital admission (the alert rule of that name counts it)
DEATH_OR_HOSPITAL = Signal("death_or_hospital", ("hospital", "death"))
SIGNALS: tuple[Signal, ...] = (DEATH_OR_HOSPITAL,)


def signals_of(concepts: int, signals: tuple[Signal, ...] = SIGNALS) -> list[str]:
    """The names of the signals a complaint whose concepts are the bits ``concepts`` carries."""
    return [s.name for s in signals if concepts & s.mask]
