"""Reading complaint files: round trips, every kind of broken input, duplicates, splits."""

from __future__ import annotations

import json
import random
import warnings
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from mealwatch.data import (
    DataError,
    Example,
    bundled_data_dir,
    normalize_text,
    read_dataset,
    read_splits,
    stratified_split,
)

CSV = (
    "text,labels\n"
    "dal mein keeda tha,foreign_object\n"
    '"khichdi was stale, children vomited",spoiled_food;illness\n'
    "no meal today,meal_not_served\n"
)


def write(tmp_path: Path, name: str, content: str | bytes) -> Path:
    path = tmp_path / name
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")
    return path


def test_csv_reads_texts_labels_lines_and_targets(tmp_path):
    ds = read_dataset(write(tmp_path, "a.csv", CSV))
    assert ds.texts == ["dal mein keeda tha", "khichdi was stale, children vomited", "no meal today"]
    assert ds.label_set == ["foreign_object", "illness", "meal_not_served", "spoiled_food"]
    assert ds.multi_label
    assert [e.line for e in ds.examples] == [2, 3, 4]
    assert ds.examples[1].labels == ("illness", "spoiled_food")  # label-set order
    assert ds.targets().tolist() == [[1, 0, 0, 0], [0, 1, 0, 1], [0, 0, 1, 0]]
    assert ds.label_counts() == {"foreign_object": 1, "illness": 1, "meal_not_served": 1, "spoiled_food": 1}
    assert len(ds) == 3 and ds.duplicates == []


def test_jsonl_round_trip_matches_csv(tmp_path):
    csv_ds = read_dataset(write(tmp_path, "a.csv", CSV))
    lines = [json.dumps({"text": e.text, "labels": list(e.labels)}) for e in csv_ds.examples]
    jsonl_ds = read_dataset(write(tmp_path, "a.jsonl", "\n".join(lines) + "\n"))
    assert jsonl_ds.texts == csv_ds.texts
    assert [e.labels for e in jsonl_ds.examples] == [e.labels for e in csv_ds.examples]
    assert [e.line for e in jsonl_ds.examples] == [1, 2, 3]
    assert np.array_equal(jsonl_ds.targets(), csv_ds.targets())


def test_single_label_jsonl_with_string_label_and_other_column_names(tmp_path):
    content = '{"body": "kam khana mila", "label": "qty"}\n\n{"body": "cook was drunk", "label": "staff"}\n'
    ds = read_dataset(write(tmp_path, "s.jsonl", content), text_column="body", labels_column="label")
    assert not ds.multi_label
    assert ds.label_set == ["qty", "staff"]
    assert ds.targets().tolist() == [0, 1]
    assert [e.line for e in ds.examples] == [1, 3]  # the blank line still counts


def test_csv_other_columns_separator_and_given_label_set(tmp_path):
    path = write(tmp_path, "b.csv", "id,complaint,tags\n1,roti jali hui,taste|other\n2,no eggs,menu\n")
    ds = read_dataset(path, text_column="complaint", labels_column="tags", separator="|",
                      label_set=["menu", "other", "taste", "unused"])  # fmt: skip
    assert ds.label_set == ["menu", "other", "taste", "unused"]
    assert ds.targets().tolist() == [[0, 1, 1, 0], [1, 0, 0, 0]]
    assert ds.label_counts()["unused"] == 0


def test_bom_is_accepted(tmp_path):
    ds = read_dataset(write(tmp_path, "bom.csv", "\ufeff" + CSV))
    assert ds.texts[0] == "dal mein keeda tha"


def test_multiline_quoted_text_keeps_the_line_it_starts_on(tmp_path):
    ds = read_dataset(write(tmp_path, "m.csv", 'text,labels\n"first line\nsecond line",a\nnext,b\n'))
    assert ds.texts == ["first line\nsecond line", "next"]
    assert [e.line for e in ds.examples] == [2, 4]


def test_duplicates_are_reported_and_kept(tmp_path):
    content = "text,labels\nsame text,a\nother,b\nsame text,b\nsame text,a\n"
    with pytest.warns(UserWarning, match=r"d\.csv: 2 rows repeat an earlier row's text exactly \(lines 2=4, 2=5\)"):
        ds = read_dataset(write(tmp_path, "d.csv", content))
    assert len(ds) == 4
    assert ds.duplicates == [(2, 4), (2, 5)]


