"""Integrated gradients (exactness, completeness, batching) and attention rollout."""

from __future__ import annotations

import pytest
import torch
from torch import nn

from mealwatch import Encoder
from mealwatch.classifier import Classifier, ClassifierConfig
from mealwatch.pipeline import Pipeline
from mealwatch.explain import attention_rollout, explain, explain_batch, integrated_gradients, rollout_importance
from mealwatch.explain.attribution_math import frozen_weights, label_targets, pad_baseline, trapezoid_weights
from mealwatch.transformer import mean_pool

TEXT = "The meal was served without dal because it was spoiled."


def test_trapezoid_weights():
    alphas, weights = trapezoid_weights(4)
    torch.testing.assert_close(alphas, torch.tensor([0.0, 0.25, 0.5, 0.75, 1.0]))
    torch.testing.assert_close(weights, torch.tensor([0.125, 0.25, 0.25, 0.25, 0.125]))
    with pytest.raises(ValueError, match="at least 1"):
        trapezoid_weights(0)


def test_pad_baseline_replaces_only_word_pieces():
    embedding = nn.Embedding(10, 3, padding_idx=0)
    ids = torch.tensor([[1, 5, 6, 2], [1, 7, 2, 0]])  # [CLS] w w [SEP] / [CLS] w [SEP] [PAD]
    word_ids = [[None, 0, 1, None], [None, 0, None]]  # the second text's padding has no entry
    inputs, baseline = pad_baseline(embedding, ids, word_ids, pad_token_id=0)
    torch.testing.assert_close(inputs, embedding.weight[ids].detach())
    is_piece = torch.tensor([[False, True, True, False], [False, True, False, False]])
    torch.testing.assert_close(baseline[is_piece], embedding.weight[0].detach().expand(3, 3))
    torch.testing.assert_close(baseline[~is_piece], inputs[~is_piece])
    assert not inputs.requires_grad and not baseline.requires_grad


def test_frozen_weights_restores_each_parameters_flag():
    model = nn.Sequential(nn.Linear(3, 3), nn.Linear(3, 2))
    model[1].bias.requires_grad_(False)
    with frozen_weights(model):
        assert not any(p.requires_grad for p in model.parameters())
    assert [p.requires_grad for p in model.parameters()] == [True, True, True, False]


def test_label_targets_pad_short_label_lists_with_their_last_label():
    labels = ["a", "b", "c"]
    torch.testing.assert_close(label_targets([["c"], ["a", "b"], ["b", "c", "a"]], labels),
                               torch.tensor([[2, 2, 2], [0, 1, 1], [1, 2, 0]]))  # fmt: skip


def test_integrated_gradients_is_exact_on_a_quadratic():
    # F(x) = Σ x²: IG_i = (x_i − b_i) ∫ 2(b_i + α(x_i − b_i)) dα = x_i² − b_i²; the trapezoid rule is exact here
    x = torch.tensor([[[1.0, 2.0], [3.0, -1.0], [0.5, 0.0]]])  # (B=1, T=3, H=2)
    b = torch.tensor([[[0.0, 1.0], [1.0, 1.0], [0.5, 2.0]]])
    ig = integrated_gradients(
        lambda e, rows: (e**2).sum(dim=(1, 2))[:, None], x, b, torch.tensor([[0]]), steps=3, batch_size=2
    )
    expected = (x**2 - b**2).sum(-1)  # (1, 3): (1+3, 8+0, 0-4)
    torch.testing.assert_close(ig.attributions[:, 0], expected)
    torch.testing.assert_close(expected, torch.tensor([[4.0, 8.0, -4.0]]))
    torch.testing.assert_close(ig.delta, torch.zeros(1, 1), atol=1e-5, rtol=0)


class StandIn(nn.Module):
    """A tiny real model from word embeddings to 3 logits: random encoder, mean pooling, linear head."""

    def __init__(self, config):
        super().__init__()
        self.encoder = Encoder(config)
        self.head = nn.Linear(config.hidden_size, 3)
        nn.init.normal_(self.head.weight, std=2.0)  # large enough that the logits move visibly

    def forward(self, inputs_embeds, attention_mask):
        hidden = self.encoder(inputs_embeds=inputs_embeds, attention_mask=attention_mask).last_hidden_state
        return self.head(mean_pool(hidden, attention_mask))  # (n, 3)


