"""Teaching the encoder Hindi: vocabulary extension, distillation and masked-LM pre-training, on tiny models."""

import numpy as np
import pytest
import torch

from mealwatch import Encoder, EncoderConfig, Tokenizer
from mealwatch.adapt.distill import distill
from mealwatch.embeddings import embed_texts
from mealwatch.adapt.mlm import IGNORE, continue_pretraining, mask_tokens
from mealwatch.adapt.recipe import AdaptArguments, adapt_encoder, read_adaptation
from mealwatch.adapt.vocabulary import (
    AddedRowsEmbedding,
    added_rows_learning,
    extend,
    freeze_pretrained_rows,
    symbol_pieces,
    train_pieces,
)
from mealwatch.romanise import romanise
from mealwatch.classifier import Classifier, ClassifierConfig
from mealwatch.pipeline import Pipeline

pytestmark = pytest.mark.usefixtures("one_thread")

HINDI = [
    "आज खाने में कीड़े थे", "बच्चों को खाना खाने के बाद उल्टी हुई", "खिचड़ी में छिपकली गिरी थी",
    "दाल बासी थी और बदबू आ रही थी", "रसोइया शराब पीकर आता है", "बच्चों को आधा पेट खाना मिला",
    "आज स्कूल में खाना नहीं बना", "सब्ज़ी में बहुत नमक था", "खाने में बाल निकला", "दाल में पानी ही पानी था",
]  # fmt: skip
ENGLISH = [
    "there were insects in the food today", "the children vomited after eating", "a lizard fell in the khichdi",
    "the dal was stale and smelt", "the cook comes drunk", "the children got half a meal",
    "no meal was cooked at school today", "too much salt in the sabzi", "a hair in the food", "the dal was all water",
]  # fmt: skip


def tiny_encoder(tokenizer: Tokenizer) -> Encoder:
    torch.manual_seed(0)
    config = EncoderConfig(vocab_size=tokenizer.vocab_size, hidden_size=32, num_hidden_layers=2,
                           num_attention_heads=4, intermediate_size=64, max_position_embeddings=128)  # fmt: skip
    return Encoder(config).eval()


def test_romanise_writes_words_as_phones_type_them():
    assert [romanise(w) for w in ("खाना", "उल्टी", "दाल", "सब्ज़ी", "बच्चों")] == [
        "khana", "ulti", "dal", "sabzi", "bachchon"]  # fmt: skip


def test_extension_teaches_the_vocabulary_devanagari_and_keeps_the_old_rows():
    tokenizer = Tokenizer.from_pretrained()
    encoder = tiny_encoder(tokenizer)
    before = encoder.embeddings.word.weight.detach().clone()
    english_ids = tokenizer(["the dal was sour"]).input_ids
    pieces = train_pieces(HINDI * 3, tokenizer, size=200)
    assert pieces and all(any("\u0900" <= c <= "\u097f" for c in p) for p in pieces)
    ext = extend(encoder, tokenizer, pieces)
    assert ext.pretrained_vocab_size == before.size(0) and encoder.config.vocab_size == before.size(0) + len(pieces)
    assert torch.equal(encoder.embeddings.word.weight[: before.size(0)], before)  # the old rows are untouched
    assert torch.equal(tokenizer(["the dal was sour"]).input_ids, english_ids)  # English reads as before
    tokens = tokenizer(["आज खाने में कीड़े थे"]).tokens[0]
    assert "[UNK]" not in tokens
    # a new row starts as the mean of the old rows of its romanisation's pieces
    piece = next(p for p in pieces if romanise(p) == "aj")  # "आज"
    old_ids = [t.id for t in tokenizer.backend.model.tokenize("aj") if t.id < before.size(0)]
    expected = before[old_ids].mean(dim=0)
    torch.testing.assert_close(encoder.embeddings.word.weight[tokenizer.backend.token_to_id(piece)], expected)


