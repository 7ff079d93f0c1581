"""Fine-tuning: falling loss, seeded reproducibility, class weights, batching, schedule, thresholds."""

from __future__ import annotations


import numpy as np
import pytest
import torch

from mealwatch.review import MARGIN_GRID

from mealwatch import Encoder
from mealwatch.data import Dataset, Example
from mealwatch.decisions import THRESHOLD_GRID
from mealwatch.learning.training import (
    TrainingArguments,
    build_pipeline,
    length_buckets,
    loss_function,
    make_optimizer,
    share_of_batch,
    train,
)

pytestmark = pytest.mark.usefixtures("one_thread")  # tiny models: one thread (tests/conftest.py)

LABELS = ["foreign_object", "illness", "meal_not_served", "other"]
COMPLAINTS = [
    ("There was a dead lizard in the dal today", "foreign_object"),
    ("We found small stones in the rice again", "foreign_object"),
    ("A worm was crawling in the khichdi", "foreign_object"),
    ("Hair and a piece of plastic in the sabzi", "foreign_object"),
    ("Insects floating in the dal, my son showed me", "foreign_object"),
    ("Glass pieces were found in the food plate", "foreign_object"),
    ("Ten children vomited after the midday meal", "illness"),
    ("My daughter had a stomach ache and diarrhoea after lunch", "illness"),
    ("Students fainted after eating and were taken to hospital", "illness"),
    ("Many kids fell sick with fever after eating the meal", "illness"),
    ("Children complained of vomiting and were taken to the health centre", "illness"),
    ("A lizard fell into the food and twenty children fell ill", "foreign_object;illness"),
    ("Kids vomited after eating rice that had insects in it", "foreign_object;illness"),
    ("No meal was served today at the school", "meal_not_served"),
    ("The kitchen has been closed for a week, no food for children", "meal_not_served"),
    ("Cooking stopped because there is no gas cylinder", "meal_not_served"),
    ("The midday meal has not been given for three days", "meal_not_served"),
    ("No food today because the grain did not arrive", "meal_not_served"),
    ("Meal was not cooked since Monday, children go home hungry", "meal_not_served"),
    ("Thank you, the food has become much better this month", "other"),
    ("When will the new menu be put up on the wall?", "other"),
    ("The school boundary wall is broken", "other"),
    ("My scholarship money has not come yet", "other"),
    ("Please tell me the timing of the parent meeting", "other"),
    ("Good work by the new cook, children are happy", "other"),
    ("A stone in the rice and no dal was served", "foreign_object"),
    ("Children fell sick and the kitchen is closed now", "illness;meal_not_served"),
    ("Worms in the rice", "foreign_object"),
    ("Stomach pain after eating the meal", "illness"),
    ("No lunch today", "meal_not_served"),
]


def make_dataset(rows, multi_label: bool = True) -> Dataset:
    examples = [Example(text, tuple(labels.split(";")), line) for line, (text, labels) in enumerate(rows, start=2)]
    return Dataset.from_examples(examples, LABELS, multi_label)


@pytest.fixture
def splits():
    return make_dataset(COMPLAINTS[::2] + COMPLAINTS[1::4]), make_dataset(COMPLAINTS[3::4])


def fast_args(encoder_dir, **kwargs) -> TrainingArguments:
    defaults = {"epochs": 4, "batch_size": 8, "learning_rate": 3e-3, "head_learning_rate": 1e-2, "patience": 10,
                "encoder_path": str(encoder_dir), "warmup_ratio": 0.0}  # fmt: skip
    return TrainingArguments(**{**defaults, **kwargs})


