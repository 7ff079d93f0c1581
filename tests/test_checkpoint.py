"""Bad checkpoints give clear errors that name the file, the tensor and both shapes."""

import json
import shutil

import pytest
import torch
from safetensors.torch import load_file, save_file

from mealwatch import CheckpointError, Encoder, EncoderConfig, Tokenizer


@pytest.fixture
def saved(tmp_path):
    torch.manual_seed(0)
    config = EncoderConfig(
        vocab_size=50,
        hidden_size=16,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=32,
        max_position_embeddings=20,
    )
    Encoder(config).save_pretrained(tmp_path)
    return tmp_path


def rewrite(folder, change):
    tensors = load_file(str(folder / "model.safetensors"))
    change(tensors)
    save_file(tensors, str(folder / "model.safetensors"))


def test_deleted_tensor_is_named(saved):
    rewrite(saved, lambda t: t.pop("encoder.layer.1.attention.self.key.weight"))
    with pytest.raises(
        CheckpointError,
        match=r"missing tensor encoder\.layer\.1\.attention\.self\.key\.weight "
        r"\(expected shape \(16, 16\)\)",
    ):
        Encoder.from_pretrained(saved)


def test_wrong_shape_names_both_shapes(saved):
    rewrite(saved, lambda t: t.update({"pooler.dense.weight": torch.zeros(16, 8)}))
    with pytest.raises(CheckpointError, match=r"pooler\.dense\.weight has shape \(16, 8\), expected \(16, 16\)"):
        Encoder.from_pretrained(saved)


def test_unexpected_tensor_is_named(saved):
    rewrite(saved, lambda t: t.update({"encoder.layer.7.output.dense.weight": torch.zeros(2, 2)}))
    with pytest.raises(CheckpointError, match=r"unexpected tensor encoder\.layer\.7\.output\.dense\.weight"):
        Encoder.from_pretrained(saved)


def test_every_problem_is_listed_at_once(saved):
    def change(t):
        t.pop("embeddings.LayerNorm.bias")
        t["embeddings.word_embeddings.weight"] = torch.zeros(51, 16)

    rewrite(saved, change)
    with pytest.raises(CheckpointError) as e:
        Encoder.from_pretrained(saved)
    assert "embeddings.LayerNorm.bias" in str(e.value) and "(51, 16)" in str(e.value) and "(50, 16)" in str(e.value)


def test_missing_config(saved):
    (saved / "config.json").unlink()
    with pytest.raises(CheckpointError, match="config.json is missing"):
        Encoder.from_pretrained(saved)


def test_truncated_safetensors(saved):
    data = (saved / "model.safetensors").read_bytes()
    (saved / "model.safetensors").write_bytes(data[: len(data) // 2])
    with pytest.raises(CheckpointError, match="model.safetensors is damaged or truncated"):
        Encoder.from_pretrained(saved)


def test_no_weights_at_all(saved):
    (saved / "model.safetensors").unlink()
    with pytest.raises(CheckpointError, match="expected model.safetensors or pytorch_model.bin"):
        Encoder.from_pretrained(saved)


@pytest.mark.parametrize("model_type", ["roberta", "mpnet"])
def test_unsupported_architecture(saved, model_type):
    config = json.loads((saved / "config.json").read_text())
    config["model_type"] = model_type
    (saved / "config.json").write_text(json.dumps(config))
    with pytest.raises(CheckpointError, match=f"model_type '{model_type}' is not supported"):
        Encoder.from_pretrained(saved)


def test_missing_folder(tmp_path):
    with pytest.raises(CheckpointError, match="does not exist"):
        Encoder.from_pretrained(tmp_path / "nowhere")


def test_invalid_json_config(saved):
    (saved / "config.json").write_text("{not json")
    with pytest.raises(CheckpointError, match="config.json is not valid JSON"):
        Encoder.from_pretrained(saved)


def test_tokenizer_folder_without_vocabulary(saved):
    with pytest.raises(CheckpointError, match="expected tokenizer.json or vocab.txt"):
        Tokenizer.from_pretrained(saved)
    shutil.rmtree(saved)