def test_emoji_the_texts_use_become_pieces_that_start_from_their_names():
    tokenizer = Tokenizer.from_pretrained()
    texts = ["khana bekar tha 🤮🤮", "bahut accha 😂", "mast 😂😂 yaar👍🏻", "ok 👍", "the ❤ kitchen ❤"]
    # used at least twice and unknown to the English vocabulary; the most used first; a skin tone continues its word
    assert symbol_pieces(texts, tokenizer) == ["😂", "❤", "👍", "🤮"]
    assert symbol_pieces(texts, tokenizer, min_frequency=1) == ["😂", "❤", "👍", "🤮", "##🏻"]
    encoder = tiny_encoder(tokenizer)
    before = encoder.embeddings.word.weight.detach().clone()  # (V, H)
    extend(encoder, tokenizer, symbol_pieces(texts, tokenizer))
    assert tokenizer(["mast😂 yaar"]).tokens[0] == ["[CLS]", "mast", "😂", "ya", "##ar", "[SEP]"]
    assert tokenizer(["👍🏻"]).tokens[0] == ["[CLS]", "[UNK]", "[SEP]"]  # "##🏻" was used once: not added
    # "😂" is FACE WITH TEARS OF JOY: its row is the mean of the old rows of those five words
    words = ["face", "with", "tears", "of", "joy"]
    old_ids = [t.id for w in words for t in tokenizer.backend.model.tokenize(w)]
    assert len(old_ids) == 5 and max(old_ids) < before.size(0)
    torch.testing.assert_close(encoder.embeddings.word.weight[tokenizer.backend.token_to_id("😂")],
                               before[old_ids].mean(dim=0))  # fmt: skip


def test_extended_model_saves_reloads_and_predicts_the_same(tmp_path):
    tokenizer = Tokenizer.from_pretrained()
    encoder = tiny_encoder(tokenizer)
    extend(encoder, tokenizer, train_pieces(HINDI * 3, tokenizer, size=200) + ["😂"])
    torch.manual_seed(1)
    pipeline = Pipeline(Classifier(encoder, ClassifierConfig(["a", "b"], True)).eval(), tokenizer)
    pipeline.save(tmp_path / "m")
    again = Pipeline.from_folder(tmp_path / "m")
    assert again.tokenizer.vocab_size == tokenizer.vocab_size
    texts = [*HINDI, "खाना😂 बेकार"]
    assert again.tokenizer(texts).tokens == tokenizer(texts).tokens  # the emoji stays a word of its own
    torch.testing.assert_close(again.probabilities(texts), pipeline.probabilities(texts), atol=1e-6, rtol=0)


def test_frozen_rows_do_not_move_and_new_rows_do():
    emb = torch.nn.Embedding(10, 4)
    before = emb.weight.detach().clone()
    freeze_pretrained_rows(emb, 6)
    opt = torch.optim.SGD(emb.parameters(), lr=1.0)
    emb(torch.arange(10)).sum().backward()
    opt.step()
    assert torch.equal(emb.weight[:6], before[:6]) and not torch.equal(emb.weight[6:], before[6:])


def test_added_rows_learn_as_with_the_frozen_table_and_go_back_into_it(tokenizer):
    """Training the split table (added rows a parameter of their own) equals training the whole table with the
    pre-trained rows' gradient zeroed, step for step; on leaving, the one table holds the rows learned."""
    torch.manual_seed(0)
    reference, split = tiny_encoder(tokenizer), tiny_encoder(tokenizer)
    vocab = reference.embeddings.word.num_embeddings
    bigger = torch.nn.Embedding(vocab + 5, reference.config.hidden_size, padding_idx=0)
    for encoder in (reference, split):  # the same 5 added rows in both
        bigger.weight.data[:vocab] = encoder.embeddings.word.weight.data
        encoder.embeddings.word = torch.nn.Embedding.from_pretrained(bigger.weight.data.clone(), freeze=False)
    split.load_state_dict(reference.state_dict())
    before = reference.embeddings.word.weight.detach().clone()
    ids = torch.tensor([[2, vocab + 1, 7, vocab + 4, vocab], [vocab + 2, 3, 3, vocab + 1, 5]])  # (2, 5)

    def steps(encoder: Encoder) -> None:
        optimizer = torch.optim.AdamW([p for p in encoder.parameters() if p.requires_grad], lr=0.01, weight_decay=0)
        for _ in range(3):
            optimizer.zero_grad()
            encoder(input_ids=ids).last_hidden_state.pow(2).mean().backward()
            optimizer.step()

    hook = freeze_pretrained_rows(reference.embeddings.word, vocab)
    steps(reference)
    hook.remove()
    with added_rows_learning(split, vocab) as rows:
        assert isinstance(split.embeddings.word, AddedRowsEmbedding) and rows.added.shape == (5, before.size(1))
        torch.testing.assert_close(rows(ids), torch.nn.functional.embedding(ids, before))  # the same lookup
        steps(split)
    after = split.embeddings.word.weight
    assert isinstance(split.embeddings.word, torch.nn.Embedding) and torch.equal(after[:vocab], before[:vocab])
    assert not torch.equal(after[vocab:], before[vocab:])  # the added rows learned
    torch.testing.assert_close(after, reference.embeddings.word.weight, atol=1e-6, rtol=0)
    for (name, p), q in zip(split.named_parameters(), reference.parameters()):
        torch.testing.assert_close(p, q, atol=1e-6, rtol=0, msg=name)


