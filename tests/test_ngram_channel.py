"""The n-gram channel: equal to scikit-learn's TF-IDF + logistic regression, saved without pickles, fused by weight."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch

from mealwatch import Encoder, EncoderConfig
from mealwatch.classifier import Classifier, ClassifierConfig
from mealwatch.data import Dataset, Example
from mealwatch.ngram_channel import (
    AS_WRITTEN,
    FEATURES,
    FORMAT_VERSION,
    SETTINGS_FILE,
    TENSORS_FILE,
    WORD_PATTERN,
    NgramChannel,
    fuse,
)
from mealwatch.learning.ngram_training import (
    WEIGHT_GRID,
    choose_weight,
    fit_ngram_channel,
    logistic_probabilities,
    tuned_logistic,
)
from mealwatch.pipeline import Pipeline
from mealwatch.romanise import fold_spelling, romanise_text
from mealwatch.transformer import CheckpointError

LABELS = ["foreign_object", "illness", "meal_not_served", "other"]
ROWS = [
    ("khichdi me chhipkali giri thi", "foreign_object"),
    ("dal me keeda mila", "foreign_object"),
    ("खाने में कीड़े थे", "foreign_object"),
    ("a dead lizard in the dal", "foreign_object"),
    ("bachhe ulti kar rahe hai", "illness"),
    ("बच्चों को खाने के बाद उल्टी हुई", "illness"),
    ("children vomited after lunch", "illness"),
    ("6 bachhe bimar ho gaye, ulti aur dast", "illness"),
    ("aaj khana nahi bana", "meal_not_served"),
    ("आज भोजन नहीं मिला", "meal_not_served"),
    ("no meal was served today", "meal_not_served"),
    ("mdm band hai teen din se", "meal_not_served"),
    ("the headmaster shouts at parents", "other"),
    ("rasoiya der se aata hai", "other"),
    ("keeda mila aur bachhe ulti kar rahe", "foreign_object;illness"),
    ("lizard in khichdi, children vomited", "foreign_object;illness"),
]
VALIDATION = [
    ("sabzi me keeda tha", "foreign_object"),
    ("बच्चे बीमार हो गए", "illness"),
    ("khana nahi mila aaj", "meal_not_served"),
    ("cook comes late", "other"),
    ("chhipkali giri, ulti hui", "foreign_object;illness"),
    ("children had stomach ache", "illness"),
]
TEXTS = ["ulti hui khane ke baad", "कीड़े मिले", "no food today", "", "🙁 headmaster"]


def dataset(rows, multi_label: bool = True, labels=LABELS) -> Dataset:
    examples = [Example(t, tuple(ls.split(";")) if multi_label else (ls.split(";")[0],), i) for i, (t, ls) in
                enumerate(rows, start=2)]  # fmt: skip
    return Dataset.from_examples(examples, labels, multi_label)


def folded(text: str) -> str:
    return fold_spelling(romanise_text(text))


def sklearn_reference(train: Dataset, validation: Dataset, view=folded):
    """The TF-IDF baseline's features (with the channel's word pattern) of each text's ``view`` (by default the
    channel's default, folded), and its model, fitted the same way."""
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.pipeline import make_union

    features = make_union(TfidfVectorizer(analyzer="word", ngram_range=(1, 2), sublinear_tf=True,
                                          token_pattern=WORD_PATTERN, preprocessor=lambda t: view(t).lower()),
                          TfidfVectorizer(analyzer="char_wb", ngram_range=(2, 5), sublinear_tf=True,
                                          preprocessor=lambda t: view(t).lower()))  # fmt: skip
    X = features.fit_transform(train.texts)
    model, _, _ = tuned_logistic(X, train, features.transform(validation.texts), validation, False)
    return features, model


