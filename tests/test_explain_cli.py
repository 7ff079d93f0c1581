"""``mealwatch attention`` and ``mealwatch explain`` through ``mealwatch.cli.main``."""

from __future__ import annotations

import json
import re

import pytest
import torch
from torch import nn

from mealwatch import Encoder, EncoderConfig, Tokenizer
from mealwatch.classifier import Classifier, ClassifierConfig
from mealwatch.pipeline import Pipeline
from mealwatch.cli import main

TEXT = "The meal was served without dal because it was spoiled."
WORDS = ["The", "meal", "was", "served", "without", "dal", "because", "it", "was", "spoiled", "."]


def tiny_config(vocab_size: int) -> EncoderConfig:
    return EncoderConfig(
        vocab_size=vocab_size,
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=4,
        intermediate_size=64,
        max_position_embeddings=128,
    )


@pytest.fixture(scope="module")
def encoder_dir(tmp_path_factory):
    """A Hugging Face-format folder holding a tiny random encoder and the real tokenizer."""
    torch.manual_seed(1)
    folder = tmp_path_factory.mktemp("tiny-encoder")
    tokenizer = Tokenizer.from_pretrained()
    Encoder(tiny_config(tokenizer.vocab_size)).save_pretrained(folder)
    tokenizer.save(folder)
    return folder


@pytest.fixture(scope="module")
def classifier_dir(tmp_path_factory):
    """A saved tiny random classifier folder."""
    torch.manual_seed(2)
    tokenizer = Tokenizer.from_pretrained()
    model = Classifier(
        Encoder(tiny_config(tokenizer.vocab_size)),
        ClassifierConfig(["spoiled_food", "menu_not_followed", "other"], multi_label=True),
    )
    nn.init.normal_(model.head.weight, std=3.0)
    folder = tmp_path_factory.mktemp("runs") / "tiny"
    Pipeline(model, tokenizer).save(folder)
    return folder


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def error_line(capsys, *argv) -> str:
    code, out, err = run(capsys, *argv)
    assert code == 2, (out, err)
    assert err.count("\n") == 1 and err.startswith(f"mealwatch {argv[0]}: error: "), err
    return err


@pytest.mark.parametrize("no_special", [False, True])
def test_json_has_words_and_attention_per_layer_head_query_key(capsys, encoder_dir, no_special):
    argv = ["attention", TEXT, "--model", str(encoder_dir), "--json"] + (["--no-special"] if no_special else [])
    code, out, _ = run(capsys, *argv)
    assert code == 0
    data = json.loads(out)
    words = WORDS if no_special else ["[CLS]", *WORDS, "[SEP]"]
    assert data["words"] == words
    attention = data["attention"]
    assert len(attention) == 2 and all(len(layer) == 4 for layer in attention)
    for layer in attention:
        for head in layer:
            assert len(head) == len(words) and all(len(row) == len(words) for row in head)
            assert all(abs(sum(row) - 1) < 2e-3 for row in head)  # rounded to 4 decimals
    assert all(re.fullmatch(r"-?\d+(\.\d{1,4})?", str(v)) for v in attention[1][3][2])
    assert data["renormalised"] is no_special
    assert ("note" in data) is no_special


def test_word_report_in_json_and_in_the_terminal(capsys, encoder_dir):
    code, out, _ = run(
        capsys, "attention", TEXT, "--model", str(encoder_dir), "--word", "IT", "--candidates", "dal,meal", "--json"
    )
    assert code == 0
    data = json.loads(out)
    focus = data["focus"]
    assert focus["word"] == "it" and focus["candidates"] == ["dal", "meal"]
    it, dal = data["words"].index("it"), data["words"].index("dal")
    weights = focus["weights"]  # [layer][head][candidate]
    assert [[round(h[0], 4) for h in layer] for layer in weights] == [
        [head[it][dal] for head in layer] for layer in data["attention"]
    ]
    assert sum(focus["wins"].values()) == 8

    code, out, _ = run(
        capsys, "attention", TEXT, "--model", str(encoder_dir), "--word", "was@2", "--candidates", "dal,meal"
    )
    assert code == 0
    assert 'Where "was@2" looks' in out
    assert re.search(r'top heads for "was@2" → "dal": L\dH\d \d\.\d\d', out)
    assert "heads in which each candidate gets the most weight (of 8)" in out


def test_default_terminal_summary_for_one_head(capsys, encoder_dir):
    code, out, _ = run(
        capsys, "attention", TEXT, "--model", str(encoder_dir), "--layer", "1", "--head", "2", "--no-special"
    )
    assert code == 0
    assert "layer 1, head 2" in out and "[CLS] and [SEP] left out" in out
    assert "spoiled" in out


