"""Learning from officers' corrections: the corrected complaints of a log as training examples, written as a
``text,labels`` file, and folded into a training split without duplicating what it already holds.

Only complaints whose labels an officer set are used (never the model's own guesses). A training file
is written through ``csvfile`` (labels joined by ``labels.LABEL_SEPARATOR``, as data/complaints/*.csv)
and read back by ``data.read_dataset``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ..atomic import write_text_atomically
from ..csvfile import write_csv
from ..data import DataError, Dataset, Example, read_dataset
from ..log import Filters, open_log
from .splits import normalize_text

DATASET_SUFFIXES = (".csv", ".jsonl")


@dataclass(frozen=True)
class Corrected:
    """One corrected complaint: its text, its true labels, and when it arrived (UTC, stored form)."""

    complaint_id: int
    text: str
    labels: tuple[str, ...]
    created_at: str

    @property
    def month(self) -> str:
        return self.created_at[:7]


def corrected_complaints(db: str | Path) -> list[Corrected]:
    """The complaints of the log at ``db`` whose labels an officer corrected, oldest first."""
    log = open_log(db)
    try:
        rows = log.list(Filters(corrected=True), limit=None).items
    finally:
        log.close()
    rows.sort(key=lambda r: (r["created_at"], r["id"]))
    return [Corrected(r["id"], r["text"], tuple(r["corrected_labels"]), r["created_at"]) for r in rows]


def training_csv(corrected: Sequence[Corrected]) -> str:
    """``text,labels`` CSV text of corrected complaints (``csvfile.write_csv``), each text exactly as it was written.

    A training file is read by a program, so no spreadsheet guard is added: a complaint starting with
    ``-`` or ``=`` trains the model as it was sent.
    """
    return write_csv(["text", "labels"], ([c.text, list(c.labels)] for c in corrected), spreadsheet_safe=False)


def write_training_file(corrected: Sequence[Corrected], path: str | Path) -> Path:
    """Write ``training_csv`` to ``path`` atomically."""
    return write_text_atomically(path, training_csv(corrected))


def is_dataset_file(source: str | Path) -> bool:
    """Whether ``source`` names a training file (.csv/.jsonl) rather than a complaint log (a SQLite file or URL)."""
    return "://" not in str(source) and Path(source).suffix.lower() in DATASET_SUFFIXES


def read_additions(source: str | Path, label_set: Sequence[str], multi_label: bool = True) -> list[Example]:
    """Corrected examples from a complaint log (its corrected complaints) or a ``text,labels`` file."""
    if is_dataset_file(source):
        return read_dataset(source, label_set=label_set, multi_label=multi_label).examples
    if "://" not in str(source) and not Path(source).is_file():
        raise DataError(source, None, "no such file", "expected a complaint log (--db) or a .csv/.jsonl training file")
    known = set(label_set)
    examples = []
    for c in corrected_complaints(source):
        unknown = [label for label in c.labels if label not in known]
        if unknown:
            raise DataError(source, None, f"complaint {c.complaint_id} was corrected to {unknown[0]!r}, not a label "
                            f"of the training data ({', '.join(label_set)})")  # fmt: skip
        examples.append(Example(c.text, tuple(sorted(c.labels, key=list(label_set).index)), 0))
    return examples


@dataclass
class Folded:
    """The training split with the corrections folded in, and what became of each correction."""

    train: Dataset
    added: int = 0
    replaced: int = 0  # an exact duplicate of a training text whose labels the correction replaced
    skipped: int = 0  # already there with the same labels, a near duplicate, or a held-out text
    notes: list[str] = field(default_factory=list)  # why each skipped one was skipped

    def summary(self) -> str:
        return f"{self.added} added, {self.replaced} replaced, {self.skipped} skipped"


def fold_in(splits: dict[str, Dataset], additions: Sequence[Example]) -> Folded:
    """The training split with ``additions`` folded in, de-duplicated by normalised text (``splits.normalize_text``).

    A correction whose text is exactly a training text replaces that example's labels (the officer's label
    wins) or, with the same labels, is skipped; one whose normalised text matches a training text but not
    exactly is skipped (a near duplicate); one matching a validation or test text is skipped (training on it
    would leak the held-out splits). Among the additions, a later correction of the same text wins.
    """
    train = splits["train"]
    examples = list(train.examples)
    exact = {e.text: i for i, e in enumerate(examples)}
    near = {normalize_text(e.text): i for i, e in enumerate(examples)}
    held_out = {normalize_text(e.text) for name, d in splits.items() if name != "train" for e in d.examples}
    latest: dict[str, Example] = {}
    for e in additions:
        latest[e.text] = e  # the last correction of a text wins
    folded = Folded(train)
    for e in latest.values():
        key = normalize_text(e.text)
        if key in held_out:
            folded.skipped += 1
            folded.notes.append(f"held out (validation/test): {e.text[:60]!r}")
        elif e.text in exact:
            i = exact[e.text]
            if set(examples[i].labels) == set(e.labels):
                folded.skipped += 1
                folded.notes.append(f"already in training with the same labels: {e.text[:60]!r}")
            else:
                examples[i] = Example(e.text, e.labels, examples[i].line, examples[i].script)
                folded.replaced += 1
        elif key in near:
            folded.skipped += 1
            folded.notes.append(f"near duplicate of training line {examples[near[key]].line}: {e.text[:60]!r}")
        else:
            examples.append(Example(e.text, e.labels, 0, e.script))
            exact[e.text] = near[key] = len(examples) - 1
            folded.added += 1
    folded.train = Dataset.from_examples(examples, train.label_set, train.multi_label, train.path)
    return folded
