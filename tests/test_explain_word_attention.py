"""Attention merged from WordPiece tokens to words, and the --word focus report."""

from __future__ import annotations

import pytest
import torch

from mealwatch import Encoder
from mealwatch.explain import drop_special, find_word, focus, merge_to_words, word_attention, word_attention_batch
from mealwatch.explain import word_units

# [CLS] play ##ing it [SEP]: "playing" has two pieces
WORD_IDS = [None, 0, 0, 1, None]
TOKEN_ATTENTION = torch.tensor(
    [
        [0.5, 0.1, 0.1, 0.2, 0.1],
        [0.2, 0.2, 0.3, 0.1, 0.2],
        [0.1, 0.4, 0.2, 0.2, 0.1],
        [0.3, 0.25, 0.25, 0.1, 0.1],
        [0.1, 0.2, 0.2, 0.0, 0.5],
    ]
)
# rows: [CLS]; playing = mean of rows 1 and 2; it; [SEP] — columns: playing = columns 1 + 2
WORD_ATTENTION = torch.tensor(
    [
        [0.5, 0.2, 0.2, 0.1],
        [0.15, 0.55, 0.15, 0.15],
        [0.3, 0.5, 0.1, 0.1],
        [0.1, 0.4, 0.0, 0.5],
    ]
)
TEXT = "The meal was served without dal because it was spoiled."


def test_word_units_group_pieces_and_keep_specials_apart():
    assert word_units(WORD_IDS) == [[0], [1, 2], [3], [4]]


def test_merge_to_words_matches_the_hand_computed_matrix():
    merged = merge_to_words(TOKEN_ATTENTION, WORD_IDS)
    torch.testing.assert_close(merged, WORD_ATTENTION)
    torch.testing.assert_close(merged.sum(-1), torch.ones(4))


def test_merge_to_words_keeps_leading_dimensions():
    other = TOKEN_ATTENTION.flip(-1)  # columns reversed: rows still sum to 1
    stacked = torch.stack([TOKEN_ATTENTION, other])[None]  # (1, 2, T, T) like (layers, heads, T, T)
    merged = merge_to_words(stacked, WORD_IDS)
    assert merged.shape == (1, 2, 4, 4)
    torch.testing.assert_close(merged[0, 0], WORD_ATTENTION)
    # reversed columns: [CLS] row is (0.1, 0.2, 0.1, 0.1, 0.5) -> [CLS] 0.1, playing 0.3, it 0.1, [SEP] 0.5
    torch.testing.assert_close(merged[0, 1, 0], torch.tensor([0.1, 0.3, 0.1, 0.5]))


def test_merge_to_words_rejects_a_mismatched_word_map():
    with pytest.raises(ValueError, match="does not match 4 word ids"):
        merge_to_words(TOKEN_ATTENTION, WORD_IDS[:4])


def test_drop_special_renormalises_rows_by_hand():
    kept = drop_special(WORD_ATTENTION, [True, False, False, True])
    # playing: (0.55, 0.15) / 0.7; it: (0.5, 0.1) / 0.6
    torch.testing.assert_close(kept, torch.tensor([[11 / 14, 3 / 14], [5 / 6, 1 / 6]]))


@pytest.fixture
def encoder(tiny_config):
    return Encoder(tiny_config).eval()


@pytest.mark.parametrize("include_special", [True, False])
def test_rows_sum_to_one_with_and_without_specials(encoder, tokenizer, include_special):
    text = "The khichdi was unpalatable and the chapatis were burnt."
    wa = word_attention(encoder, tokenizer, text, include_special=include_special)
    batch = tokenizer(text)
    assert len(batch.tokens[0]) > len(batch.words[0]) + 2  # some words really are split into pieces
    expected = (["[CLS]"] if include_special else []) + batch.words[0] + (["[SEP]"] if include_special else [])
    assert wa.words == expected
    assert wa.renormalised is (not include_special)
    assert wa.attention.shape == (2, 4, len(expected), len(expected))
    torch.testing.assert_close(wa.attention.sum(-1), torch.ones(2, 4, len(expected)))


def test_word_attention_is_the_merge_of_the_encoder_attention(encoder, tokenizer):
    batch = tokenizer(TEXT)
    out = encoder(**batch.model_inputs(), output_attentions=True)
    tokens = torch.stack(out.attentions, dim=1)[0]  # (layers, heads, T, T)
    wa = word_attention(encoder, tokenizer, TEXT)
    torch.testing.assert_close(wa.attention, merge_to_words(tokens, batch.word_ids[0]))


def test_a_text_alone_and_inside_a_padded_batch_agree(encoder, tokenizer):
    short = "The dal was watery."
    longer = "No eggs were given on Wednesday and the rice had small stones in it, said the parents."
    alone = word_attention(encoder, tokenizer, short)
    in_batch = word_attention_batch(encoder, tokenizer, [longer, short, "ok"])
    assert tokenizer([longer, short]).attention_mask[1].eq(0).any()  # the short text really is padded
    assert in_batch[1].words == alone.words
    torch.testing.assert_close(in_batch[1].attention, alone.attention, atol=1e-5, rtol=1e-5)


def test_empty_text_is_refused(encoder, tokenizer):
    with pytest.raises(ValueError, match="empty"):
        word_attention(encoder, tokenizer, "   ")


def test_find_word_ignores_case_and_picks_occurrences():
    words = ["[CLS]", "It", "was", "cold", "and", "it", "was", "late", "[SEP]"]
    special = [True] + [False] * 7 + [True]
    assert find_word(words, "it", special) == 1
    assert find_word(words, "IT@2", special) == 5
    assert find_word(words, "was@2", special) == 6
    with pytest.raises(ValueError, match="occurs 2 times.*it@5 does not exist.*it@1 to it@2"):
        find_word(words, "it@5", special)
    with pytest.raises(
        ValueError, match="'dal' is not a word of the text; its words are: It was cold and it was late$"
    ):
        find_word(words, "dal", special)


def test_focus_reports_the_weights_it_reads_from_the_matrix(encoder, tokenizer):
    wa = word_attention(encoder, tokenizer, TEXT)
    report = focus(wa, "it", ["dal", "meal"], top=3)
    it, dal, meal = wa.words.index("it"), wa.words.index("dal"), wa.words.index("meal")
    assert report.index == it and report.candidates == ["dal", "meal"]
    torch.testing.assert_close(report.weights[..., 0], wa.attention[:, :, it, dal])
    torch.testing.assert_close(report.weights[..., 1], wa.attention[:, :, it, meal])
    assert sum(report.wins.values()) == wa.layers * wa.heads
    dal_wins = int((wa.attention[:, :, it, dal] > wa.attention[:, :, it, meal]).sum())
    assert report.wins["dal"] == dal_wins
    best = report.top_heads["dal"][0]
    assert best.weight == pytest.approx(float(wa.attention[:, :, it, dal].max()))
    layer_mean = wa.attention[1, :, it, :].mean(0)
    assert report.top_per_layer[1][0][1] == pytest.approx(float(layer_mean.max()))
    assert [h.weight for h in report.top_heads["meal"]] == sorted(
        (h.weight for h in report.top_heads["meal"]), reverse=True
    )
