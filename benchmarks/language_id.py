"""How well the identifier of Latin-letter languages (``language_id``) tells each romanised form, per form.

Fits the identifier exactly as ``mealwatch train`` does (``ngram_training.fit_language_id`` on the training split
with the parallel renderings it trains on, C chosen on the validation split) and reads the languages of the
evaluated split's Latin-letter rows as the pipeline does (``languages.detect_language``, then the identifier's
``refine``). It prints, per form (``en``, ``hi-latn``, ``ta-latn``, ...), the rows, the accuracy and what the
misread rows were read as.

A row's true language is its file's ``language`` column, else the one its ``script`` column names (``latn-en``:
English, ``latn-hi``: Hindi), else ``detect_language``'s; a row counts when that form is typed in Latin letters.

``--cv K``: also K-fold cross-validated accuracy per form over the train and validation rows together (folds
stratified by form; each fold is read by an identifier fitted on K-2 others, its C chosen on the next fold; the
parallel renderings are always training rows). The test split is read only with ``--i-read-test-once``.

    python benchmarks/language_id.py [--cv 5] [--seed 0]
    python benchmarks/language_id.py --split test --i-read-test-once
"""

from __future__ import annotations

import argparse
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Row:
    """One Latin-letter row: its text, its true language and its form."""

    text: str
    language: str
    form: str


def true_language(example) -> str:
    """The language a row was written in: its file's ``language``, else its ``script``'s, else detected."""
    from mealwatch.data import SCRIPT_LANGUAGES
    from mealwatch.languages import detect_language

    return example.language or SCRIPT_LANGUAGES.get(example.script or "") or detect_language(example.text)


def latin_rows(examples: Sequence) -> list[Row]:
    """The rows whose form is typed in Latin letters (``en`` or ``<code>-latn``)."""
    rows = []
    for e in examples:
        form = form_of(e)
        if form == "en" or form.endswith("-latn"):
            rows.append(Row(e.text, true_language(e), form))
    return rows


def fit(train_examples: Sequence, validation_examples: Sequence):
    """The identifier as training fits it (``Dataset.languages``: the language column, else detected)."""
    from mealwatch.data import Dataset
    from mealwatch.learning.ngram_training import fit_language_id

    train = Dataset(list(train_examples), [], False)
    validation = Dataset(list(validation_examples), [], False)
    return fit_language_id(train.texts, train.languages(), validation.texts, validation.languages())


def read(identifier, texts: Sequence[str]) -> list[str]:
    """Each text's language as the pipeline reads it (``Pipeline.languages_of``)."""
    from mealwatch.languages import detect_language

    found = [detect_language(t) for t in texts]
    return identifier.refine(texts, found) if identifier is not None else found


def report(rows: Sequence[Row], found: Sequence[str], title: str) -> None:
    """Per form: rows, accuracy, and the languages the misread rows were read as."""
    by_form: dict[str, list[str]] = defaultdict(list)
    truth: dict[str, str] = {}
    for row, language in zip(rows, found):
        by_form[row.form].append(language)
        truth[row.form] = row.language
    print(f"\n{title}")
    print(f"{'form':<9} {'n':>5} {'accuracy':>9}  read as (misread rows)")
    for form in sorted(by_form, key=lambda f: (f != "en", f)):
        read_as = by_form[form]
        right = sum(language == truth[form] for language in read_as)
        wrong = Counter(language for language in read_as if language != truth[form])
        confusions = ", ".join(f"{language} {n}" for language, n in wrong.most_common())
        print(f"{form:<9} {len(read_as):>5} {right / len(read_as):>9.3f}  {confusions}")
    overall = sum(r.language == f for r, f in zip(rows, found)) / len(rows)
    print(f"{'all':<9} {len(rows):>5} {overall:>9.3f}")


def cross_validate(examples: Sequence, renderings: Sequence, k: int, seed: int) -> tuple[list[Row], list[str]]:
    """Every Latin-letter row of ``examples`` read by an identifier fitted without its fold (see the module)."""
    from sklearn.model_selection import StratifiedKFold

    forms = [form_of(e) for e in examples]
    folds = np.zeros(len(examples), dtype=int)
    split = StratifiedKFold(n_splits=k, shuffle=True, random_state=seed)
    for fold, (_, held) in enumerate(split.split(np.zeros(len(examples)), forms)):
        folds[held] = fold
    rows: list[Row] = []
    found: list[str] = []
    for fold in range(k):
        inner = (fold + 1) % k
        train = [e for e, f in zip(examples, folds) if f not in (fold, inner)] + list(renderings)
        validation = [e for e, f in zip(examples, folds) if f == inner]
        identifier = fit(train, validation)
        evaluated = latin_rows([e for e, f in zip(examples, folds) if f == fold])
        rows += evaluated
        found += read(identifier, [r.text for r in evaluated])
    return rows, found


def form_of(example) -> str:
    """A row's form (``en``, ``ta-latn``, ``ta``, ...) from its true language and script (``Dataset.scripts``)."""
    from mealwatch.languages import language_form
    from mealwatch.text import detect_script

    return language_form(true_language(example), example.script or detect_script(example.text))


def read_splits(names: Sequence[str]) -> dict:
    """The bundled splits ``names``, each joined by the languages' same split, as ``mealwatch train`` reads them
    (no other split file is opened)."""
    from mealwatch.data import bundled_data_dir, read_dataset, with_languages
    from mealwatch.labels import LABELS

    splits = {}
    for name in names:
        multi_label = splits["train"].multi_label if splits else None
        splits[name] = read_dataset(bundled_data_dir() / f"{name}.csv", label_set=list(LABELS), multi_label=multi_label)
    return with_languages(splits)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--split", choices=("validation", "test"), default="validation")
    parser.add_argument("--i-read-test-once", action="store_true", help="allow --split test (read it once)")
    parser.add_argument("--cv", type=int, default=0, metavar="K", help="also K-fold CV over train+validation")
    parser.add_argument("--seed", type=int, default=0, help="the CV folds' seed")
    args = parser.parse_args(argv)
    if args.split == "test" and not args.i_read_test_once:
        parser.error("--split test reads the held-out test split: pass --i-read-test-once to do so, once")
    if args.cv == 1 or args.cv == 2 or args.cv < 0:
        parser.error("--cv needs K of at least 3 (a fold to read, one to choose C on, the rest to fit on)")

    from mealwatch.data import read_parallel
    from mealwatch.learning.training_run import with_renderings

    splits = read_splits(("train", "validation", "test") if args.split == "test" else ("train", "validation"))
    train = with_renderings(splits["train"], read_parallel())
    identifier = fit(train.examples, splits["validation"].examples)
    evaluated = latin_rows(splits[args.split].examples)
    detail = identifier.channel.detail if identifier is not None else "no identifier"
    report(evaluated, read(identifier, [r.text for r in evaluated]), f"{args.split} split ({detail})")
    if args.cv:
        examples = splits["train"].examples + splits["validation"].examples
        renderings = train.examples[len(splits["train"].examples) :]
        rows, found = cross_validate(examples, renderings, args.cv, args.seed)
        report(rows, found, f"{args.cv}-fold cross-validation over train+validation (seed {args.seed})")


if __name__ == "__main__":
    main()