def test_masking_obeys_the_80_10_10_rule():
    generator = torch.Generator().manual_seed(0)
    ids = torch.randint(1000, 30000, (400, 128), generator=generator)
    maskable = torch.ones_like(ids, dtype=torch.bool)
    maskable[:, 0] = maskable[:, -1] = False  # [CLS] and [SEP] are never picked
    out = mask_tokens(ids, maskable, mask_token_id=103, vocab_size=30522, generator=generator)
    picked = out.labels != IGNORE
    n = int(picked.sum())
    assert abs(n / int(maskable.sum()) - 0.15) < 0.005  # 51,000 draws: the share is 0.15 ± 3 sd
    assert not picked[:, 0].any() and not picked[:, -1].any()
    assert torch.equal(out.labels[picked], ids[picked]) and torch.equal(out.input_ids[~picked], ids[~picked])
    masked = (out.input_ids[picked] == 103).float().mean()
    kept = (out.input_ids[picked] == ids[picked]).float().mean()
    randomised = 1 - masked - kept
    assert abs(masked - 0.8) < 0.01 and abs(kept - 0.1) < 0.01 and abs(randomised - 0.1) < 0.01


def test_masked_lm_training_lowers_its_loss():
    tokenizer = Tokenizer.from_pretrained()
    encoder = tiny_encoder(tokenizer)
    losses = continue_pretraining(encoder, tokenizer, ENGLISH * 4, epochs=6, batch_size=8, learning_rate=3e-3)
    assert losses[-1] < losses[0]


def test_distillation_brings_the_hindi_vector_to_the_english_one():
    tokenizer = Tokenizer.from_pretrained()
    teacher = tiny_encoder(tokenizer)
    student_tokenizer = Tokenizer.from_pretrained()
    student = tiny_encoder(student_tokenizer)
    ext = extend(student, student_tokenizer, train_pieces(HINDI * 3, student_tokenizer, size=200))
    pairs = list(zip(ENGLISH, HINDI))
    result = distill(student, student_tokenizer, teacher, tokenizer, pairs, epochs=8, batch_size=5,
                     learning_rate=3e-3, frozen_rows=ext.pretrained_vocab_size)  # fmt: skip
    assert result.losses[-1] < result.losses[0]
    english = embed_texts(teacher, tokenizer, ENGLISH)  # (N, H)
    gap = np.linalg.norm(embed_texts(student, student_tokenizer, HINDI) - english)
    assert gap < np.linalg.norm(embed_texts(tiny_encoder(Tokenizer.from_pretrained()), tokenizer, HINDI) - english)


def test_adapted_folder_loads_as_an_encoder_and_records_its_recipe(tmp_path, tiny_encoder_dir):
    out = adapt_encoder(tmp_path / "enc", HINDI, list(zip(ENGLISH, HINDI)), base=tiny_encoder_dir,
                        args=AdaptArguments(pieces=200, distill_epochs=1, batch_size=5))  # fmt: skip
    record = read_adaptation(out)
    assert record["added_pieces"] > 0 and len(record["distillation_losses"]) == 1
    encoder, tokenizer = Encoder.from_pretrained(out), Tokenizer.from_pretrained(out)
    assert encoder.config.vocab_size == tokenizer.vocab_size == record["pretrained_vocab_size"] + record["added_pieces"]


def test_extension_refuses_a_sentencepiece_tokenizer_clearly():
    from tokenizers import Tokenizer as FastTokenizer
    from tokenizers import models as tk_models

    backend = FastTokenizer(tk_models.Unigram([("<unk>", 0.0), ("<s>", 0.0), ("</s>", 0.0), ("<pad>", 0.0)], 0))
    tokenizer = Tokenizer.__new__(Tokenizer)
    tokenizer.backend = backend
    with pytest.raises(ValueError, match="works on WordPiece vocabularies; this tokenizer is Unigram"):
        extend(tiny_encoder(Tokenizer.from_pretrained()), tokenizer, ["खाना"])
