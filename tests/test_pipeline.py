"""The pipeline and its classifier: pooling, probabilities, decisions with thresholds, prediction order, review,
urgency policy, atomic save and load."""

from __future__ import annotations

import json

import pytest
import torch
from safetensors.torch import load_file, save_file

from mealwatch import Encoder, EncoderConfig, Tokenizer
from mealwatch.classifier import Classifier, ClassifierConfig, is_classifier_dir
from mealwatch.inference.batches import cut_by_length
from mealwatch.pipeline import Pipeline, Prediction
from mealwatch.transformer import CheckpointError, mean_pool

pytestmark = pytest.mark.usefixtures("one_thread")  # tiny models: one thread (tests/conftest.py)

LABELS = ["foreign_object", "illness", "meal_not_served", "other"]
TEXTS = [
    "a lizard was found in the dal served to class 3",
    "children vomited",
    "no meal today",
    "the cook did not come and the kitchen stayed closed for the whole week, so nobody ate",
    "thank you",
]


def make_pipeline(
    config: EncoderConfig, tokenizer: Tokenizer, multi_label: bool = True, labels=LABELS, **kwargs
) -> Pipeline:
    torch.manual_seed(0)
    return Pipeline(
        Classifier(Encoder(config), ClassifierConfig(list(labels), multi_label, **kwargs)).eval(), tokenizer
    )


@pytest.mark.parametrize("pooling", ["mean", "cls"])
def test_logits_come_from_the_pooled_vector(tiny_config, tokenizer, pooling):
    model = make_pipeline(tiny_config, tokenizer, pooling=pooling)
    batch = tokenizer(TEXTS)
    out = model.model(**batch.model_inputs())
    assert out.logits.shape == (len(TEXTS), len(LABELS))
    hidden = out.encoder.last_hidden_state
    pooled = mean_pool(hidden, batch.attention_mask) if pooling == "mean" else out.encoder.pooler_output
    torch.testing.assert_close(out.logits, model.model.head(pooled))


def test_inputs_embeds_give_the_same_logits_as_input_ids(tiny_config, tokenizer):
    model = make_pipeline(tiny_config, tokenizer)
    batch = tokenizer(TEXTS)
    embeds = model.encoder.embeddings.word(batch.input_ids)  # (B, T, H)
    from_ids = model.model(**batch.model_inputs()).logits
    from_embeds = model.model(inputs_embeds=embeds, attention_mask=batch.attention_mask).logits
    torch.testing.assert_close(from_ids, from_embeds)


def test_word_embeddings_and_head_tensors_are_the_models_own(tiny_config, tokenizer):
    model = make_pipeline(tiny_config, tokenizer)
    batch = tokenizer(TEXTS)
    embeds = model.word_embeddings(batch.input_ids)  # what the explanations differentiate
    from_embeds = model.model(inputs_embeds=embeds, attention_mask=batch.attention_mask).logits
    torch.testing.assert_close(from_embeds, model.model(**batch.model_inputs()).logits)
    head = model.head_tensors()
    assert set(head) == {"weight", "bias"} and head["weight"].shape == (len(LABELS), tiny_config.hidden_size)
    pooled = mean_pool(model.encoder(**batch.model_inputs()).last_hidden_state, batch.attention_mask)
    torch.testing.assert_close(pooled @ head["weight"].T + head["bias"], model.model(**batch.model_inputs()).logits)
    assert not head["weight"].requires_grad and head["weight"].data_ptr() == model.model.head.weight.data_ptr()


def test_probabilities_softmax_for_single_label_sigmoid_for_multi_label(tiny_config, tokenizer):
    logits = torch.tensor([[2.0, -1.0, 0.0, 0.5]])
    single = make_pipeline(tiny_config, tokenizer, multi_label=False)
    multi = make_pipeline(tiny_config, tokenizer, multi_label=True)
    torch.testing.assert_close(single.model.probabilities(logits), torch.softmax(logits, -1))
    torch.testing.assert_close(multi.model.probabilities(logits), torch.sigmoid(logits))
    probs = single.probabilities(TEXTS)
    torch.testing.assert_close(probs.sum(dim=1), torch.ones(len(TEXTS)))


def test_decide_uses_each_labels_threshold_and_falls_back_to_the_top_label(tiny_config, tokenizer):
    model = make_pipeline(tiny_config, tokenizer, thresholds=[0.9, 0.3, 0.5, 0.5])
    probs = torch.tensor([
        [0.8, 0.35, 0.1, 0.6],  # foreign_object under its 0.9; illness over its 0.3; other over 0.5
        [0.2, 0.1, 0.45, 0.3],  # nothing passes: the most probable label alone
    ])  # fmt: skip
    assert model.decide(probs).tolist() == [[0, 1, 0, 1], [0, 0, 1, 0]]
    single = make_pipeline(tiny_config, tokenizer, multi_label=False)
    assert single.decide(torch.tensor([[0.1, 0.2, 0.6, 0.1]])).tolist() == [[0, 0, 1, 0]]