def test_loss_falls(tiny_encoder_dir, splits):
    train_set = splits[0]
    args = fast_args(tiny_encoder_dir, learning_rate=1e-2, head_learning_rate=3e-2)
    torch.manual_seed(0)
    pipeline = build_pipeline(LABELS, True, args)
    model = pipeline.model.train()
    loss_fn = loss_function(train_set.targets(), True, len(LABELS), "auto")
    optimizer, scheduler = make_optimizer(model, args, total_steps=12)
    batch = pipeline.tokenize(train_set.texts[:8])
    targets = torch.tensor(train_set.targets()[:8], dtype=torch.float32)
    losses = []
    for _ in range(12):
        loss = loss_fn(model(**batch.model_inputs()).logits, targets)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        scheduler.step()
        losses.append(loss.item())
    assert losses[-1] < 0.5 * losses[0]


def test_training_keeps_the_best_epoch(tiny_encoder_dir, splits):
    result = train(*splits, fast_args(tiny_encoder_dir, epochs=3), progress=False)
    assert [h["epoch"] for h in result.history] == [1, 2, 3]
    scores = [h["validation_macro_f1"] for h in result.history]
    assert result.best_epoch == scores.index(max(scores)) + 1
    # the n-gram channel is fused at the weight validation prefers; weight 0 is the best epoch's encoder alone
    fusion = result.fusion
    assert fusion.scores[0.0] == pytest.approx(max(scores))
    assert fusion.scores[fusion.weight] == max(fusion.scores.values())
    assert result.validation_report.macro_f1 == pytest.approx(fusion.scores[fusion.weight])
    assert result.pipeline.config.ngram_weight == fusion.weight
    assert result.seconds > 0


def test_training_without_the_ngram_channel_keeps_the_encoder_alone(tiny_encoder_dir, splits):
    result = train(*splits, fast_args(tiny_encoder_dir, epochs=2, ngram_channel=False), progress=False)
    scores = [h["validation_macro_f1"] for h in result.history]
    assert result.fusion is None and result.pipeline.ngram is None and result.pipeline.config.ngram_weight == 0.0
    assert result.validation_report.macro_f1 == pytest.approx(max(scores))


def test_same_seed_same_model_other_seed_other_model(tiny_encoder_dir, splits):
    a = train(*splits, fast_args(tiny_encoder_dir, epochs=2, seed=3), progress=False)
    b = train(*splits, fast_args(tiny_encoder_dir, epochs=2, seed=3), progress=False)
    c = train(*splits, fast_args(tiny_encoder_dir, epochs=2, seed=4), progress=False)
    assert a.history == b.history
    assert a.validation_report.to_dict() == b.validation_report.to_dict()
    for (name, x), y in zip(a.pipeline.model.state_dict().items(), b.pipeline.model.state_dict().values()):
        assert torch.equal(x, y), name
    assert not torch.equal(a.pipeline.model.head.weight, c.pipeline.model.head.weight)
    assert a.history != c.history


def test_multi_label_training_tunes_one_threshold_per_label(tiny_encoder_dir, splits):
    result = train(*splits, fast_args(tiny_encoder_dir, epochs=2), progress=False)
    model = result.pipeline
    assert model.multi_label
    assert len(model.config.thresholds) == len(LABELS)
    assert all(t in THRESHOLD_GRID for t in model.config.thresholds)
    assert model.config.review["margin"] in MARGIN_GRID  # the close-call margin, chosen on validation
    assert model.config.training["epochs"] == 2 and model.config.training["seed"] == 0
    assert result.validation_report.labels == LABELS and result.validation_report.multi_label


def test_single_label_training_gives_a_softmax_head(tiny_encoder_dir):
    single = [(t, labels.split(";")[0]) for t, labels in COMPLAINTS]
    train_set, validation_set = make_dataset(single[::2], False), make_dataset(single[1::2], False)
    assert train_set.targets().ndim == 1
    result = train(train_set, validation_set, fast_args(tiny_encoder_dir, epochs=2), progress=False)
    model = result.pipeline
    assert not model.multi_label and model.config.thresholds is None
    probs = model.probabilities(validation_set.texts)
    torch.testing.assert_close(probs.sum(dim=1), torch.ones(len(validation_set)))
    assert all(len(p.labels) == 1 for p in model.predict(validation_set.texts))