@pytest.mark.parametrize(
    "name, content, expected",
    [
        ("e.csv", "text,labels\nok,a\n   ,b\n", r"e\.csv, line 3: empty text"),
        ("e.csv", "text,labels\nok,a\nno label here,\n", r"e\.csv, line 3: no labels in 'labels'"),
        ("e.csv", "text,labels\nok,a\nok2, ; \n", r"e\.csv, line 3: no labels in 'labels'"),
        ("e.csv", "text,label\nok,a\n", r"e\.csv, line 1: no column 'labels'; columns found: text, label"),
        ("e.csv", "text,labels\nok,a\nbad, unquoted, commas,b\n", r"line 3: 4 fields, expected 2"),
        ("e.csv", "", r"e\.csv: empty file"),
        ("e.csv", "text,labels\n", r"e\.csv: no examples"),
        (
            "e.jsonl",
            '{"text": "ok", "labels": ["a"]}\n{"text": "x", "labels": [\n',
            r"e\.jsonl, line 2: malformed JSON",
        ),
        ("e.jsonl", '{"text": "ok", "labels": ["a"]}\n["x", ["a"]]\n', r"line 2: expected a JSON object.*found list"),
        ("e.jsonl", '{"text": "ok", "tags": ["a"]}\n', r"line 1: no key 'labels'; keys found: text, tags"),
        ("e.jsonl", '{"text": "ok", "labels": []}\n', r"line 1: no labels in 'labels'"),
        ("e.jsonl", '{"text": 5, "labels": ["a"]}\n', r"line 1: 'text' must be a string, found int"),
        ("e.jsonl", '{"text": "ok", "labels": [1]}\n', r"line 1: 'labels' must be a list of label strings"),
        ("e.txt", "text,labels\nok,a\n", r"e\.txt: unknown file type '\.txt'"),
    ],
)
def test_bad_input_names_file_line_and_expectation(tmp_path, name, content, expected):
    with pytest.raises(DataError, match=expected):
        read_dataset(write(tmp_path, name, content))


def test_missing_file(tmp_path):
    with pytest.raises(DataError, match=r"nope\.csv does not exist"):
        read_dataset(tmp_path / "nope.csv")


def test_unknown_label_lists_the_valid_ones(tmp_path):
    path = write(tmp_path, "u.csv", "text,labels\nok,a\nfine,zz\n")
    with pytest.raises(DataError, match=r"u\.csv, line 3: unknown label 'zz'; valid labels are: a, b"):
        read_dataset(path, label_set=["a", "b"])


def test_several_labels_in_a_single_label_dataset(tmp_path):
    path = write(tmp_path, "s.csv", "text,labels\nok,a\nboth,a;b\n")
    with pytest.raises(DataError, match=r"s\.csv, line 3: 2 labels \(a;b\) in a single-label dataset"):
        read_dataset(path, multi_label=False)


def test_not_utf8_names_line_and_byte_offset(tmp_path):
    content = "text,labels\nok,a\ncaf\xe9 food,b\n".encode("latin-1")
    with pytest.raises(DataError, match=r"l1\.csv, line 3: not UTF-8 text \(byte 0xe9 at byte offset 20\)"):
        read_dataset(write(tmp_path, "l1.csv", content))


def test_normalize_text():
    assert normalize_text("  Dal, mein KEEDA tha!!  \n Sir… ") == "dal mein keeda tha sir"
    assert normalize_text("Khana   nahi।मिला") == "khana nahi मिला"


# ---------------------------------------------------------------------------- splits


def make_examples() -> list[Example]:
    """100 single-label rows (60 a, 30 b, 7 c, 3 d) and a multi-label one."""
    labels = ["a"] * 60 + ["b"] * 30 + ["c"] * 7 + ["d"] * 3
    examples = [Example(f"complaint number {i} about {label}", (label,), i + 2) for i, label in enumerate(labels)]
    return examples + [Example("both a and d", ("a", "d"), 200)]


def test_stratified_split_is_deterministic_under_shuffling():
    examples = make_examples()
    first = stratified_split(examples, (0.7, 0.15, 0.15), seed=3)
    for shuffle_seed in range(3):
        shuffled = examples[:]
        random.Random(shuffle_seed).shuffle(shuffled)
        assert stratified_split(shuffled, (0.7, 0.15, 0.15), seed=3) == first
    assert stratified_split(examples, (0.7, 0.15, 0.15), seed=4) != first


def test_stratified_split_respects_fractions_and_keeps_every_label_everywhere():
    examples = make_examples()
    parts = stratified_split(examples, (0.7, 0.15, 0.15), seed=0)
    assert [len(p) for p in parts] == [71, 15, 15]  # 101 rows: 70.7, 15.15, 15.15 by largest remainder
    assert sorted(e.line for p in parts for e in p) == sorted(e.line for e in examples)  # nothing lost or repeated
    for part in parts:
        counts = Counter(label for e in part for label in e.labels)
        assert set(counts) == {"a", "b", "c", "d"}
    train = Counter(e.labels[0] for e in parts[0])
    assert 40 <= train["a"] <= 44 and 19 <= train["b"] <= 23  # stratified: close to 70 % of each


def test_stratified_split_rejects_bad_fractions():
    with pytest.raises(ValueError, match="sum to 1"):
        stratified_split(make_examples(), (0.7, 0.2), seed=0)


def write_csv(path: Path, examples: list[Example]) -> Path:
    rows = ["text,labels"] + [f"{e.text},{';'.join(e.labels)}" for e in examples]
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    return path