def test_predict_applies_thresholds(tiny_config, tokenizer):
    model = make_pipeline(tiny_config, tokenizer)
    probs = model.probabilities(TEXTS)
    # thresholds just under and just over each text's probability of "illness" flip that label on and off
    model.config.thresholds = [1.0, float(probs[:, 1].min()) - 1e-4, 1.0, 1.0]
    assert all("illness" in p.labels for p in model.predict(TEXTS))
    model.config.thresholds = [1.0, 1.0, 1.0, 1.0]  # nothing passes: one label each, the most probable
    for p, row in zip(model.predict(TEXTS), probs):
        assert p.labels == [LABELS[int(row.argmax())]]


def test_predict_keeps_input_order_across_length_sorted_batches(tiny_config, tokenizer, monkeypatch):
    model = make_pipeline(tiny_config, tokenizer)
    monkeypatch.setattr("mealwatch.pipeline.PREDICT_CHUNK", 3)  # chunks of 3 texts, batches of 2 inside
    batched = model.predict(TEXTS, batch_size=2)
    assert [p.text for p in batched] == TEXTS
    for text, p in zip(TEXTS, batched):
        alone = model.predict([text])[0]
        for label in LABELS:
            assert p.probabilities[label] == pytest.approx(alone.probabilities[label], abs=1e-5)


def test_prediction_carries_urgency_and_converts_to_a_dict(tiny_config, tokenizer):
    model = make_pipeline(tiny_config, tokenizer, thresholds=[0.0, 1.0, 1.0, 1.0])  # always foreign_object
    p = model.predict(["a stone in the rice"])[0]
    assert p.labels == ["foreign_object"] and p.urgency == "high"
    assert p.to_dict() == {"text": "a stone in the rice", "labels": ["foreign_object"],
                           "probabilities": p.probabilities, "urgency": "high", "truncated": False,
                           "review_reasons": [], "language": "en", "severity": "none", "children": 0,
                           "needs_review": False}  # fmt: skip
    assert Prediction("x", ["other"], {}, "low").to_dict()["urgency"] == "low"


def test_a_text_longer_than_max_length_is_read_from_its_start_and_flagged(tiny_config, tokenizer, monkeypatch):
    model = make_pipeline(tiny_config, tokenizer, max_length=16)
    long_text = " ".join(["the dal had worms"] * 10)  # 40 words, far over 16 word pieces
    start = tokenizer.backend.decode(tokenizer([long_text], max_length=16).input_ids[0].tolist())  # the 14 pieces read
    monkeypatch.setattr("mealwatch.pipeline.PREDICT_CHUNK", 2)  # the flags survive chunking and length sorting
    predictions = model.predict([TEXTS[0], long_text, TEXTS[1]], batch_size=1)
    assert [p.truncated for p in predictions] == [False, True, False]
    assert predictions[1].text == long_text  # the whole text comes back, not the part read
    alone = model.predict([start])[0]  # the decision is the start's decision
    assert predictions[1].probabilities == pytest.approx(alone.probabilities, abs=1e-5)


def test_saved_model_reloads_and_predicts_identically(tiny_config, tokenizer, tmp_path):
    model = make_pipeline(tiny_config, tokenizer, thresholds=[0.4, 0.5, 0.6, 0.7], training={"epochs": 3})
    model.save(tmp_path / "model")
    assert sorted(f.name for f in (tmp_path / "model").iterdir()) == [
        "config.json",
        "model.safetensors",
        "model.sha256",  # the weights' SHA-256, checked at every load (checksums.py)
        "tokenizer.json",
    ]
    assert is_classifier_dir(tmp_path / "model")
    config = json.loads((tmp_path / "model" / "config.json").read_text())
    assert config["mealwatch_classifier"] == 1 and config["labels"] == LABELS and config["training"] == {"epochs": 3}
    assert config["encoder"]["hidden_size"] == 32
    loaded = Pipeline.from_folder(tmp_path / "model")
    assert loaded.config == model.config
    torch.testing.assert_close(loaded.probabilities(TEXTS), model.probabilities(TEXTS), atol=1e-6, rtol=0)
    assert [p.labels for p in loaded.predict(TEXTS)] == [p.labels for p in model.predict(TEXTS)]