@pytest.mark.parametrize("multi_label, blocks", [(True, FEATURES), (False, FEATURES), (True, AS_WRITTEN)])
def test_channel_equals_sklearn_tfidf_and_logistic_regression(multi_label, blocks):
    train, validation = dataset(ROWS, multi_label), dataset(VALIDATION, multi_label)
    channel = fit_ngram_channel(train, validation, features=blocks)
    assert [b.view for b in channel.blocks] == [spec.view for spec in blocks]
    features, model = sklearn_reference(train, validation, folded if blocks == FEATURES else lambda t: t)
    np.testing.assert_allclose(channel.features(TEXTS).toarray(), features.transform(TEXTS).toarray(), atol=1e-12)
    expected = logistic_probabilities(model, features.transform(TEXTS), len(LABELS))  # (N, L)
    np.testing.assert_allclose(channel.probabilities(TEXTS), expected, rtol=0, atol=1e-9)
    if not multi_label:
        np.testing.assert_allclose(channel.probabilities(TEXTS).sum(axis=1), 1.0)


def test_a_label_missing_from_single_label_training_gets_probability_zero():
    rows = [r for r in ROWS if r[1] != "other"]
    train, validation = dataset(rows, False), dataset(VALIDATION, False)
    channel = fit_ngram_channel(train, validation)
    probs = channel.probabilities(TEXTS)
    assert probs[:, LABELS.index("other")].max() < 1e-10
    features, model = sklearn_reference(train, validation)
    np.testing.assert_allclose(probs, logistic_probabilities(model, features.transform(TEXTS), len(LABELS)), atol=1e-9)


def test_binary_single_label_data_becomes_softmax_over_two_rows():
    labels = ["foreign_object", "illness"]
    rows = [(t, ls.split(";")[0]) for t, ls in ROWS if ls.split(";")[0] in labels]
    val = [(t, ls.split(";")[0]) for t, ls in VALIDATION if ls.split(";")[0] in labels]
    train, validation = dataset(rows, False, labels), dataset(val, False, labels)
    channel = fit_ngram_channel(train, validation)
    assert channel.weight.shape[0] == 2 and not channel.weight[0].any()  # [0; w]
    features, model = sklearn_reference(train, validation)
    np.testing.assert_allclose(channel.probabilities(TEXTS), model.predict_proba(features.transform(TEXTS)), atol=1e-9)


def test_a_devanagari_word_keeps_its_vowel_signs_and_the_danda_is_punctuation():
    import re

    assert re.findall(WORD_PATTERN, "खाने में कीड़े थे। ulti hui") == ["खाने", "में", "कीड़े", "थे", "ulti", "hui"]


def test_save_and_load_round_trip_without_pickles(tmp_path):
    channel = fit_ngram_channel(dataset(ROWS), dataset(VALIDATION), features=AS_WRITTEN)
    channel.save(tmp_path)
    assert {p.name for p in tmp_path.iterdir()} == {SETTINGS_FILE, TENSORS_FILE}
    settings = json.loads((tmp_path / SETTINGS_FILE).read_text(encoding="utf-8"))
    assert any("कीड़े" in term for term in settings["blocks"][0]["vocabulary"])  # Devanagari kept whole
    loaded = NgramChannel.load(tmp_path, LABELS)
    np.testing.assert_allclose(loaded.probabilities(TEXTS), channel.probabilities(TEXTS), rtol=0, atol=1e-6)
    assert loaded.detail == channel.detail and "C=" in loaded.detail


ROMANISED = tuple(spec._replace(view="romanised") for spec in AS_WRITTEN)
FOLDED = tuple(spec._replace(view="folded") for spec in AS_WRITTEN)


def test_a_view_block_is_tfidf_of_the_romanised_text():
    from sklearn.feature_extraction.text import TfidfVectorizer

    channel = fit_ngram_channel(dataset(ROWS), dataset(VALIDATION), features=AS_WRITTEN + FOLDED)
    assert [b.view for b in channel.blocks] == ["text", "text", "folded", "folded"]
    folded = [fold_spelling(romanise_text(t)) for t, _ in ROWS]
    reference = TfidfVectorizer(analyzer="char_wb", ngram_range=(2, 5), sublinear_tf=True).fit(folded)
    expected = reference.transform([fold_spelling(romanise_text(t)) for t in TEXTS]).toarray()
    np.testing.assert_allclose(channel.blocks[3].transform(TEXTS).toarray(), expected, atol=1e-12)
    assert "kide" in channel.blocks[2].vocabulary and "कीड़े" in channel.blocks[0].vocabulary


