"""The attribution registry: every method behind one call, gradient × input of the logit checked against
integrated gradients, and "no clear signal" instead of a row of zeros."""

import numpy as np
import pytest
import torch
from torch import nn

from mealwatch import Encoder
from mealwatch.classifier import Classifier, ClassifierConfig
from mealwatch.explain.attribution_math import integrated_gradients
from mealwatch.explain.registry import attribute, gradient_inputs, method_names
from mealwatch.pipeline import Pipeline

pytestmark = pytest.mark.usefixtures("one_thread")
TEXTS = ["a dead lizard was found in the dal", "the rice was sour and smelt bad", "no meal was cooked today"]


def pipeline(tiny_config, tokenizer, bias: float = 0.0, head_std: float = 3.0) -> Pipeline:
    torch.manual_seed(0)
    model = Classifier(Encoder(tiny_config), ClassifierConfig(["a", "b", "c"], multi_label=True))
    nn.init.normal_(model.head.weight, std=head_std)
    nn.init.constant_(model.head.bias, bias)
    return Pipeline(model.eval(), tokenizer)


def test_registry_lists_every_method_and_refuses_unknown_ones(tiny_config, tokenizer):
    assert {"grad", "ig", "rollout"} <= set(method_names())
    with pytest.raises(ValueError, match="unknown attribution method 'lime'"):
        attribute(pipeline(tiny_config, tokenizer), TEXTS[:1], [["a"]], "lime")


def test_every_method_returns_one_score_per_word_for_each_label(tiny_config, tokenizer):
    p = pipeline(tiny_config, tokenizer)
    for method in method_names():
        [scores] = attribute(p, TEXTS[:1], [["a", "c"]], method, steps=4)
        assert scores.method == method and set(scores.scores) == {"a", "c"}
        assert all(len(v) == len(scores.words) == len(scores.spans) for v in scores.scores.values())


def test_gradient_times_input_of_the_logit_agrees_with_integrated_gradients(tiny_config, tokenizer):
    p = pipeline(tiny_config, tokenizer)
    labels = [["a"]] * len(TEXTS)
    grad = attribute(p, TEXTS, labels, "grad")
    batch = p.tokenize(TEXTS)
    g = gradient_inputs(p, batch, labels)

    def logits(embeds, rows):
        return p.model(inputs_embeds=embeds, attention_mask=g.attention_mask[rows]).logits

    ig = integrated_gradients(logits, g.inputs, g.baseline, g.targets, steps=64)
    for i, scores in enumerate(grad):
        per_word = np.zeros(len(scores.words))
        for w, v in zip(batch.word_ids[i], ig.attributions[i, 0].tolist()):
            if w is not None:
                per_word[w] += v
        correlation = np.corrcoef(per_word, scores.scores["a"])[0, 1]
        assert correlation > 0.8, (TEXTS[i], correlation)  # the one-point estimate follows the integral


def test_a_sure_model_still_shows_which_words_made_it_sure(tiny_config, tokenizer):
    sure = pipeline(tiny_config, tokenizer, bias=30.0)  # every probability is 1.0 to float precision
    assert float(sure.probabilities(TEXTS[:1]).min()) > 0.999999
    [scores] = attribute(sure, TEXTS[:1], [["a"]], "grad")
    assert scores.flat_labels() == [] and max(map(abs, scores.scores["a"])) > 1e-3


def test_flat_scores_say_no_clear_signal(tiny_config, tokenizer):
    blind = pipeline(tiny_config, tokenizer, head_std=0.0)  # the logit does not depend on the text at all
    [scores] = attribute(blind, TEXTS[:1], [["a"]], "grad")
    assert scores.flat_labels() == ["a"] and scores.to_dict()["no_clear_signal"] == ["a"]