def test_bad_input_gives_one_clear_line(capsys, encoder_dir):
    model = ["--model", str(encoder_dir)]
    assert "TEXT is empty" in error_line(capsys, "attention", "  ", *model)
    err = error_line(capsys, "attention", TEXT, *model, "--word", "rice")
    assert "'rice' is not a word of the text; its words are: " + " ".join(WORDS) in err
    assert "layer 2 is out of range: this model has 2 layers, numbered 0 to 1" in error_line(
        capsys, "attention", TEXT, *model, "--layer", "2"
    )
    assert "head 4 is out of range: each layer has 4 heads, numbered 0 to 3" in error_line(
        capsys, "attention", TEXT, *model, "--layer", "0", "--head", "4"
    )
    assert "--head needs --layer" in error_line(capsys, "attention", TEXT, *model, "--head", "1")
    assert "'was' occurs 2 times in the text, so was@5 does not exist; use was@1 to was@2" in error_line(
        capsys, "attention", TEXT, *model, "--word", "was@5"
    )
    assert "expected a file ending in .png" in error_line(capsys, "attention", TEXT, *model, "--png", "x.jpg")
    assert "does not exist" in error_line(capsys, "attention", TEXT, "--model", str(encoder_dir / "nowhere"))


def test_pictures_png_and_svg(capsys, encoder_dir, tmp_path):
    grid, head = tmp_path / "grid.png", tmp_path / "head.svg"
    code, _, err = run(capsys, "attention", TEXT, "--model", str(encoder_dir), "--png", str(grid))
    assert code == 0 and f"wrote {grid}" in err
    assert grid.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    code, _, _ = run(
        capsys, "attention", TEXT, "--model", str(encoder_dir), "--layer", "1", "--head", "0", "--svg", str(head)
    )
    svg = head.read_text()
    assert code == 0 and svg.lstrip().startswith("<?xml") and "<svg" in svg
    assert "layer 1, head 0" in svg and "spoiled" in svg  # the title and the word labels are in the picture


def test_html_page_from_a_classifier_carries_the_explanation(capsys, classifier_dir, tmp_path):
    page = tmp_path / "page.html"
    code, _, _ = run(
        capsys, "attention", TEXT + " </script><b>", "--model", str(classifier_dir), "--html", str(page), "--steps", "8"
    )
    assert code == 0
    html = page.read_text()
    assert "https://" not in html and "http://" not in html and " src=" not in html
    data = json.loads(re.search(r'<script id="mealwatch-data" type="application/json">(.*?)</script>', html, re.S)[1])
    assert data["text"].endswith("</script><b>")  # escaped inside the page, intact once parsed
    assert data["explanation"]["steps"] == 8 and data["explanation"]["predicted"]


def test_explain_command(capsys, classifier_dir):
    code, out, _ = run(capsys, "explain", TEXT, "--model", str(classifier_dir), "--json", "--steps", "16")
    assert code == 0
    data = json.loads(out)
    assert data["words"] == WORDS
    for label in data["predicted"]:
        assert len(data["attributions"][label]) == len(WORDS)
        change = data["probabilities"][label] - data["baseline_probabilities"][label]
        assert sum(data["attributions"][label]) == pytest.approx(change, abs=0.05 * abs(change) + 1e-3)
    code, out, _ = run(capsys, "explain", TEXT, "--model", str(classifier_dir), "--steps", "8")
    assert code == 0 and "predicted:" in out and "convergence delta" in out and "attention rollout" in out


def test_explain_bad_input(capsys, classifier_dir, encoder_dir, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert "run `mealwatch train` first" in error_line(capsys, "explain", TEXT)
    assert "not a trained mealwatch model" in error_line(capsys, "explain", TEXT, "--model", str(encoder_dir))
    assert "--steps must be at least 1" in error_line(
        capsys, "explain", TEXT, "--model", str(classifier_dir), "--steps", "0"
    )
    assert "TEXT is empty" in error_line(capsys, "explain", "", "--model", str(classifier_dir))


@pytest.mark.real_weights
def test_the_it_example_with_the_bundled_encoder(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # no ./runs/ here: without a trained model, attention reads the bundled encoder
    code, out, _ = run(capsys, "attention", TEXT, "--word", "it", "--candidates", "dal,meal", "--json")
    assert code == 0
    data = json.loads(out)
    weights = torch.tensor(data["focus"]["weights"])  # (6, 12, 2)
    assert weights.shape == (6, 12, 2)
    assert sum(data["focus"]["wins"].values()) == 72
    best = data["focus"]["top_heads"]["dal"][0]
    assert best["weight"] == pytest.approx(float(weights[..., 0].max()), abs=1e-4)