def test_a_channel_with_views_saves_reloads_and_predicts_the_same(tmp_path):
    channel = fit_ngram_channel(dataset(ROWS), dataset(VALIDATION), features=AS_WRITTEN + ROMANISED + FOLDED)
    channel.save(tmp_path)
    settings = json.loads((tmp_path / SETTINGS_FILE).read_text(encoding="utf-8"))
    assert settings["format"] == FORMAT_VERSION == 2
    assert [b["view"] for b in settings["blocks"]] == ["text", "text", "romanised", "romanised", "folded", "folded"]
    loaded = NgramChannel.load(tmp_path, LABELS)
    assert [b.view for b in loaded.blocks] == [b.view for b in channel.blocks]
    np.testing.assert_allclose(loaded.probabilities(TEXTS), channel.probabilities(TEXTS), rtol=0, atol=1e-6)


def test_a_format_1_channel_file_still_loads_and_predicts_as_before(tmp_path):
    channel = fit_ngram_channel(dataset(ROWS), dataset(VALIDATION), features=AS_WRITTEN)
    channel.save(tmp_path)
    settings = json.loads((tmp_path / SETTINGS_FILE).read_text(encoding="utf-8"))
    settings["format"] = 1  # what mealwatch wrote before views: no "view" in a block
    for block in settings["blocks"]:
        del block["view"]
    (tmp_path / SETTINGS_FILE).write_text(json.dumps(settings, ensure_ascii=False), encoding="utf-8")
    loaded = NgramChannel.load(tmp_path, LABELS)
    assert [b.view for b in loaded.blocks] == ["text", "text"]
    np.testing.assert_allclose(loaded.probabilities(TEXTS), channel.probabilities(TEXTS), rtol=0, atol=1e-6)


def test_a_newer_format_or_an_unknown_view_is_refused_with_a_reason(tmp_path):
    channel = fit_ngram_channel(dataset(ROWS), dataset(VALIDATION))
    channel.save(tmp_path)
    settings = json.loads((tmp_path / SETTINGS_FILE).read_text(encoding="utf-8"))
    settings["blocks"][1]["view"] = "cyrillic"
    (tmp_path / SETTINGS_FILE).write_text(json.dumps(settings), encoding="utf-8")
    with pytest.raises(CheckpointError, match="block 1 reads the view 'cyrillic'; known views: text, romanised"):
        NgramChannel.load(tmp_path, LABELS)
    settings["format"] = FORMAT_VERSION + 1
    (tmp_path / SETTINGS_FILE).write_text(json.dumps(settings), encoding="utf-8")
    with pytest.raises(CheckpointError, match=f"format version {FORMAT_VERSION + 1}; this mealwatch reads up to"):
        NgramChannel.load(tmp_path, LABELS)


def test_the_romanised_view_carries_devanagari_training_words_to_latin_text():
    # "ulti" (vomiting) is seen in training only as "उल्टी"; Latin "hui" and "chutti" only with a missing meal
    labels = ["illness", "meal_not_served"]
    rows = [("बच्चों को उल्टी हुई", "illness"), ("उल्टी और दस्त", "illness"), ("खाने के बाद उल्टी", "illness"),
            ("पेट दर्द और उल्टी", "illness"), ("aaj khana nahi mila, chutti hui", "meal_not_served"),
            ("khana nahi bana", "meal_not_served"), ("mdm band hui", "meal_not_served"),
            ("aaj bhi chutti hui", "meal_not_served")]  # fmt: skip
    train = dataset(rows, False, labels)
    validation = dataset([("उल्टी हो रही है", "illness"), ("khana nahi mila", "meal_not_served")], False, labels)
    texts = ["ulti", "bacchon ko ultee"]
    as_written = fit_ngram_channel(train, validation, features=AS_WRITTEN).probabilities(texts)[:, 0]  # P(illness)
    with_view = fit_ngram_channel(train, validation, features=AS_WRITTEN + ROMANISED).probabilities(texts)[:, 0]
    with_fold = fit_ngram_channel(train, validation, features=AS_WRITTEN + FOLDED).probabilities(texts)[:, 0]
    assert (as_written < 0.5).all()  # the text as written: "ulti" is nothing it knows; it leans to the other label
    by_default = fit_ngram_channel(train, validation).probabilities(texts)[:, 0]  # the every-script view
    assert (with_view > 0.5).all() and (with_fold > 0.5).all() and (by_default > 0.5).all()  # "उल्टी" is "ulti"
    assert (with_view > as_written).all()


