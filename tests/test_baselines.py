"""Baselines on small hand-made datasets whose answer is known, the comparison table and ``mealwatch compare``."""

from __future__ import annotations

import json
import random
import warnings

import pytest
import torch

from mealwatch import Encoder, EncoderConfig, Tokenizer
from mealwatch.learning.baselines import (
    BASELINES,
    compare,
    format_table,
    frozen_baseline,
    tfidf_baseline,
    transformer_baseline,
)
from mealwatch.cli import main
from mealwatch.cli.compare import BASELINE_NAMES
from mealwatch.data import Dataset, Example

FILLER = ["today", "in the school", "sir please check", "at lunch", "children said", "madam", "again", "pls help"]
#: each label has its own words, shared by no other label or filler
KEYWORDS = {
    "insect": ["keeda", "worm found", "insects crawling", "cockroach inside"],
    "no_meal": ["nothing cooked", "kitchen closed", "meal cancelled", "gas finished"],
    "stale": ["stale smelly", "rotten sour", "baasi", "mouldy roti"],
}


def make_splits(multi_label: bool, sizes: tuple[int, int, int] = (45, 12, 12), seed: int = 0) -> dict[str, Dataset]:
    """Texts made of one (or, multi-label, sometimes two) labels' keywords and neutral filler words."""
    rng = random.Random(seed)
    labels = sorted(KEYWORDS) if multi_label else ["insect", "no_meal"]
    splits, line = {}, 2
    for name, size in zip(("train", "validation", "test"), sizes):
        examples = []
        for i in range(size):
            chosen = [labels[i % len(labels)]]
            if multi_label and i % 4 == 3:
                chosen.append(labels[(i + 1) % len(labels)])
            parts = [rng.choice(KEYWORDS[label]) for label in chosen] + rng.sample(FILLER, 2)
            rng.shuffle(parts)
            examples.append(Example(" ".join(parts) + f" {name} {i}", tuple(sorted(chosen)), line))
            line += 1
        splits[name] = Dataset.from_examples(examples, labels, multi_label)
    return splits


def tiny_encoder() -> tuple[Encoder, Tokenizer]:
    tokenizer = Tokenizer.from_pretrained()
    torch.manual_seed(0)
    config = EncoderConfig(vocab_size=tokenizer.vocab_size, hidden_size=32, num_hidden_layers=2,
                           num_attention_heads=4, intermediate_size=64)  # fmt: skip
    return Encoder(config).eval(), tokenizer


@pytest.mark.parametrize("multi_label", [False, True])
def test_tfidf_separates_clearly_worded_labels(multi_label):
    splits = make_splits(multi_label)
    result = tfidf_baseline(splits)
    if multi_label:  # two labels in a row and 12 validation rows to tune thresholds on: nearly perfect
        assert result.macro_f1 >= 0.9 and result.micro_f1 >= 0.9
    else:
        assert result.macro_f1 == 1.0 and result.micro_f1 == 1.0
    assert result.report.n == len(splits["test"])
    assert result.report.per_label["insect"]["support"] == splits["test"].label_counts()["insect"]
    assert result.train_seconds > 0 and result.texts_per_second > 0
    assert result.detail.startswith("C=")
    assert ("per-label thresholds" in result.detail) == multi_label


def test_tfidf_learns_from_the_training_labels():
    splits = make_splits(multi_label=False)
    flipped = [Example(e.text, ("no_meal",) if e.labels == ("insect",) else ("insect",), e.line)
               for e in splits["train"].examples]  # fmt: skip
    splits["train"] = Dataset.from_examples(flipped, splits["train"].label_set, False)
    assert tfidf_baseline(splits).macro_f1 == 0.0  # labels swapped in training: every test text is wrong


def test_frozen_embeddings_of_a_tiny_random_encoder_separate_seen_phrases_perfectly():
    """Test phrases that also occur in train have the same embedding there: any order mix-up would show."""
    encoder, tokenizer = tiny_encoder()
    phrases = [(text, label) for label in ("insect", "no_meal") for text in KEYWORDS[label]]  # 8 phrases

    def split(repeats: int) -> Dataset:
        rows = [Example(text, (label,), i) for i, (text, label) in enumerate(phrases * repeats)]
        return Dataset.from_examples(rows, ["insect", "no_meal"], False)

    result = frozen_baseline({"train": split(3), "validation": split(1), "test": split(2)}, encoder, tokenizer)
    assert result.macro_f1 == 1.0
    assert result.name.startswith("frozen encoder (mean pooling)")
    assert result.report.n == 16


