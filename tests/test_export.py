"""``mealwatch export``: a Hugging Face folder and an ONNX graph that give our model's probabilities."""

from __future__ import annotations

import json

import pytest
import torch

from mealwatch import Encoder
from mealwatch.classifier import Classifier, ClassifierConfig
from mealwatch.cli import main
from mealwatch.labels import LABELS
from mealwatch.pipeline import Pipeline

TEXTS = [
    "worms in the khichdi",
    "खाने में कीड़े थे और बच्चे बीमार हो गए 🙁",
    "The meal was served without dal because it was spoiled. " * 3,
    "no",
]


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory, tokenizer):
    from mealwatch import EncoderConfig

    torch.manual_seed(0)
    config = EncoderConfig(vocab_size=tokenizer.vocab_size, hidden_size=32, num_hidden_layers=2,
                           num_attention_heads=4, intermediate_size=64, max_position_embeddings=128)  # fmt: skip
    classifier = Classifier(Encoder(config), ClassifierConfig(labels=list(LABELS), multi_label=True,
                            thresholds=[0.3 + 0.05 * i for i in range(len(LABELS))]))  # fmt: skip
    folder = tmp_path_factory.mktemp("models") / "run"
    Pipeline(classifier.eval(), tokenizer).save(folder)
    return folder


def test_hf_export_loads_in_transformers_with_the_same_probabilities(model_dir, tmp_path) -> None:
    transformers = pytest.importorskip("transformers")
    out = tmp_path / "hf"
    assert main(["export", "--model", str(model_dir), "--format", "hf", "--out", str(out)]) == 0
    model = transformers.AutoModelForSequenceClassification.from_pretrained(out, trust_remote_code=True).eval()
    tokenizer = transformers.AutoTokenizer.from_pretrained(out)
    ours = Pipeline.from_folder(model_dir)
    batch = tokenizer(TEXTS, padding=True, truncation=True, max_length=ours.max_length, return_tensors="pt")
    assert torch.equal(batch["input_ids"], ours.tokenize(TEXTS).input_ids)  # the same word pieces, padded alike
    with torch.no_grad():
        theirs = torch.sigmoid(model(**batch).logits)
    torch.testing.assert_close(theirs, ours.probabilities(TEXTS), rtol=0, atol=1e-5)
    config = json.loads((out / "config.json").read_text())
    assert config["id2label"]["0"] == LABELS[0] and config["label2id"][LABELS[-1]] == len(LABELS) - 1
    assert config["problem_type"] == "multi_label_classification"
    assert config["mealwatch"]["pooling"] == "mean"
    assert config["mealwatch"]["thresholds"] == pytest.approx([0.3 + 0.05 * i for i in range(len(LABELS))])
    assert config["mealwatch"]["urgency"]["high"] == ["foreign_object", "illness"]
    card = (out / "README.md").read_text()
    assert "trust_remote_code=True" in card and f"| 0 | `{LABELS[0]}` | 0.30 |" in card


@pytest.mark.slow
def test_onnx_export_keeps_the_padding_mask_and_runs_in_onnxruntime(model_dir, tmp_path, capsys) -> None:
    pytest.importorskip("onnxruntime", reason="pip install 'mealwatch[export]' for ONNX export")
    out = tmp_path / "onnx"
    assert main(["export", "--model", str(model_dir), "--format", "onnx", "--out", str(out)]) == 0
    assert {p.name for p in out.iterdir()} >= {"model.onnx", "model.int8.onnx", "config.json", "tokenizer.json"}
    ours = Pipeline.from_folder(model_dir)
    onnx = Pipeline.load(out, backend="onnxruntime")
    int8 = Pipeline.load(out, backend="onnxruntime", precision="int8")
    assert onnx.mode == "onnxruntime-fp32" and int8.mode == "onnxruntime-int8"
    batch = ours.tokenize(TEXTS).model_inputs()  # padded: lengths differ a lot
    assert (batch["attention_mask"] == 0).any()
    with torch.no_grad():
        expected = ours.model(**batch).logits
    torch.testing.assert_close(onnx.model(**batch).logits, expected, rtol=0, atol=1e-4)
    one = ours.tokenize(TEXTS[:1]).model_inputs()  # another batch and length than the traced example
    torch.testing.assert_close(onnx.model(**one).logits, ours.model(**one).logits.detach(), rtol=0, atol=1e-4)
    assert (int8.model(**batch).logits - expected).abs().max() < 0.1
    capsys.readouterr()
    assert main(["predict", "--model", str(out), "--backend", "onnxruntime", *TEXTS]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [p["labels"] for p in lines] == [p.labels for p in ours.predict(TEXTS)]


def test_export_refuses_bad_arguments(model_dir, tmp_path, capsys) -> None:
    assert main(["export", "--model", str(model_dir), "--format", "hf", "--out", str(model_dir)]) == 2
    assert "must not be the model's own folder" in capsys.readouterr().err
    other = tmp_path / "full"
    other.mkdir()
    (other / "notes.txt").write_text("keep me")
    assert main(["export", "--model", str(model_dir), "--format", "hf", "--out", str(other)]) == 2
    assert "holds other files" in capsys.readouterr().err and (other / "notes.txt").read_text() == "keep me"
    assert main(["predict", "--model", str(model_dir), "--backend", "onnxruntime", "worms"]) == 2
    assert "written by `mealwatch export --format onnx`" in capsys.readouterr().err
    assert main(["predict", "--model", str(model_dir), "--backend", "onnxruntime", "--precision", "bf16", "x"]) == 2
    assert "fp32 or int8" in capsys.readouterr().err


def test_predict_runs_in_each_precision_from_the_command_line(model_dir, capsys) -> None:
    expected = [p.labels for p in Pipeline.from_folder(model_dir).predict(TEXTS[:2])]
    for precision in ("fp32", "bf16", "int8"):
        assert main(["predict", "--model", str(model_dir), "--precision", precision, *TEXTS[:2]]) == 0
        lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
        assert len(lines) == 2
        if precision == "fp32":
            assert [p["labels"] for p in lines] == expected