def test_save_replaces_an_older_model(tiny_config, tokenizer, tmp_path):
    first = make_pipeline(tiny_config, tokenizer, thresholds=[0.1] * 4)
    first.save(tmp_path / "model")
    (tmp_path / "model" / "metrics.json").write_text("{}")  # the old model's report goes with it
    second = make_pipeline(tiny_config, tokenizer, thresholds=[0.9] * 4)
    second.save(tmp_path / "model")
    assert Pipeline.from_folder(tmp_path / "model").config.thresholds == [0.9] * 4
    assert not (tmp_path / "model" / "metrics.json").exists()
    assert [p.name for p in tmp_path.iterdir()] == ["model"]  # no staging or old folders left behind


def test_interrupted_save_keeps_the_previous_model(tiny_config, tokenizer, tmp_path, monkeypatch):
    old = make_pipeline(tiny_config, tokenizer, thresholds=[0.3] * 4)
    old.save(tmp_path / "model")
    expected = old.probabilities(TEXTS)

    def crash(*args, **kwargs):
        raise OSError("disk full (simulated)")

    monkeypatch.setattr("safetensors.torch.save_file", crash)
    new = make_pipeline(tiny_config, tokenizer, thresholds=[0.7] * 4)
    with pytest.raises(OSError, match="simulated"):
        new.save(tmp_path / "model")
    with pytest.raises(OSError, match="simulated"):
        new.save(tmp_path / "fresh")
    assert [p.name for p in tmp_path.iterdir()] == ["model"]  # no half-written folder of any name
    assert not (tmp_path / "fresh").exists()
    reloaded = Pipeline.from_folder(tmp_path / "model")
    assert reloaded.config.thresholds == [0.3] * 4
    torch.testing.assert_close(reloaded.probabilities(TEXTS), expected, atol=1e-6, rtol=0)


def test_save_refuses_to_replace_a_folder_of_other_files(tiny_config, tokenizer, tmp_path):
    (tmp_path / "notes.txt").write_text("mine")
    with pytest.raises(CheckpointError, match="holds other files"):
        make_pipeline(tiny_config, tokenizer).save(tmp_path)
    assert (tmp_path / "notes.txt").read_text() == "mine"


def test_load_errors_name_the_problem(tiny_config, tokenizer, tmp_path):
    with pytest.raises(CheckpointError, match="does not exist"):
        Pipeline.from_folder(tmp_path / "nowhere")
    encoder_dir = tmp_path / "encoder"
    Encoder(tiny_config).save_pretrained(encoder_dir)
    tokenizer.save(encoder_dir)
    assert not is_classifier_dir(encoder_dir)
    with pytest.raises(CheckpointError, match="not a mealwatch classifier folder"):
        Pipeline.from_folder(encoder_dir)

    model_dir = tmp_path / "model"
    make_pipeline(tiny_config, tokenizer).save(model_dir)
    tensors = load_file(str(model_dir / "model.safetensors"))
    del tensors["head.weight"]
    tensors["head.bias"] = torch.zeros(7)
    save_file(tensors, str(model_dir / "model.safetensors"))
    with pytest.raises(CheckpointError, match=r"missing tensor head\.weight") as error:
        Pipeline.from_folder(model_dir)
    assert "tensor head.bias has shape (7,), expected (4,)" in str(error.value)

    (model_dir / "model.safetensors").write_bytes(b"\x00" * 10)
    with pytest.raises(CheckpointError, match="damaged or truncated"):
        Pipeline.from_folder(model_dir)
    (model_dir / "config.json").write_text("{not json")
    with pytest.raises(CheckpointError, match="not valid JSON"):
        Pipeline.from_folder(model_dir)
    assert not is_classifier_dir(model_dir)


def test_config_rejects_bad_values():
    with pytest.raises(ValueError, match="pooling"):
        ClassifierConfig(LABELS, True, pooling="max")
    with pytest.raises(ValueError, match="3 thresholds for 4 labels"):
        ClassifierConfig(LABELS, True, thresholds=[0.5] * 3)
    with pytest.raises(ValueError, match="unique"):
        ClassifierConfig(["a", "a"], False)


def test_unreadable_or_unsure_predictions_need_review_and_the_policy_is_saved(tiny_config, tokenizer, tmp_path):
    model = make_pipeline(tiny_config, tokenizer, thresholds=[0.0, 1.0, 1.0, 1.0], review={"margin": 0.0})
    english, hindi = model.predict(["a stone in the rice", "खाने में छिपकली गिरी थी"])
    assert not english.needs_review and english.to_dict()["needs_review"] is False
    assert hindi.needs_review and "unreadable" in hindi.review_reasons[0]
    nothing = make_pipeline(tiny_config, tokenizer, thresholds=[1.01] * 4).predict(["a stone in the rice"])[0]
    assert nothing.labels and nothing.needs_review  # the top-1 fallback is shown, but flagged
    assert nothing.review_reasons[0].startswith("no label reached its threshold")
    model.config.review = {"margin": 0.07, "max_unreadable": 0.3}
    model.save(tmp_path / "m")
    assert Pipeline.from_folder(tmp_path / "m").review_policy.margin == 0.07