def test_the_every_script_view_carries_telugu_and_tamil_training_words_to_latin_letters():
    # "vomiting" is seen in training only in Telugu and Tamil script; Latin "ledu" and "bhojanam" only with no meal
    labels = ["illness", "meal_not_served"]
    rows = [("పిల్లలకు వాంతులు", "illness"), ("వాంతులు అయ్యాయి", "illness"), ("குழந்தைகளுக்கு வாந்தி", "illness"),
            ("வாந்தி மயக்கம்", "illness"), ("ivala bhojanam ledu", "meal_not_served"), ("bhojanam ledu", "meal_not_served"),
            ("saapadu illai", "meal_not_served"), ("inniki saapadu illai", "meal_not_served")]  # fmt: skip
    train = dataset(rows, False, labels)
    validation = dataset([("వాంతులు", "illness"), ("bhojanam ledu", "meal_not_served")], False, labels)
    texts = ["pillalaku vantulu", "kuzhandhaigalukku vaanthi"]
    folded = fit_ngram_channel(train, validation, features=FOLDED).probabilities(texts)[:, 0]  # P(illness)
    by_default = fit_ngram_channel(train, validation).probabilities(texts)[:, 0]  # the every-script view
    assert [b.view for b in fit_ngram_channel(train, validation).blocks] == ["every-script-folded"] * 2
    assert (folded < 0.5).all()  # Devanagari alone romanised: the Telugu and Tamil words stay apart from Latin ones
    assert (by_default > 0.5).all()  # "వాంతులు" is "vantulu", "வாந்தி" shares "van", "ant" with "vaanthi"


def test_broken_channel_files_give_clear_errors(tmp_path):
    channel = fit_ngram_channel(dataset(ROWS), dataset(VALIDATION))
    channel.save(tmp_path)
    with pytest.raises(CheckpointError, match="differ from the classifier's"):
        NgramChannel.load(tmp_path, list(reversed(LABELS)))
    (tmp_path / SETTINGS_FILE).write_text("{not json", encoding="utf-8")
    with pytest.raises(CheckpointError, match="n-gram channel cannot be read"):
        NgramChannel.load(tmp_path, LABELS)
    (tmp_path / TENSORS_FILE).unlink()
    with pytest.raises(CheckpointError, match=f"has no {TENSORS_FILE}"):
        NgramChannel.load(tmp_path, LABELS)


def test_fuse_is_the_weighted_mean():
    a, b = np.array([[0.2, 0.9]]), np.array([[0.6, 0.1]])
    np.testing.assert_allclose(fuse(a, b, 0.25), [[0.3, 0.7]])
    np.testing.assert_allclose(fuse(a, b, 0.0), a)


def test_choose_weight_keeps_the_channel_only_when_validation_gains():
    targets = np.array([[1, 0], [0, 1], [1, 0], [0, 1], [1, 1], [0, 1]])
    perfect = targets * 0.9 + 0.05
    noise = np.full(targets.shape, 0.5)
    # the encoder is right and the channel says nothing: every weight scores alike -> the smallest, 0
    kept = choose_weight(perfect, noise, targets, multi_label=True)
    assert kept.weight == 0.0 and set(kept.scores) == set(WEIGHT_GRID)
    # the encoder is wrong on the third example, the channel right on all: a positive weight wins
    wrong = perfect.copy()
    wrong[2] = [0.05, 0.95]
    chosen = choose_weight(wrong, perfect, targets, multi_label=True)
    assert chosen.weight > 0 and chosen.scores[chosen.weight] == 1.0 and chosen.scores[0.0] < 1.0
    assert len(chosen.thresholds) == 2 and "weight" in chosen.summary()


