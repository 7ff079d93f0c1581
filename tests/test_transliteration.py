"""The native-script view of romanised text: the lexicons, the view, its file, and the pipeline's fusion."""

from __future__ import annotations

import json

import pytest
import torch

from mealwatch.classifier import Classifier, ClassifierConfig
from mealwatch.pipeline import Pipeline
from mealwatch.transformer import CheckpointError, Encoder
from mealwatch.transliteration import LEXICON_FILE, Lexicon, NativeScriptView

LABELS = ["foreign_object", "illness"]
HINDI = ["बच्चों को उल्टी हुई", "खाने में छिपकली थी", "उल्टी और दस्त", "आज खाना नहीं", "खाने में कीड़े थे", "खाना"]
TAMIL = ["குழந்தைகளுக்கு வாந்தி", "சாப்பாட்டில் பல்லி", "வாந்தி மயக்கம்"]
LEXICON = Lexicon.from_texts(HINDI)
VIEW = NativeScriptView.from_texts(HINDI + TAMIL + ["The dal was cold"], ["hi"] * 6 + ["ta"] * 3 + ["en"])


def test_lexicon_keys_are_folded_romanised_spellings():
    assert LEXICON.table["ulti"] == "उल्टी" and LEXICON.table["chipakli"] == "छिपकली"  # romanised "chhipakli"
    assert LEXICON.lookup("chhipkali") == "छिपकली"  # as typed: found by its skeleton "chpkli"
    assert LEXICON.lookup("Ultee") == "उल्टी" and LEXICON.lookup("lizard") is None
    assert LEXICON.table["khana"] == "खाना"  # "खाना" 3 times beats "खाने" ... which has a key of its own
    assert LEXICON.table["khane"] == "खाने" and LEXICON.table["nahi"] == "नहीं"
    # a key two words share goes to the more frequent one
    shared = Lexicon.from_texts(["में", "में", "मे"])
    assert shared.table["me"] == "में"


def test_view_rewrites_the_known_words_of_romanised_hindi_only():
    text = "aaj khane me chhipkali thi!! 6 bachhe ultee kar rahe 😢 plastic bhi"
    view = VIEW.view(text, "hi")
    assert view == "आज खाने में छिपकली थी!! 6 bachhe उल्टी kar rahe 😢 plastic bhi"
    assert len(view.split()) == len(text.split())  # word i of the view is word i of the text
    assert VIEW.view("The khana had a lizard in it", "en") == "The khana had a lizard in it"  # English: no lexicon
    mixed = "आज MDM में khana nahi bana"
    assert VIEW.view(mixed, "hi") == "आज MDM में खाना नहीं bana"
    assert VIEW.view("बच्चों को उल्टी हुई", "hi") == "बच्चों को उल्टी हुई"  # Devanagari already: nothing to rewrite
    assert NativeScriptView().view("khana nahi bana aaj", "hi") == "khana nahi bana aaj"


def test_each_language_is_read_in_its_own_script_by_its_own_lexicon():
    assert sorted(VIEW.lexicons) == ["hi", "ta"]  # English has no native-script words: no lexicon
    assert VIEW.lexicons["ta"].lookup("vaanti") == "வாந்தி"  # folded: "vanti"
    tanglish = "kuzhandhaigalukku vaanti, saapatil palli"
    assert VIEW.view(tanglish, "ta") == "kuzhandhaigalukku வாந்தி, saapatil பல்லி"
    assert VIEW.view(tanglish, "hi") == tanglish  # the Hindi lexicon knows none of its words
    assert VIEW.view(tanglish, None) == tanglish  # no language identified: no view


def test_lexicon_file_round_trip_and_damage(tmp_path):
    VIEW.save(tmp_path)
    assert NativeScriptView.load(tmp_path) == VIEW
    (tmp_path / LEXICON_FILE).write_text(json.dumps({"format": 2, "languages": {"ta": {"table": {"v": 3}}}}))
    with pytest.raises(CheckpointError, match="not a transliteration lexicon"):
        NativeScriptView.load(tmp_path)
    (tmp_path / LEXICON_FILE).write_text("{", encoding="utf-8")
    with pytest.raises(CheckpointError, match="not valid JSON"):
        NativeScriptView.load(tmp_path)
    with pytest.raises(CheckpointError, match="is missing"):
        NativeScriptView.load(tmp_path / "nowhere")


def test_a_format_1_file_is_hindis_lexicon(tmp_path):
    old = {"format": 1, **LEXICON.to_dict()}  # what mealwatch wrote before a lexicon per language
    (tmp_path / LEXICON_FILE).write_text(json.dumps(old, ensure_ascii=False), encoding="utf-8")
    assert NativeScriptView.load(tmp_path) == NativeScriptView({"hi": LEXICON})


def test_pipeline_fuses_the_view_of_the_texts_it_changes(tiny_config, tokenizer, tmp_path):
    torch.manual_seed(0)
    pipeline = Pipeline(Classifier(Encoder(tiny_config), ClassifierConfig(LABELS, True)).eval(), tokenizer)
    texts = ["khane me chhipkali thi aur bachhe ultee kar rahe", "The dal had worms in it"]
    plain = pipeline.probabilities(texts)  # (2, L)
    seen = pipeline.probabilities([VIEW.view(texts[0], "hi")])  # (1, L)
    pipeline.fuse_translit_view(VIEW, 0.25, [0.4, 0.6])
    fused = pipeline.probabilities(texts)
    assert torch.allclose(fused[0], 0.75 * plain[0] + 0.25 * seen[0], atol=1e-6)
    assert torch.allclose(fused[1], plain[1])  # English: read once, as it is
    assert pipeline.thresholds() == [0.4, 0.6]
    pipeline.save(tmp_path / "model")
    again = Pipeline.load(tmp_path / "model")
    assert again.config.translit_weight == 0.25 and again.translit == VIEW
    assert torch.allclose(again.probabilities(texts), fused, atol=1e-6)
    pipeline.fuse_translit_view(None, 0.0, None)
    assert pipeline.translit is None and torch.allclose(pipeline.probabilities(texts), plain)