def test_validation_labels_must_match(tiny_encoder_dir, splits):
    other = Dataset.from_examples(splits[1].examples, LABELS[:3] + ["something_else"], True)
    with pytest.raises(ValueError, match="validation data's labels"):
        train(splits[0], other, fast_args(tiny_encoder_dir), progress=False)


def test_pretrained_false_starts_from_random_weights(tiny_encoder_dir):
    checkpoint = Encoder.from_pretrained(tiny_encoder_dir)
    torch.manual_seed(1)
    fresh = build_pipeline(LABELS, True, fast_args(tiny_encoder_dir, pretrained=False))
    loaded = build_pipeline(LABELS, True, fast_args(tiny_encoder_dir))
    assert fresh.encoder.config == checkpoint.config
    assert not torch.equal(fresh.encoder.embeddings.word.weight, checkpoint.embeddings.word.weight)
    assert torch.equal(loaded.encoder.embeddings.word.weight, checkpoint.embeddings.word.weight)


def test_word_embeddings_stay_fixed_when_fine_tuning_only(tiny_encoder_dir, splits):
    checkpoint = Encoder.from_pretrained(tiny_encoder_dir)
    tuned = train(*splits, fast_args(tiny_encoder_dir, epochs=1), progress=False).pipeline.encoder
    assert torch.equal(tuned.embeddings.word.weight, checkpoint.embeddings.word.weight)
    assert not torch.equal(tuned.layers[0].feed_forward.up.weight, checkpoint.layers[0].feed_forward.up.weight)
    free = train(*splits, fast_args(tiny_encoder_dir, epochs=1, freeze_word_embeddings=False), progress=False)
    assert not torch.equal(free.pipeline.encoder.embeddings.word.weight, checkpoint.embeddings.word.weight)


def test_length_buckets_cover_every_text_once_with_similar_lengths():
    lengths = torch.tensor([5, 40, 6, 41, 7, 42, 8, 43, 5, 40, 6, 41])
    batches = length_buckets(lengths, 2, torch.Generator().manual_seed(0))
    assert sorted(torch.cat(batches).tolist()) == list(range(12))
    assert all(int(lengths[b].max() - lengths[b].min()) <= 2 for b in batches)
    again = length_buckets(lengths, 2, torch.Generator().manual_seed(0))
    assert [b.tolist() for b in batches] == [b.tolist() for b in again]


def test_class_weights():
    balanced = np.array([[1, 0], [0, 1], [1, 0], [0, 1]])
    assert loss_function(balanced, True, 2, "auto").pos_weight is None
    rare = np.array([[1, 0]] * 6 + [[1, 1], [0, 1]])  # label 0: 7 of 8 rows, label 1: 2 of 8
    weighted = loss_function(rare, True, 2, "auto").pos_weight
    torch.testing.assert_close(weighted, torch.tensor([(1 / 7) ** 0.5, (6 / 2) ** 0.5]))
    assert loss_function(rare, True, 2, "off").pos_weight is None
    single = np.array([0, 0, 0, 0, 0, 0, 1, 2])  # counts 6, 1, 1: N / (L * count)
    torch.testing.assert_close(loss_function(single, False, 3, "auto").weight, torch.tensor([8 / 18, 8 / 3, 8 / 3]))
    assert loss_function(np.array([0, 1, 2]), False, 3, "auto").weight is None
    torch.testing.assert_close(loss_function(np.array([0, 1, 2]), False, 3, "on").weight, torch.ones(3))


