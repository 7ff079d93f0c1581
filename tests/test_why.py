"""The "why" of a decision (explain/why.py): the n-gram channel's exact share per piece and per word, the fused
scores adding up to the decision shown, on WordPiece and SentencePiece tokenizers, and the notices (a text the
model cannot read, an integral that needs more steps)."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from test_multilingual_checkpoints import TINY, xlmr_tokenizer_folder  # noqa: F401 - a tiny SentencePiece tokenizer
from test_ngram_channel import LABELS, ROWS, VALIDATION, dataset

from mealwatch import Encoder, EncoderConfig, Tokenizer
from mealwatch.classifier import Classifier, ClassifierConfig
from mealwatch.explain import attribute
from mealwatch.explain.why import ngram_word_shares, path_jacobian, spread
from mealwatch.ngram_channel import AS_WRITTEN, FEATURES
from mealwatch.learning.ngram_training import fit_ngram_channel
from mealwatch.pipeline import Pipeline

pytestmark = pytest.mark.usefixtures("one_thread")

TEXTS = [
    "khichdi me chhipkali giri thi, bachhe ulti kar rahe hai!!",
    "बच्चों को खाने के बाद उल्टी हुई, दो बच्चे अस्पताल में",
    "dal me keeda mila dal me keeda mila",  # every n-gram twice
    "Worms in the khichdi -- children vomited (6 of them)",
    "आज MDM में dal बिल्कुल पानी जैसी थी https://t.co/x1",
    "ulti",
    "🙁 !!",  # no n-gram of the vocabulary
]


@pytest.fixture(scope="module", params=[True, False], ids=["multi-label", "single-label"])
def channel(request):
    multi = request.param
    return fit_ngram_channel(dataset(ROWS, multi), dataset(VALIDATION, multi))


@pytest.mark.parametrize("blocks", [FEATURES, AS_WRITTEN], ids=["folded view", "as written"])
def test_the_pieces_shares_add_up_to_the_channels_logits(blocks):
    channel = fit_ngram_channel(dataset(ROWS), dataset(VALIDATION), features=blocks)
    rng = np.random.default_rng(0)
    channel.weight = rng.normal(size=channel.weight.shape)  # any linear layer: the split is exact for every one
    for text in TEXTS:
        pieces = channel.contributions(text)
        assert [text[a:b] for a, b in pieces.spans] == text.split()
        np.testing.assert_allclose(pieces.total(), channel.logits([text])[0], rtol=0, atol=1e-9)


def test_a_pieces_share_is_its_own_ngrams_by_hand():
    """Two pieces, word n-grams only: each word's column, and the pair's column split half and half."""
    channel = fit_ngram_channel(dataset(ROWS), dataset(VALIDATION), features=AS_WRITTEN[:1])
    [block] = channel.blocks
    column = {term: i for i, term in enumerate(block.vocabulary)}
    x = block.weigh(["dal me"]).toarray()[0]
    pieces = channel.contributions("dal me")
    W = channel.weight
    expected_dal = W[:, column["dal"]] * x[column["dal"]] + W[:, column["dal me"]] * x[column["dal me"]] / 2
    expected_me = W[:, column["me"]] * x[column["me"]] + W[:, column["dal me"]] * x[column["dal me"]] / 2
    np.testing.assert_allclose(pieces.logits, np.stack([expected_dal, expected_me]), rtol=1e-12)


def test_a_pieces_share_goes_to_its_words_by_their_letters():
    text = "keeda, mila! ulti"  # pieces: "keeda," "mila!" "ulti"; words as a BERT tokenizer cuts them
    words = [(0, 5), (5, 6), (7, 11), (11, 12), (13, 17)]
    shares = np.array([[1.0, 2.0], [3.0, 0.0], [0.5, 0.5]])
    out = spread(text, [(0, 6), (7, 12), (13, 17)], shares, words)
    np.testing.assert_allclose(out, [[1, 2], [0, 0], [3, 0], [0, 0], [0.5, 0.5], [0, 0]])
    cut = spread(text, [(0, 6), (7, 12), (13, 17)], shares, words[:2])  # a text cut after "keeda,"
    np.testing.assert_allclose(cut, [[1, 2], [0, 0], [3.5, 0.5]])  # the rest: pieces no word shows


def test_the_probability_path_is_exact_for_a_sigmoid_and_close_for_a_softmax(channel):
    rng = np.random.default_rng(1)
    start, end = rng.normal(size=len(LABELS)), rng.normal(size=len(LABELS)) * 3
    jacobian = path_jacobian(channel, start, end)
    gap = channel.to_probabilities(end) - channel.to_probabilities(start)
    np.testing.assert_allclose(jacobian @ (end - start), gap, rtol=0, atol=1e-12 if channel.multi_label else 1e-4)


def tiny_pipeline(tokenizer: Tokenizer, channel, weight: float, seed: int = 0) -> Pipeline:
    torch.manual_seed(seed)
    config = EncoderConfig(vocab_size=tokenizer.vocab_size, pad_token_id=tokenizer.pad_token_id, **TINY)
    model = Classifier(Encoder(config), ClassifierConfig(LABELS, channel.multi_label)).eval()
    torch.nn.init.normal_(model.head.weight, std=0.5)  # outputs that differ per text
    pipeline = Pipeline(model, tokenizer)
    pipeline.fuse_ngram_channel(channel, weight, None)
    return pipeline


@pytest.fixture(params=["wordpiece", "sentencepiece"])
def any_tokenizer(request, tokenizer, xlmr_tokenizer_folder):  # noqa: F811
    return tokenizer if request.param == "wordpiece" else Tokenizer.from_pretrained(xlmr_tokenizer_folder)


def test_why_adds_up_to_the_fused_decision_on_either_tokenizer(any_tokenizer, channel):
    pipeline = tiny_pipeline(any_tokenizer, channel, 0.6)
    texts = TEXTS[:5]
    predictions = pipeline.predict(texts)
    labels = [p.labels for p in predictions]
    found = attribute(pipeline, texts, labels, "why", steps=64)
    ig = attribute(pipeline, texts, labels, "ig", steps=64)
    for text, p, s, e in zip(texts, predictions, found, ig):
        assert s.method == "why" and s.ngram_weight == 0.6 and set(s.parts) == {"encoder", "ngram"}
        shares, p_text, p_nothing = ngram_word_shares(channel, text, s.spans)
        for label in p.labels:
            k = LABELS.index(label)
            assert s.output[label] == pytest.approx(p.probabilities[label], abs=1e-5)  # the decision shown
            # the channel's part: exact, every word's share together is its move from "no n-gram" to the text
            ngram = s.parts["ngram"][label]
            assert sum(ngram) == pytest.approx(0.6 * (p_text[k] - p_nothing[k]), abs=1e-4 if p.labels else 0)
            np.testing.assert_allclose(ngram, 0.6 * shares[: len(s.words), k], rtol=1e-9, atol=1e-12)
            # the encoder's part: integrated gradients, weighted
            np.testing.assert_allclose(s.parts["encoder"][label], [0.4 * x for x in e.scores[label]], atol=1e-9)
            np.testing.assert_allclose(s.scores[label], np.add(ngram, s.parts["encoder"][label]), atol=1e-12)
            gap = s.output[label] - s.baseline_output[label]
            assert sum(s.scores[label]) - gap == pytest.approx(s.delta[label], abs=1e-9)
            # what is left: the encoder's convergence delta (and, for a softmax, the averaged path's rounding)
            assert abs(s.delta[label]) <= abs(0.4 * e.delta[label]) + (1e-4 if not channel.multi_label else 1e-5)


def test_without_a_channel_why_is_the_encoders_integrated_gradients(tokenizer, channel):
    pipeline = tiny_pipeline(tokenizer, channel, 0.6)
    pipeline.without_ngram_channel()
    [s] = attribute(pipeline, [TEXTS[0]], [["illness"]], "why", steps=32)
    [e] = attribute(pipeline, [TEXTS[0]], [["illness"]], "ig", steps=32)
    assert set(s.parts) == {"encoder"} and s.ngram_weight == 0.0
    np.testing.assert_allclose(s.scores["illness"], e.scores["illness"], atol=1e-9)


def test_an_unreadable_text_and_a_rough_integral_are_flagged(tokenizer, channel):
    pipeline = tiny_pipeline(tokenizer, channel, 0.6)
    tamil = "குழந்தைகளுக்கு வாந்தி வந்தது, உணவில் பல்லி இருந்தது"  # cut into single letters by an English vocabulary
    [s] = attribute(pipeline, [tamil], [["illness"]], "why", steps=8)
    assert "unreadable" in s.notices and s.to_dict()["notices"] == s.notices
    [s] = attribute(pipeline, [TEXTS[0]], [["illness"]], "why", steps=1)  # one trapezoid: a rough integral
    [fine] = attribute(pipeline, [TEXTS[0]], [["illness"]], "why", steps=200)
    assert abs(fine.delta["illness"]) < abs(s.delta["illness"])
    assert ("approximate" in s.notices) == (abs(s.delta["illness"]) > max(0.1 * abs(
        s.output["illness"] - s.baseline_output["illness"]), 0.01))  # fmt: skip


def test_the_service_answers_why_with_its_parts(tokenizer, channel, tmp_path):
    from test_serve_api import local_client

    from mealwatch.serve import create_app

    tiny_pipeline(tokenizer, channel, 0.6).save(tmp_path / "model")
    with local_client(create_app(tmp_path / "model", tmp_path / "log.db")) as client:
        r = client.post("/api/classify", json={"text": TEXTS[0], "explain": "why", "steps": 16})
        assert r.status_code == 200, r.text
        answer = r.json()
        imp = answer["importance"]
        assert imp["method"] == "why" and imp["ngram_weight"] == 0.6 and imp["notices"] == imp["notices"]
        for label in answer["labels"]:
            assert imp["output"][label] == pytest.approx(answer["probabilities"][label], abs=1e-4)
            both = np.add(imp["parts"]["encoder"][label], imp["parts"]["ngram"][label])
            np.testing.assert_allclose(imp["scores"][label], both, atol=2e-4)  # rounded to 4 decimals each
            assert set(imp["part_outputs"]) == {"encoder", "ngram"}
        r = client.post("/api/classify", json={"text": TEXTS[0], "explain": "why", "steps": 301})
        assert r.status_code == 422


def test_the_attention_page_and_the_triage_page_explain_alike(tokenizer, channel):
    """The attention page's explanation (``explain``) and the service's "why" are the same scores: the two views of
    one complaint never rank its words differently."""
    from mealwatch.explain import explain

    pipeline = tiny_pipeline(tokenizer, channel, 0.6)
    e = explain(pipeline, TEXTS[0], steps=16)
    [s] = attribute(pipeline, [TEXTS[0]], [e.predicted], "why", steps=16)
    for label in e.predicted:
        np.testing.assert_allclose(e.attributions[label], s.scores[label], atol=1e-9)
        assert e.delta[label] == pytest.approx(s.delta[label], abs=1e-9)


def test_the_devanagari_view_shares_the_encoders_part_word_for_word(any_tokenizer, channel):
    """A model that reads romanised Hindi also in Devanagari: the encoder's part is (1 − v)·IG(text) + v·IG(view),
    the view's word i scoring the text's word i, and the scores still add up to the decision shown."""
    from mealwatch.transliteration import NativeScriptView

    lexicon = NativeScriptView.from_texts(["खिचड़ी में छिपकली गिरी थी", "बच्चे उल्टी कर रहे है"], ["hi", "hi"])
    pipeline = tiny_pipeline(any_tokenizer, channel, 0.6)
    pipeline.fuse_translit_view(lexicon, 0.7, pipeline.thresholds())
    text = TEXTS[0]
    view = lexicon.view(text, "hi")
    assert view != text and len(view.split()) == len(text.split())
    [p] = pipeline.predict([text])
    labels = [p.labels or ["illness"]]
    [s] = attribute(pipeline, [text], labels, "why", steps=64)
    [a] = attribute(pipeline, [text], labels, "ig", steps=64)
    [b] = attribute(pipeline, [view], labels, "ig", steps=64)
    assert len(s.words) == len(a.words) == len(b.words) and "view_not_shown" not in s.notices
    for label in labels[0]:
        expected = [0.4 * (0.3 * x + 0.7 * y) for x, y in zip(a.scores[label], b.scores[label])]
        np.testing.assert_allclose(s.parts["encoder"][label], expected, atol=1e-9)
        assert s.output[label] == pytest.approx(p.probabilities[label], abs=1e-5)  # the view is in the decision
        gap = s.output[label] - s.baseline_output[label]
        assert sum(s.scores[label]) - gap == pytest.approx(s.delta[label], abs=1e-9)