def test_completeness_on_a_tiny_random_model(tiny_config, tokenizer):
    model = StandIn(tiny_config).eval()
    batch = tokenizer([TEXT, "The rice was cold."])
    x = model.encoder.embeddings.word(batch.input_ids).detach()  # (B, T, H)
    baseline = torch.zeros_like(x)
    ig = integrated_gradients(
        lambda e, rows: model(e, batch.attention_mask[rows]), x, baseline, torch.tensor([[0, 2], [1, 1]]), steps=64
    )
    change = ig.output - ig.baseline_output  # (B, K)
    assert change.abs().min() > 1e-3  # a real change to explain
    assert (ig.delta.abs() <= 0.05 * change.abs()).all(), (ig.delta, change)
    with torch.no_grad():
        torch.testing.assert_close(ig.output[0], model(x, batch.attention_mask)[0, [0, 2]])
    # the short text's padding positions are masked out, never reach its output, and get no attribution
    n = int(batch.attention_mask[1].sum())
    torch.testing.assert_close(ig.attributions[1, :, n:], torch.zeros(2, x.size(1) - n))


def test_rollout_by_hand():
    # layer 1: heads [[1,0],[0,1]] and [[1,0],[1,0]] average to [[1,0],[.5,.5]] -> ½A + ½I = [[1,0],[.25,.75]]
    # layer 2: [[.5,.5],[0,1]] (both heads) -> [[.75,.25],[0,1]];  R = Â2 Â1
    layer1 = torch.tensor([[[1.0, 0.0], [0.0, 1.0]], [[1.0, 0.0], [1.0, 0.0]]])
    layer2 = torch.tensor([[[0.5, 0.5], [0.0, 1.0]]] * 2)
    attentions = torch.stack([layer1, layer2])  # (2 layers, 2 heads, 2, 2)
    torch.testing.assert_close(attention_rollout(attentions), torch.tensor([[0.8125, 0.1875], [0.25, 0.75]]))
    torch.testing.assert_close(rollout_importance(attentions, "cls"), torch.tensor([0.8125, 0.1875]))
    torch.testing.assert_close(rollout_importance(attentions, "mean"), torch.tensor([0.53125, 0.46875]))


def tiny_classifier(config, tokenizer, multi_label, pooling):
    model = Classifier(Encoder(config), ClassifierConfig(["a", "b", "c"], multi_label, pooling))
    nn.init.normal_(model.head.weight, std=3.0)  # a decisive head, so probabilities move
    return Pipeline(model.eval(), tokenizer)


@pytest.mark.parametrize("multi_label,pooling", [(False, "mean"), (True, "cls")])
def test_explain_completeness_and_contents(tiny_config, tokenizer, multi_label, pooling):
    model = tiny_classifier(tiny_config, tokenizer, multi_label, pooling)
    e = explain(model, TEXT, steps=64)
    prediction = model.predict([TEXT])[0]
    assert e.predicted == prediction.labels and e.words == tokenizer(TEXT).words[0]
    for label in e.predicted:
        assert len(e.attributions[label]) == len(e.words)
        change = e.probabilities[label] - e.baseline_probabilities[label]
        assert e.probabilities[label] == pytest.approx(prediction.probabilities[label], abs=1e-5)
        assert e.encoder_probabilities[label] == pytest.approx(e.probabilities[label], abs=1e-5)  # no n-gram channel
        assert abs(sum(e.attributions[label]) - change) <= 0.05 * abs(change) + 1e-6
        assert e.delta[label] == pytest.approx(sum(e.attributions[label]) - change, abs=1e-6)
    assert sum(e.rollout) + e.rollout_special == pytest.approx(1.0, abs=1e-5)
    assert e.rollout_row == ("[CLS]" if pooling == "cls" else "mean of all token rows")
    d = e.to_dict()
    assert set(d["attributions"]) == set(e.predicted) and d["steps"] == 64


def test_explain_alone_and_in_a_padded_batch_agree(tiny_config, tokenizer):
    model = tiny_classifier(tiny_config, tokenizer, False, "mean")
    short = "The eggs were rotten."
    together = explain_batch(model, [TEXT + " Nobody came to check the kitchen for weeks.", short], steps=16)
    alone = explain(model, short, steps=16)
    assert together[1].words == alone.words and together[1].predicted == alone.predicted
    for label in alone.predicted:
        assert together[1].attributions[label] == pytest.approx(alone.attributions[label], abs=1e-5)
    assert together[1].rollout == pytest.approx(alone.rollout, abs=1e-5)


def test_explain_refuses_an_empty_text(tiny_config, tokenizer):
    with pytest.raises(ValueError, match="empty"):
        explain(tiny_classifier(tiny_config, tokenizer, False, "mean"), "")