def test_urgency_only_for_the_complaint_label_set(tiny_config, tokenizer):
    complaint = make_pipeline(tiny_config, tokenizer).predict(["a stone in the rice"])[0]
    assert complaint.urgency in ("high", "medium", "low")
    other = make_pipeline(tiny_config, tokenizer, labels=["card_lost", "refund", "balance", "other"])
    p = other.predict(["my card is lost"])[0]
    assert p.urgency is None and not other.has_urgency  # a BANKING77-style model has no complaint urgency


def test_urgency_of_labels_and_the_urgency_a_log_ranks_by(tiny_config, tokenizer):
    complaint = make_pipeline(tiny_config, tokenizer)
    assert complaint.urgency_of(["meal_not_served", "illness"]) == "high"  # illness is high, whatever else it carries
    assert complaint.urgency_of(["meal_not_served"]) == complaint.log_urgency(["meal_not_served"]) == "medium"
    assert complaint.urgency_of([]) == complaint.log_urgency(["other"]) == "low"
    other = make_pipeline(tiny_config, tokenizer, labels=["card_lost", "refund", "balance", "other"])
    assert other.urgency_of(["card_lost"]) is None and other.log_urgency(["card_lost"]) == "low"
    assert [p.urgency for p in complaint.predict(TEXTS)] == [complaint.urgency_of(p.labels) for p in
                                                             complaint.predict(TEXTS)]  # fmt: skip


def test_a_frozen_pipeline_runs_alike_and_takes_no_gradients(tiny_config, tokenizer):
    pipeline = make_pipeline(tiny_config, tokenizer)
    before = pipeline.probabilities(TEXTS)
    pipeline.model.train()
    assert pipeline.freeze() is pipeline and not pipeline.model.training
    assert not any(p.requires_grad for p in pipeline.model.parameters())
    assert torch.equal(pipeline.probabilities(TEXTS), before)
    assert (pipeline.num_layers, pipeline.num_heads) == (tiny_config.num_hidden_layers, tiny_config.num_attention_heads)


def test_before_each_pass_sees_every_pass_through_the_encoder_until_removed(tiny_config, tokenizer):
    pipeline = make_pipeline(tiny_config, tokenizer)
    seen: list[int] = []
    handle = pipeline.before_each_pass(lambda module, args: seen.append(1))
    pipeline.predict(TEXTS[:2], batch_size=1)  # two passes
    pipeline.word_attention(TEXTS[0])  # one more
    assert len(seen) == 3
    handle.remove()
    pipeline.predict(TEXTS[:1])
    assert len(seen) == 3


def test_prediction_explanation_and_attention_read_the_same_pieces_of_a_long_text(tiny_config, tokenizer):
    from mealwatch.explain import explain
    from mealwatch.explain.registry import attribute

    pipeline = make_pipeline(tiny_config, tokenizer, max_length=16)
    long_text = "the dal was sour and " * 20 + "a lizard fell in"
    prediction = pipeline.predict([long_text])[0]
    attention = pipeline.word_attention(long_text, include_special=False)
    explanation = explain(pipeline, long_text, steps=2)
    grad = attribute(pipeline, [long_text], [prediction.labels], "grad")[0]
    assert prediction.truncated and attention.truncated and explanation.truncated and grad.truncated
    assert attention.words == explanation.words == grad.words  # 14 word pieces' words, not 512
    assert len(attention.words) <= 14


def test_a_pass_cut_by_length_gives_what_each_text_gets_alone(tiny_config, tokenizer):
    pipeline = make_pipeline(tiny_config, tokenizer)
    texts = ["dal", "the rice had worms and the children fell ill after eating it at school today"] * 3 + ["no meal"]
    lengths = sorted(pipeline.token_counts(texts))
    assert len(cut_by_length(lengths, len(texts))) == 2  # the short texts and the long ones run apart
    one_call = pipeline.probabilities(texts, batch_size=len(texts))  # (N, L)
    alone = torch.cat([pipeline.probabilities([t], batch_size=1) for t in texts])  # (N, L)
    torch.testing.assert_close(one_call, alone, atol=1e-5, rtol=0)