def test_learning_rate_warms_up_then_decays_to_zero(tiny_encoder_dir):
    model = build_pipeline(LABELS, True, fast_args(tiny_encoder_dir)).model
    args = fast_args(tiny_encoder_dir, warmup_ratio=0.3, learning_rate=1.0, head_learning_rate=10.0)
    optimizer, scheduler = make_optimizer(model, args, total_steps=10)
    groups = optimizer.param_groups
    head = next(i for i, g in enumerate(groups) if any(p is model.head.weight for p in g["params"]))
    encoder = next(
        i for i, g in enumerate(groups) if any(p is model.encoder.layers[0].feed_forward.up.weight for p in g["params"])
    )
    assert groups[head]["weight_decay"] == groups[encoder]["weight_decay"] == 0.01
    word = next(g for g in groups if any(p is model.encoder.embeddings.word.weight for p in g["params"]))
    assert word["weight_decay"] == 0.0  # decay would shrink pre-trained rows that vocabulary extension keeps fixed
    bias = next(g for g in groups if any(p is model.head.bias for p in g["params"]))
    assert bias["weight_decay"] == 0.0
    rates = []
    for _ in range(10):
        rates.append(scheduler.get_last_lr())
        optimizer.step()
        scheduler.step()
    encoder_rates = [r[encoder] for r in rates]
    assert encoder_rates[:4] == pytest.approx([0.25, 0.5, 0.75, 1.0])
    assert encoder_rates[4:] == pytest.approx([6 / 7, 5 / 7, 4 / 7, 3 / 7, 2 / 7, 1 / 7])
    assert [r[head] for r in rates] == pytest.approx([10 * r for r in encoder_rates])


def test_bad_arguments_are_rejected():
    with pytest.raises(ValueError, match="class_weights"):
        TrainingArguments(class_weights="yes")
    with pytest.raises(ValueError, match="epochs must be at least 1"):
        TrainingArguments(epochs=0)
    with pytest.raises(ValueError, match="max_batch_tokens must be at least 1"):
        TrainingArguments(max_batch_tokens=0)


def test_the_best_epoch_is_kept_without_a_copy_of_the_fixed_tensors(tiny_encoder_dir):
    from mealwatch.learning.training import build_pipeline, learned_state, lowest_layers_fixed, word_embeddings_fixed

    args = fast_args(tiny_encoder_dir, frozen_layers=1)
    model = build_pipeline(["a", "b"], True, args).model
    with word_embeddings_fixed(model, args), lowest_layers_fixed(model, 1):
        kept = learned_state(model)
        assert "encoder.embeddings.word.weight" not in kept and not any(k.startswith("encoder.layers.0.") for k in kept)
        assert any(k.startswith("encoder.layers.1.") for k in kept) and "head.weight" in kept
        before = {k: v.clone() for k, v in model.state_dict().items()}
        with torch.no_grad():
            for p in model.parameters():
                if p.requires_grad:
                    p.add_(1.0)
        model.load_state_dict(kept, strict=False)
        assert all(torch.equal(v, before[k]) for k, v in model.state_dict().items())
    assert all(p.requires_grad for name, p in model.named_parameters() if "embeddings.word" not in name)
    with pytest.raises(ValueError, match="only 2 layers"):
        with lowest_layers_fixed(model, 3):
            pass


def test_a_better_epoch_overwrites_the_kept_copy_in_place(tiny_encoder_dir):
    from mealwatch.learning.training import build_pipeline, learned_state, word_embeddings_fixed

    args = fast_args(tiny_encoder_dir)
    model = build_pipeline(["a", "b"], True, args).model
    with word_embeddings_fixed(model, args):
        kept = learned_state(model)
        tensors = dict(kept)
        with torch.no_grad():
            model.head.weight.add_(1.0)
        again = learned_state(model, into=kept)
        assert again is kept and all(again[k] is tensors[k] for k in tensors)  # no new tensor
        assert torch.equal(kept["head.weight"], model.head.weight) and kept["head.weight"] is not model.head.weight
        with pytest.raises(ValueError, match="other tensors"):
            learned_state(model, into={"head.weight": kept["head.weight"]})


def test_the_tokenizer_cuts_at_the_models_length_with_one_backend(tiny_encoder_dir):
    pipeline = build_pipeline(LABELS, True, fast_args(tiny_encoder_dir, max_length=16))
    pipeline.tokenize(["a worm in the rice " * 10])
    assert pipeline.tokenizer.max_length == 16 and pipeline.tokenizer.built_lengths == (16,)


