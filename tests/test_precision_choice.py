"""``--precision auto``: the rule on a fake timing table, the per-machine cache, and compiling with a fallback."""

from __future__ import annotations

import warnings

import pytest
import torch

from mealwatch import Encoder
from mealwatch.classifier import Classifier, ClassifierConfig
from mealwatch.data import Dataset, Example
from mealwatch.inference import precision_choice as choice_module
from mealwatch.inference.precision_choice import Choice, Trial, cache_path, choose, pick, read_choice, write_choice
from mealwatch.inference.compiled import CompiledForward, compiler_missing
from mealwatch.labels import LABELS
from mealwatch.pipeline import Pipeline


def test_the_fastest_mode_that_decides_as_fp32_is_kept() -> None:
    trials = [
        Trial("fp32", 0.100, 1.0, 0.880, 0.0),
        Trial("fp32-onednn", 0.060, 1.0, 0.880, 0.0),
        Trial("bf16", 0.030, 0.996, 0.879, -0.001),
        Trial("int8", 0.020, 0.990, 0.878, -0.002),  # fastest, but 99.0 % < 99.5 % agreement
    ]
    chosen = pick(trials)
    assert chosen.mode == "bf16"
    assert "3.33x fp32's speed" in chosen.reason and "int8" in chosen.reason  # why, and what was turned down


def test_macro_f1_must_stay_within_three_tenths_of_a_point() -> None:
    base = [Trial("fp32", 0.1, 1.0, 0.880, 0.0)]
    assert pick(base + [Trial("int8", 0.02, 0.999, 0.876, -0.004)]).mode == "fp32"  # -0.4 points
    assert pick(base + [Trial("int8", 0.02, 0.999, 0.884, +0.004)]).mode == "fp32"  # +0.4: not "within" either
    assert pick(base + [Trial("int8", 0.02, 0.995, 0.877, -0.003)]).mode == "int8"  # both limits exactly met
    assert pick(base + [Trial("bf16", 0.02, 0.9949, 0.880, 0.0)]).mode == "fp32"


def test_failed_or_unchecked_modes_are_never_chosen() -> None:
    trials = [Trial("fp32", 0.1), Trial("fp32-onednn", 0.08), Trial("bf16", 0.01)]  # no validation data
    assert pick(trials).mode == "fp32-onednn"  # only fp32's kernels can go unchecked
    broken = [Trial("fp32", 0.1, 1.0, 0.9, 0.0), Trial("bf16+compile", 0.01, 1.0, 0.9, 0.0, failure="no compiler")]
    assert pick(broken).mode == "fp32"
    assert pick([]).mode == "fp32"


def test_a_stored_choice_reads_back_the_same(tmp_path) -> None:
    choice = Choice("bf16", "why", [Trial("fp32", 0.1, 1.0, 0.88, 0.0), Trial("bf16", 0.03, 1.0, 0.88, 0.0)],
                    "AMD EPYC", 2, "validation.csv", "2026-01-01T00:00:00+00:00", 1.5)  # fmt: skip
    path = tmp_path / "cache" / "choice.json"
    write_choice(path, choice)
    back = read_choice(path)
    assert back == choice and back.from_cache
    path.write_text('{"version": 999}')
    assert read_choice(path) is None  # another version: measured again
    path.write_text("not json")
    assert read_choice(path) is None
    assert read_choice(tmp_path / "missing.json") is None


def tiny_pipeline(tokenizer, tiny_config) -> Pipeline:
    torch.manual_seed(0)
    model = Classifier(Encoder(tiny_config), ClassifierConfig(labels=list(LABELS), multi_label=True)).eval()
    return Pipeline(model, tokenizer)


def tiny_validation() -> Dataset:
    rows = [("worms in the rice", ["foreign_object"]), ("the dal was watery", ["poor_taste_or_cooking"]),
            ("no meal today", ["meal_not_served"]), ("the cook shouted at us", ["staff_misconduct"])]  # fmt: skip
    labels = [label for label in LABELS if label in {r[1][0] for r in rows}]
    assert len(labels) == 4
    return Dataset([Example(t, tuple(ls), i + 2) for i, (t, ls) in enumerate(rows)], list(LABELS), True)


def test_auto_measures_once_then_reads_the_stored_choice(tokenizer, tiny_config, monkeypatch) -> None:
    pipeline = tiny_pipeline(tokenizer, tiny_config)
    validation = tiny_validation()
    messages: list[str] = []
    pipeline.prepare("auto", validation=validation, log=messages.append)
    first = pipeline.choice
    assert first is not None and not first.from_cache
    assert {t.mode for t in first.trials} >= {"fp32"} and first.mode in {t.mode for t in first.trials}
    assert pipeline.mode == first.mode
    fp32 = next(t for t in first.trials if t.mode == "fp32")
    assert fp32.agreement == 1.0 and fp32.f1_change == 0.0
    assert any(m.startswith("precision auto -> ") for m in messages)
    assert cache_path(tiny_pipeline(tokenizer, tiny_config).model, validation.texts, False).is_file()

    def no_measuring(*args, **kwargs):
        raise AssertionError("measured again instead of reading the stored choice")

    monkeypatch.setattr(choice_module, "time_forwards", no_measuring)
    again = tiny_pipeline(tokenizer, tiny_config)
    again.prepare("auto", validation=validation)
    assert again.choice.from_cache and again.choice.mode == first.mode and again.mode == first.mode
    assert again.probabilities(["worms in the rice"]).shape == (1, len(LABELS))


def test_auto_without_validation_data_compares_only_fp32_kernels(tokenizer, tiny_config) -> None:
    pipeline = tiny_pipeline(tokenizer, tiny_config)
    chosen = choose(pipeline, None, use_cache=False)
    assert all(t.mode.startswith("fp32") and t.agreement is None for t in chosen.choice.trials)
    assert chosen.choice.mode.startswith("fp32")


@pytest.mark.slow
@pytest.mark.skipif(compiler_missing() is not None, reason=f"torch.compile needs a C++ compiler: {compiler_missing()}")
def test_the_compiled_encoder_matches_eager(tiny_config, one_thread) -> None:
    torch.manual_seed(0)
    encoder = Encoder(tiny_config).eval()
    ids = torch.randint(1000, tiny_config.vocab_size, (3, 9))
    mask = torch.ones(3, 9, dtype=torch.long)
    mask[1, 5:] = 0  # a padded batch: the compiled graph must keep the mask
    compiled = CompiledForward(encoder)
    with torch.inference_mode():
        eager = encoder(ids, mask).last_hidden_state
        got = compiled(ids, mask).last_hidden_state
    assert compiled.active, compiled.failure
    torch.testing.assert_close(got, eager, rtol=1e-5, atol=1e-5)


def test_a_failed_compile_falls_back_to_eager_with_a_warning(tiny_config, monkeypatch) -> None:
    encoder = Encoder(tiny_config).eval()

    def broken(*args, **kwargs):
        raise RuntimeError("Inductor cannot lower this op")

    monkeypatch.setattr(torch, "compile", lambda module, **kwargs: broken)
    monkeypatch.setattr("mealwatch.inference.compiled.compiler_missing", lambda: None)
    forward = CompiledForward(encoder)
    ids = torch.randint(1000, tiny_config.vocab_size, (2, 6))
    with torch.inference_mode(), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = forward(ids).last_hidden_state
        forward(ids)  # warned once only
    assert not forward.active and "Inductor cannot lower this op" in forward.failure
    assert len([w for w in caught if "torch.compile failed" in str(w.message)]) == 1
    with torch.inference_mode():
        torch.testing.assert_close(out, encoder(ids).last_hidden_state)