def test_read_splits_of_one_file(tmp_path):
    path = write_csv(tmp_path / "all.csv", make_examples())
    splits = read_splits(path, seed=1)
    assert list(splits) == ["train", "validation", "test"]
    assert [len(s) for s in splits.values()] == [71, 15, 15]
    assert all(s.label_set == ["a", "b", "c", "d"] and s.multi_label for s in splits.values())
    assert splits["test"].path == path
    assert read_splits(path, seed=1)["test"].texts == splits["test"].texts


def test_read_splits_folder_carves_validation_when_missing(tmp_path):
    write_csv(tmp_path / "train.csv", make_examples())
    (tmp_path / "test.jsonl").write_text('{"text": "x", "labels": "a"}\n{"text": "y", "labels": "b;d"}\n'
                                         '{"text": "z", "labels": ["c"]}\n', encoding="utf-8")  # fmt: skip
    splits = read_splits(tmp_path)
    assert [len(splits[n]) for n in ("train", "validation", "test")] == [86, 15, 3]
    assert splits["test"].targets().tolist() == [[1, 0, 0, 0], [0, 1, 0, 1], [0, 0, 1, 0]]
    assert set(splits["train"].texts).isdisjoint(splits["validation"].texts)


def test_read_splits_split_missing_a_training_label(tmp_path):
    write_csv(tmp_path / "train.csv", make_examples())
    (tmp_path / "validation.csv").write_text("text,labels\nx,a\ny,b\n", encoding="utf-8")
    with pytest.raises(DataError, match=r"validation\.csv: no example of c, d \(present in train\.csv\)"):
        read_splits(tmp_path)


def test_read_splits_folder_errors(tmp_path):
    with pytest.raises(DataError, match="no train.csv or train.jsonl"):
        read_splits(tmp_path)
    write_csv(tmp_path / "train.csv", make_examples())
    write_csv(tmp_path / "train.jsonl", make_examples())
    with pytest.raises(DataError, match="both train.csv and train.jsonl"):
        read_splits(tmp_path)


def test_read_splits_test_label_unknown_to_train(tmp_path):
    write_csv(tmp_path / "train.csv", make_examples())
    (tmp_path / "test.csv").write_text("text,labels\nx,a\ny,e\n", encoding="utf-8")
    with pytest.raises(DataError, match=r"test\.csv, line 3: unknown label 'e'; valid labels are: a, b, c, d"):
        read_splits(tmp_path)


def test_bundled_dataset_if_present():
    if not (bundled_data_dir() / "train.csv").is_file():
        pytest.skip("data/complaints/train.csv is not written yet")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        splits = read_splits()
    assert set(splits) == {"train", "validation", "test"}
    assert splits["train"].label_set == splits["test"].label_set
    assert all(n > 0 for n in splits["test"].label_counts().values())


def test_decode_utf8_drops_a_byte_order_mark_and_locates_a_bad_byte():
    from mealwatch.rowfile import NotUtf8Error, decode_utf8

    assert decode_utf8("\ufefftext,labels\n".encode("utf-8")) == "text,labels\n"
    with pytest.raises(NotUtf8Error) as caught:
        decode_utf8(b"ok\nsecond\ncaf\xe9\n")
    assert (caught.value.line, caught.value.offset, caught.value.byte) == (3, 13, 0xE9)


def test_language_column_read_checked_or_detected(tmp_path):
    path = write(tmp_path, "l.csv", "text,labels,language\nசோற்றில் புழு,foreign_object,ta\nखाने में कीड़े,foreign_object,\n")
    dataset = read_dataset(path)
    assert [e.language for e in dataset.examples] == ["ta", None]
    assert dataset.languages() == ["ta", "hi"]  # an empty cell: detected from the text
    bad = write(tmp_path, "bad.csv", "text,labels,language\nसोर,foreign_object,tamil\n")
    with pytest.raises(DataError, match=r"bad.csv, line 2: 'language' is 'tamil'; expected an ISO 639-1 code"):
        read_dataset(bad)


def test_severity_and_children_columns_read_checked_and_refused_in_words(tmp_path):
    path = write(tmp_path, "s.csv", "text,labels,severity,children\n"
                 "பன்னிரண்டு குழந்தைகள் மருத்துவமனையில்,illness,hospital,12\nसभी बच्चे बीमार,illness,unwell,all\n"
                 "no dal today,menu_not_followed,,\n")  # fmt: skip
    dataset = read_dataset(path)
    assert [(e.severity, e.children) for e in dataset.examples] == [("hospital", 12), ("unwell", 9_999), (None, 0)]
    assert dataset.severities().tolist() == [3, 1, -1]  # not annotated: -1, left out of the severity loss
    bad = write(tmp_path, "bad.csv", "text,labels,severity,children\nx,illness,icu,2\n")
    with pytest.raises(DataError, match=r"bad.csv, line 2: 'severity' is 'icu'; expected one of none, unwell"):
        read_dataset(bad)
    bad = write(tmp_path, "bad2.csv", "text,labels,severity,children\nx,illness,clinic,many\n")
    with pytest.raises(DataError, match=r"bad2.csv, line 2: 'children' is 'many'; expected a whole number"):
        read_dataset(bad)
