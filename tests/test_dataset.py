"""The bundled complaint dataset: size, label coverage, no leakage between splits, no templates."""

import csv
import importlib.util
from collections import Counter
from pathlib import Path

import pytest

from mealwatch.data import SPLIT_NAMES, bundled_data_dir, normalize_text, read_dataset, stratified_split
from mealwatch.labels import LABELS
from mealwatch.text import SCRIPTS, detect_script

ROOT = Path(__file__).resolve().parents[1]
MAX_TEXTS_SHARING_AN_8GRAM = 4


def load_script(name: str):
    spec = importlib.util.spec_from_file_location(name, ROOT / "scripts" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def splits():
    # every label in the files must be in the label set: read_dataset raises DataError otherwise
    return {
        name: read_dataset(bundled_data_dir() / f"{name}.csv", label_set=list(LABELS), multi_label=True)
        for name in SPLIT_NAMES
    }


def test_size_and_proportions(splits):
    sizes = {name: len(s) for name, s in splits.items()}
    total = sum(sizes.values())
    assert total >= 2000, sizes
    assert abs(sizes["train"] / total - 0.70) < 0.01
    assert abs(sizes["validation"] / total - 0.15) < 0.01
    assert abs(sizes["test"] / total - 0.15) < 0.01


def test_every_label_is_well_represented_in_every_split(splits):
    totals = Counter()
    for name, split in splits.items():
        counts = split.label_counts()
        assert set(counts) == set(LABELS)
        assert min(counts.values()) >= 15, (name, counts)
        totals.update(counts)
    assert min(totals.values()) >= 120, totals


def test_multi_label_share(splits):
    every = [e for s in splits.values() for e in s.examples]
    sizes = Counter(len(e.labels) for e in every)
    assert 0.25 <= sizes[2] / len(every) <= 0.42, sizes
    assert sizes[3] >= 50, sizes
    assert all(e.labels == ("other",) for e in every if "other" in e.labels), "other is used alone"


def test_no_text_appears_twice_even_after_normalising(splits):
    where = {}
    for name, split in splits.items():
        for e in split.examples:
            key = normalize_text(e.text)
            assert key not in where, f"{name}.csv:{e.line} repeats {where.get(key)}"
            where[key] = f"{name}.csv:{e.line}"


def test_no_template_shows_up_as_a_repeated_8_word_sequence(splits, capsys):
    stats = load_script("dataset_stats")
    texts = [e.text for s in splits.values() for e in s.examples]
    repeated = stats.repeated_ngrams(texts, 8)
    with capsys.disabled():
        print("\nmost repeated 8-word sequences:", *(f"  {c} texts: {' '.join(g)}" for g, c in repeated[:5]), sep="\n")
    assert not repeated or repeated[0][1] <= MAX_TEXTS_SHARING_AN_8GRAM, repeated[:5]


def test_split_is_reproducible_from_the_seed(splits):
    make = load_script("make_splits")
    every = [e for s in splits.values() for e in s.examples]
    source = {}
    for name in SPLIT_NAMES:
        source.update(make.read_sources(bundled_data_dir() / f"{name}.csv", "missing"))
    assert "missing" not in source.values()
    first = [e for e in every if source[e.text] == make.FIRST_RELEASE]
    assert len(first) == 2339  # the first release keeps the split it had
    for name, part in zip(SPLIT_NAMES, stratified_split(first, make.FRACTIONS, make.SEED)):
        assert {e.text for e in part} <= set(splits[name].texts), name
    for name, part in zip(SPLIT_NAMES, make.split_rows(every, source)):
        assert sorted(e.text for e in part) == sorted(splits[name].texts), name


def test_every_row_names_its_script_and_hindi_is_well_covered(splits):
    every = [e for s in splits.values() for e in s.examples]
    assert all(e.script in SCRIPTS for e in every)
    deva = [e for e in every if e.script == "deva"]
    assert len(deva) >= 1500
    counts = Counter(label for e in deva for label in e.labels)
    assert min(counts[label] for label in LABELS) >= 120, counts
    make = load_script("make_splits")
    source = {}
    for name in SPLIT_NAMES:
        source.update(make.read_sources(bundled_data_dir() / f"{name}.csv", "missing"))
    new_roman = [e for e in every if e.script in ("latn-hi", "mixed") and source[e.text] != make.FIRST_RELEASE]
    assert len(new_roman) >= 600
    for name, split in splits.items():  # every script reaches every split
        assert set(split.scripts()) == set(SCRIPTS) - {"other", "latn"}, name  # other languages: data/languages


def test_script_column_agrees_with_detection_on_devanagari(splits):
    every = [e for s in splits.values() for e in s.examples]
    deva = [e for e in every if e.script == "deva"]
    assert sum(detect_script(e.text) == "deva" for e in deva) / len(deva) >= 0.98


def test_parallel_renderings_are_of_training_complaints_only(splits):
    rows = list(csv.DictReader(open(bundled_data_dir() / "parallel.csv", encoding="utf-8", newline="")))
    assert len(rows) >= 1000
    train = {e.text: e.labels for e in splits["train"].examples}
    held_out = {normalize_text(t) for name in ("validation", "test") for t in splits[name].texts}
    for row in rows:
        assert train[row["english"]] == tuple(row["labels"].split(";")), row["english"]  # same complaint, same labels
        assert detect_script(row["devanagari"]) in ("deva", "mixed") and detect_script(row["romanised"]) != "deva"
        assert normalize_text(row["devanagari"]) not in held_out and normalize_text(row["romanised"]) not in held_out
