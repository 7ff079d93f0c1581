"""The review flag: unreadable text, no label cleared, close calls, and the margin chosen on validation."""

import numpy as np
import pytest

from mealwatch.review import (
    CATCH_TARGET,
    MAX_FLAGGED,
    ReviewPolicy,
    calibrate,
    choose_margin,
    choose_risk_limits,
    reasons,
    unreadable_shares,
    wrong_risk,
)

LABELS = ["illness", "spoiled_food", "other"]


def test_devanagari_is_unreadable_to_an_english_vocabulary_and_english_is_not(tokenizer):
    b = tokenizer(["बच्चों को खाना खाने के बाद उल्टी और दस्त हो रहे हैं", "the dal was sour and children vomited",
                   "khichdi me chhipkali giri thi"])  # fmt: skip
    deva, english, roman = unreadable_shares(b)
    assert deva == 1.0  # every word is [UNK] or single letters
    assert english == 0.0
    assert roman < 0.4  # romanised Hindi is cut into pieces, but not into single letters


def test_unreadable_share_ignores_punctuation_digits_and_one_letter_words(tokenizer):
    b = tokenizer(["a 5 , !!! I"])
    assert unreadable_shares(b) == [0.0]


def test_no_label_cleared_is_a_reason_not_a_confident_guess():
    why = reasons([0.08, 0.05, 0.02], LABELS, [0.4, 0.5, 0.5], 0.0, ReviewPolicy(margin=0.05))
    assert why == ["no label reached its threshold (most probable: illness 0.08 < 0.40)"]


def test_close_call_on_either_side_of_a_threshold():
    policy = ReviewPolicy(margin=0.05)
    assert reasons([0.93, 0.52, 0.01], LABELS, [0.4, 0.5, 0.5], 0.0, policy) == [
        "close call: spoiled_food 0.52 is within 0.05 of its threshold 0.50"
    ]
    assert reasons([0.93, 0.47, 0.01], LABELS, [0.4, 0.5, 0.5], 0.0, policy)[0].startswith("close call: spoiled_food")
    assert reasons([0.93, 0.30, 0.01], LABELS, [0.4, 0.5, 0.5], 0.0, policy) == []


def test_single_label_close_call_is_the_gap_between_the_top_two():
    policy = ReviewPolicy(margin=0.1)
    assert reasons([0.46, 0.40, 0.14], LABELS, None, 0.0, policy) == ["close call: illness 0.46 and spoiled_food 0.40"]
    assert reasons([0.80, 0.15, 0.05], LABELS, None, 0.0, policy) == []


def test_unreadable_text_is_flagged_above_the_policy_share():
    policy = ReviewPolicy(margin=0.0, max_unreadable=0.4)
    assert reasons([0.9, 0.1, 0.1], LABELS, [0.5] * 3, 0.41, policy)[0].startswith("41% of the words are unreadable")
    assert reasons([0.9, 0.1, 0.1], LABELS, [0.5] * 3, 0.40, policy) == []


def test_choose_margin_catches_half_the_errors_on_a_hand_made_case():
    # 10 rows, one label, threshold 0.5; rows 0-3 are wrong, at distances 0.01, 0.03, 0.11, 0.3 from it
    p = np.array([0.51, 0.47, 0.61, 0.8, 0.9, 0.95, 0.1, 0.05, 0.2, 0.15])[:, None]
    decisions = (p >= 0.5).astype(int)
    targets = decisions.copy()
    targets[:4] = 1 - targets[:4]
    margin = choose_margin(p, targets, decisions, [0.5])
    # 0.04 flags rows 0 and 1 (2 of 4 errors = CATCH_TARGET) and 2 of 10 rows (under MAX_FLAGGED)
    assert CATCH_TARGET == 0.5 and MAX_FLAGGED == 0.25
    assert margin == pytest.approx(0.04)


def test_choose_margin_never_flags_more_than_the_cap():
    p = np.full((8, 1), 0.5)  # every row sits on the threshold: any margin flags them all
    decisions = np.ones((8, 1), dtype=int)
    targets = np.zeros((8, 1), dtype=int)
    assert choose_margin(p, targets, decisions, [0.5]) == 0.0


def test_policy_round_trips_through_a_dict():
    policy = ReviewPolicy(margin=0.12, max_unreadable=0.3)
    assert ReviewPolicy.from_dict(policy.to_dict()) == policy
    assert ReviewPolicy.from_dict(None) == ReviewPolicy()