@pytest.fixture
def fused_pipeline(tokenizer):
    torch.manual_seed(0)
    config = EncoderConfig(vocab_size=tokenizer.vocab_size, hidden_size=32, num_hidden_layers=2,
                           num_attention_heads=4, intermediate_size=64, max_position_embeddings=128)  # fmt: skip
    classifier = Classifier(Encoder(config), ClassifierConfig(labels=LABELS, multi_label=True, thresholds=[0.5] * 4))
    pipeline = Pipeline(classifier.eval(), tokenizer)
    encoder_alone = pipeline.probabilities(TEXTS).numpy()
    channel = fit_ngram_channel(dataset(ROWS), dataset(VALIDATION))
    pipeline.fuse_ngram_channel(channel, 0.4, [0.3, 0.35, 0.4, 0.45])
    return pipeline, encoder_alone, channel


def test_pipeline_fuses_and_reloads_the_same(fused_pipeline, tmp_path):
    pipeline, encoder_alone, channel = fused_pipeline
    expected = 0.6 * encoder_alone + 0.4 * channel.probabilities(TEXTS)
    np.testing.assert_allclose(pipeline.probabilities(TEXTS).numpy(), expected, atol=1e-6)
    assert pipeline.thresholds() == [0.3, 0.35, 0.4, 0.45] and pipeline.encoder_thresholds() == [0.5] * 4
    pipeline.save(tmp_path / "run")
    reloaded = Pipeline.from_folder(tmp_path / "run")
    assert reloaded.config.ngram_weight == 0.4 and reloaded.thresholds() == [0.3, 0.35, 0.4, 0.45]
    before, after = pipeline.predict(TEXTS), reloaded.predict(TEXTS)
    assert [p.labels for p in before] == [p.labels for p in after]
    reloaded.without_ngram_channel()  # the encoder alone again, with its own thresholds
    assert reloaded.ngram is None and reloaded.thresholds() == [0.5] * 4
    np.testing.assert_allclose(reloaded.probabilities(TEXTS).numpy(), encoder_alone, atol=1e-6)
    for a, b in zip(before, after):
        assert a.probabilities == pytest.approx(b.probabilities, abs=1e-6)


def test_a_model_folder_missing_its_channel_is_refused(fused_pipeline, tmp_path):
    pipeline, _, _ = fused_pipeline
    pipeline.save(tmp_path / "run")
    (tmp_path / "run" / SETTINGS_FILE).unlink()
    with pytest.raises(CheckpointError, match="incomplete"):
        Pipeline.from_folder(tmp_path / "run")


def test_hf_export_of_a_fused_model_carries_the_encoder_thresholds_and_says_so(fused_pipeline, tmp_path):
    from mealwatch.export.hf import NGRAM_NOTE, export_hf

    pipeline, _, _ = fused_pipeline
    out = export_hf(pipeline, tmp_path / "hf")
    config = json.loads((out / "config.json").read_text())
    assert config["mealwatch"]["thresholds"] == [0.5] * 4 and config["mealwatch"]["ngram_channel"] == NGRAM_NOTE
    assert NGRAM_NOTE in (out / "README.md").read_text()


def test_explanations_of_a_fused_model_explain_the_decision_and_its_parts(fused_pipeline):
    """The explanation is of the decision shown (fused), each word's share the sum of the encoder's part and the
    n-gram channel's (explain/why.py; tests/test_why.py checks each part)."""
    from mealwatch.explain.explanation import explain

    pipeline, encoder_alone, _ = fused_pipeline
    e = explain(pipeline, TEXTS[0], steps=32)
    fused = pipeline.predict([TEXTS[0]])[0].probabilities
    assert set(e.parts) == {"encoder", "ngram"} and e.ngram_weight == pipeline.config.ngram_weight > 0
    for label in e.predicted:
        assert e.probabilities[label] == pytest.approx(fused[label], abs=1e-6)
        assert e.encoder_probabilities[label] == pytest.approx(encoder_alone[0, LABELS.index(label)], abs=1e-5)
        change = e.probabilities[label] - e.baseline_probabilities[label]
        assert e.delta[label] == pytest.approx(sum(e.attributions[label]) - change, abs=1e-6)
        both = [a + b for a, b in zip(e.parts["encoder"][label], e.parts["ngram"][label])]
        assert e.attributions[label] == pytest.approx(both, abs=1e-9)