@pytest.mark.parametrize("multi_label", [True, False])
def test_a_batch_in_parts_gives_the_whole_batchs_gradient(multi_label):
    """Parts' mean losses times ``share_of_batch`` add up to the batch's mean loss, and so do their gradients
    (binary cross-entropy with positive weights; cross-entropy with class weights: a weighted mean)."""
    torch.manual_seed(0)
    layer = torch.nn.Linear(6, 3)
    x = torch.randn(7, 6)
    if multi_label:
        targets = np.array([[1, 0, 0], [0, 1, 1], [1, 0, 0], [1, 1, 0], [0, 0, 1], [1, 0, 0], [0, 1, 0]])
        y = torch.tensor(targets, dtype=torch.float32)
    else:
        targets = np.array([0, 0, 0, 0, 1, 2, 2])  # class weights 7/12, 7/3, 7/6
        y = torch.tensor(targets)
    loss_fn = loss_function(targets, multi_label, 3, "on")
    whole = loss_fn(layer(x), y)
    (whole_grad,) = torch.autograd.grad(whole, layer.weight)
    parts_loss, parts_grad = 0.0, torch.zeros_like(layer.weight)
    idx = torch.arange(7)
    for part in torch.split(idx, 3):  # 3 + 3 + 1 rows
        loss = loss_fn(layer(x[part]), y[part]) * share_of_batch(loss_fn, y[part], y[idx])
        parts_grad += torch.autograd.grad(loss, layer.weight)[0]
        parts_loss += loss.item()
    assert parts_loss == pytest.approx(whole.item(), rel=1e-6)
    torch.testing.assert_close(parts_grad, whole_grad)
    if not multi_label:  # the first part holds three class-0 rows of weight 7/12 out of a total weight of 9.5
        assert share_of_batch(loss_fn, y[:3], y) == pytest.approx(3 * 7 / 12 / (4 * 7 / 12 + 7 / 3 + 2 * 7 / 6))


def test_a_word_piece_budget_changes_memory_not_the_step(tiny_encoder_dir, splits):
    """Training with batches cut into parts of at most 16 word pieces ends where whole batches do (no dropout
    anywhere, fp32)."""
    import json

    config_file = tiny_encoder_dir / "config.json"
    config = json.loads(config_file.read_text())
    dropouts = [k for k in config if "dropout" in k]
    assert dropouts  # the encoder's own dropout, set to 0 below
    config_file.write_text(json.dumps({**config, **{k: 0.0 for k in dropouts}}))
    args = {"epochs": 1, "dropout": 0.0, "bf16": False, "ngram_channel": False, "translit_view": False}
    whole = train(*splits, fast_args(tiny_encoder_dir, **args), progress=False)
    parts = train(*splits, fast_args(tiny_encoder_dir, **args, max_batch_tokens=16), progress=False)
    assert parts.history[0]["loss"] == pytest.approx(whole.history[0]["loss"], rel=1e-5)
    a, b = whole.pipeline.model.state_dict(), parts.pipeline.model.state_dict()
    for name in a:
        torch.testing.assert_close(a[name], b[name], atol=1e-5, rtol=1e-4)


def test_the_validation_report_is_what_the_saved_pipeline_reads(tiny_encoder_dir, splits):
    """Training carries the validation probabilities through the Devanagari view and the n-gram channel instead of
    reading the texts again: its report equals a fresh evaluation of the finished pipeline."""
    from mealwatch.learning.evaluation import evaluate_pipeline

    result = train(*splits, fast_args(tiny_encoder_dir, epochs=2), progress=False)
    fresh = evaluate_pipeline(result.pipeline, splits[1], bootstrap=0)
    assert result.validation_report.macro_f1 == pytest.approx(fresh.macro_f1)
    assert result.validation_report.per_label == fresh.per_label
    np.testing.assert_allclose(result.fusion.probabilities, result.pipeline.probabilities(splits[1].texts).numpy(),
                               atol=1e-5)  # fmt: skip