TAMIL = "written in Tamil, where this model is less reliable (macro-F1 0.61 when checked, below 0.75)"


def test_flagged_by_measured_language_quality():
    from mealwatch.review import language_quality, language_reason

    measured = {"hi": {"n": 240, "macro_f1": 0.93}, "ta": {"n": 16, "macro_f1": 0.61}, "ur": {"n": 4, "macro_f1": 0.9},
                "und": {"n": 12, "macro_f1": 0.5}}  # fmt: skip
    quality = language_quality(measured)
    assert quality == {"hi": 0.93, "ta": 0.61}  # too few Urdu rows to call it measured; "und" is no language
    policy = ReviewPolicy(margin=0.0, language_f1=quality, min_language_f1=0.75)
    assert language_reason("hi", policy) is None
    assert language_reason("ta", policy) == TAMIL
    assert language_reason("ur", policy) == "written in Urdu, a language this model was not checked on"
    assert language_reason("und", policy) is None and language_reason(None, policy) is None
    assert language_reason("ta", ReviewPolicy()) is None  # a model with no measured languages flags none
    why = reasons([0.9, 0.1], ["a", "b"], [0.5, 0.5], 0.0, policy, "ta")
    assert why == [TAMIL]
    assert ReviewPolicy.from_dict(policy.to_dict()) == policy


def test_wrong_risk_multiplies_the_calibrated_chances_of_each_decision_being_right():
    # two labels at thresholds 0.5 and 0.2; identity calibration (a=1, b=0): q is the probability moved by the threshold
    p = np.array([[0.8, 0.2], [0.5, 0.05]])
    risk = wrong_risk(p, [0.5, 0.2], [[1.0, 0.0], [1.0, 0.0]])
    # row 0: label 0 in with q = 0.8; label 1 exactly at its threshold: in, q = sigmoid(0) = 0.5 -> 1 - 0.8 * 0.5
    # row 1: label 0 in at q = 0.5; label 1 out: z = logit(0.05) - logit(0.2), q = 1 / (1 + 19 / 4) -> 1 - q right
    q = 1 / (1 + 19 / 4)
    np.testing.assert_allclose(risk, [1 - 0.8 * 0.5, 1 - 0.5 * (1 - q)], rtol=1e-9)


def test_calibration_learns_how_far_from_its_threshold_a_label_is_trustworthy():
    rng = np.random.default_rng(0)
    z = rng.normal(size=2000)
    truth = (rng.random(2000) < 1 / (1 + np.exp(-3 * z))).astype(int)  # the true chance sharper than the score says
    p = 1 / (1 + np.exp(-z))  # threshold 0.5: z is the logit distance
    targets = np.c_[truth, np.ones(2000, dtype=int)]  # a second label every row carries
    [[a, b], constant] = calibrate(np.c_[p, p], targets, [0.5, 0.5])
    assert a == pytest.approx(3, abs=0.4) and b == pytest.approx(0, abs=0.2)
    assert constant == [1.0, 0.0]


def test_risk_limits_flag_the_riskiest_share_and_cap_a_form_that_errs_more():
    risk = np.r_[np.linspace(0, 0.5, 80), np.linspace(0.5, 1, 20), np.linspace(0.6, 1, 40)]
    forms = ["hi"] * 100 + ["ta"] * 40
    limit, by_form = choose_risk_limits(risk, forms)
    assert (risk >= limit).mean() == pytest.approx(MAX_FLAGGED, abs=0.01)
    assert set(by_form) == {"ta"} and (risk[100:] >= by_form["ta"]).mean() <= MAX_FLAGGED + 0.03


def test_a_calibrated_policy_flags_by_risk_not_by_margin():
    policy = ReviewPolicy(margin=0.3, calibration=[[1.0, 0.0], [1.0, 0.0]], max_risk=0.5, form_max_risk={"ta": 0.9})
    close_but_sure = reasons([0.7, 0.05], ["a", "b"], [0.5, 0.5], 0.0, policy)
    assert close_but_sure == []  # 0.7 is within the margin of 0.5, but the risk is 1 - 0.7 * 0.95 = 0.335
    unsure = reasons([0.55, 0.45], ["a", "b"], [0.5, 0.5], 0.0, policy)
    assert unsure == ["likely wrong: a 70% chance that a label is wrong or missing (calibrated when checked)"]
    assert reasons([0.55, 0.45], ["a", "b"], [0.5, 0.5], 0.0, policy, form="ta") == []  # Tamil's own limit
    assert ReviewPolicy.from_dict(policy.to_dict()) == policy
