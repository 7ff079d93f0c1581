"""Severity learned beside the labels (issue 33): the head is trained where the data is annotated and saved with the
model, its decision marks a grave complaint at the threshold chosen on validation, the language of Latin-letter
text is identified by the model's own n-gram identifier, and a batch in parts gives the whole batch's loss."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from mealwatch.data import Dataset, Example
from mealwatch.language_id import in_latin_letters
from mealwatch.learning.ngram_training import fit_language_id
from mealwatch.learning.training import (
    TrainingArguments,
    severity_loss_function,
    severity_part_loss,
    train,
)
from mealwatch.learning.triage_evaluation import evaluate_triage, format_triage
from mealwatch.pipeline import Pipeline
from mealwatch.review import ReviewPolicy, choose_form_margins, reasons
from mealwatch.severity import SEVERITY_LEVELS, choose_grave_threshold, decide_severity

pytestmark = pytest.mark.usefixtures("one_thread")

LABELS = ["foreign_object", "illness", "other"]
ROWS = [  # text, labels, severity, children, language, script
    ("A lizard in the dal, 12 children admitted to the district hospital", "foreign_object;illness", "hospital", 12,
     "en", None),
    ("Worms in the rice, three children vomited", "foreign_object;illness", "unwell", 3, "en", None),
    ("Five children were seen at the PHC after lunch and sent home", "illness", "clinic", 5, "en", None),
    ("One child died after eating the meal", "illness", "death", 1, "en", None),
    ("Stones in the rice again", "foreign_object", "none", 0, "en", None),
    ("When will the new menu be put up?", "other", "none", 0, "en", None),
    ("sambar la palli irundhuchu, 10 pasanga GH la admit", "foreign_object;illness", "hospital", 10, "ta", "latn"),
    ("saapadu la puzhu, pasanga vaanthi eduthanga", "foreign_object;illness", "unwell", 0, "ta", "latn"),
    ("annam lo purugulu unnayi, pillalu hospital lo join chesaru", "foreign_object;illness", "hospital", 0, "te",
     "latn"),
    ("annam lo rallu unnayi sir, evaru pattinchukovadam ledu", "foreign_object", "none", 0, "te", "latn"),
    ("khichdi me chhipkali thi, 6 bachhe aspatal me bhartee", "foreign_object;illness", "hospital", 6, "hi", "latn-hi"),
    ("khane me kankad the, koi sunta nahi hai", "foreign_object", "none", 0, "hi", "latn-hi"),
]  # fmt: skip


def dataset(rows) -> Dataset:
    examples = [Example(t, tuple(ls.split(";")), i, script, lang, sev, kids)
                for i, (t, ls, sev, kids, lang, script) in enumerate(rows, start=2)]  # fmt: skip
    return Dataset.from_examples(examples, LABELS, True)


def test_decide_severity_marks_grave_at_the_threshold_and_chooses_it_for_recall():
    levels = list(SEVERITY_LEVELS)
    p = np.array([[0.5, 0.1, 0.1, 0.25, 0.05], [0.1, 0.6, 0.2, 0.05, 0.05], [0.0, 0.0, 0.1, 0.3, 0.6]])
    assert decide_severity(p, levels, 0.3) == ["hospital", "unwell", "death"]
    assert decide_severity(p, levels, 0.5) == ["none", "unwell", "death"]
    # one grave row, P(grave) 0.3 + 0.6: the largest threshold of the grid below it; two, with 0.3: 0.3
    assert choose_grave_threshold(p, ["none", "unwell", "hospital"], levels) == 0.85
    assert choose_grave_threshold(p, ["hospital", "unwell", "death"], levels) == 0.3
    assert choose_grave_threshold(p, ["none", "none", "none"], levels) == 0.5  # nothing grave to find


def test_level_and_illness_label_agree():
    levels = list(SEVERITY_LEVELS)
    p = np.array([[0.5, 0.1, 0.15, 0.2, 0.05], [0.5, 0.1, 0.15, 0.2, 0.05], [0.1, 0.1, 0.2, 0.0, 0.6]])
    # labelled ill: the head's "none" gives way to the most probable of the other levels below grave
    assert decide_severity(p, levels, 0.5, ill=[True, False, True]) == ["clinic", "none", "death"]
    # not labelled ill: never grave (a hospital named about a cook); read as grave by the head, the most probable
    # level between none and grave instead (the second row: P(grave) 0.25 marks it, the third 0.6)
    assert decide_severity(p, levels, 0.25, ill=[True, False, False]) == ["hospital", "clinic", "clinic"]
    assert decide_severity(p, levels, 0.5, ill=[True, False, False]) == ["clinic", "none", "clinic"]
    assert decide_severity(p, levels, 0.25) == ["hospital", "hospital", "death"]  # no labels given: the head alone


def test_the_grave_threshold_counts_recall_among_the_rows_that_can_be_marked():
    levels = list(SEVERITY_LEVELS)
    p = np.array([[0.0, 0.0, 0.1, 0.9, 0.0], [0.0, 0.0, 0.6, 0.4, 0.0], [0.0, 0.0, 0.0, 1.0, 0.0]])
    truth = ["hospital", "hospital", "hospital"]
    assert choose_grave_threshold(p, truth, levels) == 0.4  # all three marked from 0.4 down
    # the third row's labels miss illness: it cannot be marked at any threshold, so recall is over the first two
    assert choose_grave_threshold(p, truth, levels, ill=[True, True, False]) == 0.4
    assert choose_grave_threshold(p, truth, levels, ill=[True, False, False]) == 0.9


def test_the_severity_loss_of_a_batch_in_parts_is_the_whole_batchs():
    severities = np.array([0, 0, 0, 1, 3, -1, 4, 2])
    loss_fn = severity_loss_function(severities, len(SEVERITY_LEVELS))
    logits = torch.randn(8, len(SEVERITY_LEVELS))
    s = torch.tensor(severities)
    whole = torch.nn.functional.cross_entropy(logits, s, weight=loss_fn.weight, ignore_index=-1)
    parts = sum(severity_part_loss(loss_fn, logits[i : i + 3], s[i : i + 3], s) for i in range(0, 8, 3))
    assert float(parts) == pytest.approx(float(whole), rel=1e-6)
    unannotated = torch.tensor([-1, -1])
    assert float(severity_part_loss(loss_fn, logits[:2], unannotated, unannotated)) == 0.0


def test_the_language_of_latin_letters_is_identified_by_an_ngram_model():
    train_rows = [(t, lang) for t, _, _, _, lang, _ in ROWS] * 3
    identifier = fit_language_id([t for t, _ in train_rows], [lang for _, lang in train_rows],
                                 [t for t, _ in train_rows], [lang for _, lang in train_rows])  # fmt: skip
    assert identifier is not None and identifier.languages == ["en", "hi", "ta", "te"]
    texts = ["pasanga ellam vaanthi, palli irundhuchu", "pillalu ki purugulu annam lo", "செம்மை", "Worms in the dal"]
    assert in_latin_letters(texts[0]) and not in_latin_letters(texts[2])
    refined = identifier.refine(texts, ["en", "en", "ta", "en"])
    assert refined == ["ta", "te", "ta", "en"]  # a text in its own script keeps the script's answer


def test_a_model_trained_on_annotated_rows_predicts_severity_and_keeps_it_when_saved(tiny_encoder_dir, tmp_path):
    data = dataset(ROWS)
    args = TrainingArguments(epochs=3, batch_size=4, learning_rate=3e-3, head_learning_rate=3e-2, patience=5,
                             encoder_path=str(tiny_encoder_dir), warmup_ratio=0.0, ngram_channel=False,
                             translit_view=False)  # fmt: skip
    result = train(data, data, args, progress=False)
    pipeline = result.pipeline
    assert pipeline.config.severity_levels == list(SEVERITY_LEVELS)
    assert pipeline.model.severity_head is not None and pipeline.language_id is not None
    run = pipeline.run(data.texts)
    assert run.severity is not None and run.severity.shape == (len(ROWS), len(SEVERITY_LEVELS))
    torch.testing.assert_close(run.severity.sum(dim=1), torch.ones(len(ROWS)))
    predictions = pipeline.predict(data.texts)
    assert all(p.severity in SEVERITY_LEVELS for p in predictions)
    assert [p.children for p in predictions][:4] == [12, 3, 5, 1]
    pipeline.save(tmp_path / "m")
    again = Pipeline.load(tmp_path / "m")
    assert again.config.grave_threshold == pipeline.config.grave_threshold
    assert [p.severity for p in again.predict(data.texts)] == [p.severity for p in predictions]
    assert [p.language for p in again.predict(data.texts)] == [p.language for p in predictions]
    report = evaluate_triage(again, data)
    assert report.forms["all"].n == len(ROWS) and report.forms["ta-latn"].n == 2
    assert report.forms["all"].children_n == 6  # the rows that state a number
    assert "ta-latn" in format_triage(report)


def test_unannotated_data_trains_no_severity_head(tiny_encoder_dir):
    rows = [(t, ls, None, None, lang, script) for t, ls, _, _, lang, script in ROWS]
    data = dataset(rows)
    args = TrainingArguments(epochs=1, batch_size=4, encoder_path=str(tiny_encoder_dir), ngram_channel=False,
                             translit_view=False, language_id=False)  # fmt: skip
    pipeline = train(data, data, args, progress=False).pipeline
    assert pipeline.config.severity_levels == [] and pipeline.model.severity_head is None
    assert pipeline.run(data.texts).severity is None
    # the rule for a model without the head: the hospital word, the illness label
    assert pipeline.severity_levels(None, ["6 bachhe aspatal me bhartee"], [["other"]]) == ["hospital"]


def test_each_language_form_gets_its_own_close_call_margin():
    rng = np.random.default_rng(0)
    p = rng.uniform(0, 1, size=(60, 1))
    targets = (rng.uniform(0, 1, size=(60, 1)) > 0.5).astype(int)
    decisions = (p >= 0.5).astype(int)
    forms = ["ta"] * 30 + ["ta-latn"] * 20 + ["kn"] * 10
    margins = choose_form_margins(p, targets, decisions, [0.5], forms)
    assert set(margins) == {"ta", "ta-latn"}  # too few Kannada rows for a margin of its own
    policy = ReviewPolicy(margin=0.0, form_margins={"ta-latn": 0.3})
    assert reasons([0.6], ["illness"], [0.5], 0.0, policy, "ta", "ta") == []
    assert reasons([0.6], ["illness"], [0.5], 0.0, policy, "ta", "ta-latn") == [
        "close call: illness 0.60 is within 0.30 of its threshold 0.50"
    ]
    assert ReviewPolicy.from_dict(policy.to_dict()) == policy