def test_frozen_embeddings_of_a_tiny_random_encoder_beat_chance_on_new_texts():
    encoder, tokenizer = tiny_encoder()
    splits = make_splits(multi_label=False, sizes=(80, 20, 40))
    result = frozen_baseline(splits, encoder=encoder, tokenizer=tokenizer)
    # random word vectors, averaged among filler words, still tell two disjoint vocabularies apart (chance: 0.5)
    assert result.macro_f1 >= 0.75


def test_frozen_embeddings_multi_label():
    encoder, tokenizer = tiny_encoder()
    splits = make_splits(multi_label=True, sizes=(45, 15, 15))
    result = frozen_baseline(splits, encoder=encoder, tokenizer=tokenizer, pooling="cls")
    assert result.report.multi_label and 0.0 <= result.macro_f1 <= 1.0
    assert "cls pooling" in result.detail and "per-label thresholds" in result.detail


def test_transformer_from_scratch_and_fine_tuned_one_epoch(tmp_path):
    encoder, tokenizer = tiny_encoder()  # saved as a "pre-trained" checkpoint, so both runs stay small
    encoder.save_pretrained(tmp_path / "tiny")
    tokenizer.save(tmp_path / "tiny")
    splits = make_splits(multi_label=True, sizes=(30, 9, 9))
    for pretrained in (False, True):
        result = transformer_baseline(splits, pretrained=pretrained, epochs=1, encoder_path=str(tmp_path / "tiny"),
                                      max_length=32)  # fmt: skip
        assert result.detail.startswith("best epoch 1 of 1 run (1 allowed)")
        assert result.report.n == 9 and result.train_seconds > 0
        assert {k: v["support"] for k, v in result.report.per_label.items()} == splits["test"].label_counts()
    assert result.name == "fine-tuned Transformer"


def test_compare_runs_in_table_order_and_checks_its_input():
    splits = make_splits(multi_label=False)
    results = compare(splits, which=["tfidf"])
    assert [r.name for r in results] == ["TF-IDF + logistic regression"]
    with pytest.raises(ValueError, match="unknown baseline 'bert'"):
        compare(splits, which=["bert"])
    with pytest.raises(ValueError, match="missing: test"):
        compare({k: v for k, v in splits.items() if k != "test"}, which=["tfidf"])
    assert BASELINE_NAMES == BASELINES


def test_format_table():
    results = compare(make_splits(multi_label=False), which=["tfidf"])
    table = format_table(results)
    r = results[0]
    assert table.splitlines()[0] == "| method | macro-F1 (95 % CI) | micro-F1 | training (s) | prediction (texts/s) |"
    assert f"| TF-IDF + logistic regression | 1.000 (1.000–1.000) | 1.000 | {r.train_seconds:.1f} |" in table
    assert "Test set: 12 texts" in table and f"- TF-IDF + logistic regression: {r.detail}" in table


def write_folder(folder, splits: dict[str, Dataset]) -> None:
    folder.mkdir()
    for name, split in splits.items():
        rows = ["text,labels"] + [f"{e.text},{';'.join(e.labels)}" for e in split.examples]
        (folder / f"{name}.csv").write_text("\n".join(rows) + "\n", encoding="utf-8")


def test_cli_compare_table_json_and_out(tmp_path, capsys):
    write_folder(tmp_path / "d", make_splits(multi_label=False))
    out = tmp_path / "cmp.md"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert main(["compare", "--data", str(tmp_path / "d"), "--only", "tfidf", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "| TF-IDF + logistic regression | 1.000" in printed
    assert out.read_text(encoding="utf-8").startswith(f"# Comparison on {tmp_path / 'd'}")
    assert main(["compare", "--data", str(tmp_path / "d"), "--only", "tfidf", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert rows[0]["macro_f1"] == 1.0 and rows[0]["report"]["per_label"]["no_meal"]["f1"] == 1.0


def test_cli_compare_errors(tmp_path, capsys):
    assert main(["compare", "--only", "tfidf,gpt"]) == 2
    assert "--only 'tfidf,gpt': expected names from tfidf,frozen,scratch,finetune" in capsys.readouterr().err
    assert main(["compare", "--data", str(tmp_path / "missing.csv"), "--only", "tfidf"]) == 2
    assert "missing.csv does not exist" in capsys.readouterr().err
    splits = make_splits(multi_label=False)
    write_folder(tmp_path / "d", {k: v for k, v in splits.items() if k != "test"})
    assert main(["compare", "--data", str(tmp_path / "d"), "--only", "tfidf"]) == 2
    assert "no test.csv or test.jsonl" in capsys.readouterr().err
