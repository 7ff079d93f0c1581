"""Padding is invisible: a text's outputs and attention are the same alone and inside a padded batch."""

import torch

from mealwatch import Encoder

TEXTS = ["worms", "The meal was served without dal because it was spoiled.", "khana bahut kharab tha aaj"]


def test_text_alone_equals_text_in_padded_batch(tiny_config, tokenizer):
    encoder = Encoder(tiny_config).eval()
    batch = tokenizer(TEXTS)
    with torch.no_grad():
        together = encoder(**batch.model_inputs(), output_attentions=True)
        fast = encoder(**batch.model_inputs())
        for i, text in enumerate(TEXTS):
            alone = encoder(**tokenizer([text]).model_inputs(), output_attentions=True)
            n = len(batch.tokens[i])
            assert torch.allclose(together.last_hidden_state[i, :n], alone.last_hidden_state[0], atol=1e-5)
            assert torch.allclose(fast.last_hidden_state[i, :n], alone.last_hidden_state[0], atol=1e-5)
            assert torch.allclose(together.pooler_output[i], alone.pooler_output[0], atol=1e-5)
            for layer_batch, layer_alone in zip(together.attentions, alone.attentions):
                assert torch.allclose(layer_batch[i, :, :n, :n], layer_alone[0], atol=1e-5)
                assert torch.equal(layer_batch[i, :, :, n:], torch.zeros_like(layer_batch[i, :, :, n:]))
    for layer in together.attentions:
        assert torch.allclose(layer.sum(-1), torch.ones(layer.shape[:-1]), atol=1e-6)


def test_inputs_embeds_equals_input_ids(tiny_config, tokenizer):
    encoder = Encoder(tiny_config).eval()
    batch = tokenizer(TEXTS)
    with torch.no_grad():
        by_ids = encoder(**batch.model_inputs()).last_hidden_state
        embeds = encoder.embeddings.word(batch.input_ids)
        by_embeds = encoder(inputs_embeds=embeds, attention_mask=batch.attention_mask).last_hidden_state
    assert torch.allclose(by_ids, by_embeds, atol=1e-6)


def test_too_long_input_is_a_clear_error(tiny_config):
    import pytest

    encoder = Encoder(tiny_config).eval()
    with pytest.raises(ValueError, match="longer than the model's 128 positions"):
        encoder(torch.ones(1, 129, dtype=torch.long))
