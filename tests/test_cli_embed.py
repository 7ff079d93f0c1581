"""`mealwatch embed`: vectors equal to the library's, files in and out, and clear errors."""

import json

import numpy as np
import pytest
import torch

from mealwatch import Encoder, Tokenizer
from mealwatch.cli import main
from mealwatch.embeddings import embed_texts


@pytest.fixture
def tiny_model_dir(tmp_path, tiny_config, tokenizer):
    folder = tmp_path / "tiny"
    Encoder(tiny_config).save_pretrained(folder)
    tokenizer.save(folder)
    return folder


def test_embed_texts_to_npy_matches_mean_pooling(tmp_path, tiny_model_dir):
    out = tmp_path / "v.npy"
    assert (
        main(["embed", "worms in the khichdi", "dal was sour", "--model", str(tiny_model_dir), "--output", str(out)])
        == 0
    )
    vectors = np.load(out)
    encoder, tok = Encoder.from_pretrained(tiny_model_dir), Tokenizer.from_pretrained(tiny_model_dir)
    with torch.no_grad():
        b = tok(["dal was sour"])
        h = encoder(**b.model_inputs()).last_hidden_state[0]
    assert vectors.shape == (2, 32)
    np.testing.assert_allclose(vectors[1], h.mean(0).numpy(), atol=1e-5)


def test_embed_csv_to_jsonl_keeps_order_and_cls_pooling(tmp_path, tiny_model_dir):
    src = tmp_path / "in.csv"
    src.write_text('id,complaint\n1,"rice, uncooked"\n2,no egg on wednesday\n3,worms\n', encoding="utf-8")
    out = tmp_path / "out.jsonl"
    assert (
        main(
            [
                "embed",
                "--input",
                str(src),
                "--text-column",
                "complaint",
                "--pooling",
                "cls",
                "--model",
                str(tiny_model_dir),
                "--output",
                str(out),
            ]
        )
        == 0
    )
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["text"] for r in rows] == ["rice, uncooked", "no egg on wednesday", "worms"]
    encoder, tok = Encoder.from_pretrained(tiny_model_dir), Tokenizer.from_pretrained(tiny_model_dir)
    expected = embed_texts(encoder, tok, ["worms"], pooling="cls")[0]
    np.testing.assert_allclose(rows[2]["embedding"], expected, atol=1e-5)


def test_sentence_embeddings_are_order_independent_in_a_batch(tiny_config, tokenizer):
    encoder = Encoder(tiny_config).eval()
    texts = ["a long complaint about the cook and the dal and the rice", "worms", "no food today"]
    a = embed_texts(encoder, tokenizer, texts, batch_size=2)
    b = embed_texts(encoder, tokenizer, texts[::-1], batch_size=3)[::-1]
    np.testing.assert_allclose(a, b, atol=1e-5)


@pytest.mark.parametrize(
    "content,suffix,message",
    [
        ("id,body\n1,hello\n", ".csv", "in.csv:1: no 'text' column (columns found: id, body)"),
        ("text\nfine\n   \n", ".csv", "in.csv:3: empty text"),
        ('{"text": "ok"}\n{"text": 5}\n', ".jsonl", "in.jsonl:2: expected an object with a string 'text' field"),
        ('{"text": "ok"}\n{broken\n', ".jsonl", "in.jsonl:2: not valid JSON"),
        ("fine\n\nalso fine\n", ".txt", "in.txt:2: empty text"),
        ("x", ".xlsx", "unsupported file type '.xlsx'"),
    ],
)
def test_bad_input_files_give_clear_errors(tmp_path, capsys, content, suffix, message):
    src = tmp_path / f"in{suffix}"
    src.write_text(content, encoding="utf-8")
    assert main(["embed", "--input", str(src)]) == 2
    assert message in capsys.readouterr().err


def test_non_utf8_file_names_the_line(tmp_path, capsys):
    src = tmp_path / "in.txt"
    src.write_bytes("good line\nsecond line caf\xe9\n".encode("latin-1"))
    assert main(["embed", "--input", str(src)]) == 2
    assert "in.txt:2: not UTF-8" in capsys.readouterr().err


def test_bad_flags(tmp_path, capsys):
    assert main(["embed"]) == 2
    assert main(["embed", "x", "--output", str(tmp_path / "v.txt")]) == 2
    assert main(["embed", "   "]) == 2
    err = capsys.readouterr().err
    assert "give either TEXT" in err and "expected a file ending in .npy or .jsonl" in err and "is empty" in err


def test_encoder_only_loads_a_checkpoint_and_embeds_as_the_library_does(tiny_model_dir):
    from mealwatch.pipeline import EncoderOnly

    texts = ["worms in the khichdi", "dal was sour", "no egg"]
    encoder = EncoderOnly.load(tiny_model_dir)
    assert encoder.name == f"encoder {tiny_model_dir}"
    expected = embed_texts(Encoder.from_pretrained(tiny_model_dir), Tokenizer.from_pretrained(tiny_model_dir), texts,
                           "cls", 2, True)  # fmt: skip
    np.testing.assert_allclose(encoder.embed(texts, "cls", batch_size=2, normalize=True), expected, atol=1e-5)
    bf16 = EncoderOnly.load(tiny_model_dir, precision="bf16").embed(texts)
    assert bf16.shape == (3, 32) and bf16.dtype == np.float32
    np.testing.assert_allclose(bf16, embed_texts(encoder.encoder, encoder.tokenizer, texts), atol=0.05)
