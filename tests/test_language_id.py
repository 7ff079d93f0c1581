"""The identifier of Latin-letter languages: the marker words it pools, its fit, and its files."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

from mealwatch.language_id import FEATURES, LanguageIdentifier
from mealwatch.language_markers import HINDI_TOKEN, URDU_TOKEN, marker_view
from mealwatch.learning.ngram_training import fit_language_id

HINDI = [
    "aaj khana me keede the bachhe bimar", "dal me pani hi pani tha", "bachhon ko roti nahi mili aaj",
    "khichdi jali hui thi cook ne phir bhi di", "kripya school ka khana dekhiye", "sabzi sadi thi badbu aa rahi thi",
    "anda do mahine se nahi mila", "bhojan me chhipkali mili bachhe dare hue", "rasoi ghar ganda hai",
    "chawal me kankad the daant toot gaya", "namaste sir khana roz der se aata hai", "doodh me pani milaya",
]  # fmt: skip
URDU = ["janab bachon ko khana nahi mila", "walidain kehte hain dal kharab thi", "assalamualaikum khana thanda tha"]
ENGLISH = ["the rice had worms today", "no meal for three days", "the cook did not come", "dal was watery again"]


def rows(*groups: tuple[list[str], str]) -> tuple[list[str], list[str]]:
    pairs = [(t, lang) for texts, lang in groups for t in texts]
    return [t for t, _ in pairs], [lang for _, lang in pairs]


def test_the_marker_view_keeps_one_token_per_marker_word():
    assert marker_view("Assalamualaikum JANAB, walidain ne kaha") == f"{URDU_TOKEN} {URDU_TOKEN} {URDU_TOKEN}"
    assert marker_view("Kripya dhyan dein, bhojan kharab") == f"{HINDI_TOKEN} {HINDI_TOKEN}"
    assert marker_view("bachon ko khana nahi mila") == ""  # words both languages use mark neither


def test_a_few_roman_urdu_rows_beside_many_hindi_ones_teach_every_marker_word():
    """Three Roman Urdu rows against a dozen Hindi ones: a text with a marker word that no training row holds
    ("ittila", "bohat") among words of the Hindi rows still reads as Urdu, because the marker words are pooled; the
    identifier without that block reads the same texts as Hindi."""
    texts, languages = rows((HINDI * 3, "hi"), (URDU, "ur"), (ENGLISH * 3, "en"))
    held_texts, held_languages = rows((HINDI[:4], "hi"), (URDU, "ur"), (ENGLISH[:2], "en"))
    identifier = fit_language_id(texts, languages, held_texts, held_languages)
    assert identifier is not None and identifier.languages == ["en", "hi", "ur"]
    unseen = ["ittila mili ki khana me keede the", "bohat bura khana tha, dal me pani"]  # Hindi rows' words besides
    assert identifier.identify(unseen) == ["ur", "ur"]
    assert identifier.identify(["bhojan me keede the", "the dal had stones"]) == ["hi", "en"]
    plain = fit_language_id(texts, languages, held_texts, held_languages, features=FEATURES[:2])
    assert plain is not None and plain.identify(unseen) == ["hi", "hi"]


def test_the_training_labels_of_complaint_rows_come_from_their_script_column(tmp_path):
    """A bundled complaint row names no language but its script (``latn-hi``): it is Hindi even when it holds too
    few common Hindi words for ``detect_language`` to tell."""
    from mealwatch.data import read_dataset

    path = tmp_path / "c.csv"
    path.write_text("text,labels,script\nDal me keede,foreign_object,latn-hi\nDal had worms,foreign_object,latn-en\n"
                    "Dal me keede the,foreign_object,\n", encoding="utf-8")  # fmt: skip
    assert read_dataset(path).languages() == ["hi", "en", "en"]  # no script: detected (one Hindi word: English)


def test_the_identifier_saves_and_loads_the_same_and_an_older_file_still_loads(tmp_path):
    texts, languages = rows((HINDI * 2, "hi"), (URDU * 2, "ur"), (ENGLISH * 2, "en"))
    probe = ["walidain ne kaha khana kharab", "kripya dhyan dein", "worms in the rice", "pani jaisi dal"]
    for folder, features in ((tmp_path / "now", FEATURES), (tmp_path / "before", FEATURES[:2])):
        identifier = fit_language_id(texts, languages, texts, languages, features=features)
        assert identifier is not None
        folder.mkdir()
        identifier.save(folder)
        assert not list(folder.glob("*.pkl")) and not list(folder.glob("*.pickle"))
        loaded = LanguageIdentifier.load(folder)
        assert loaded is not None and loaded.languages == identifier.languages
        np.testing.assert_allclose(loaded.probabilities(probe), identifier.probabilities(probe), atol=1e-5)
        views = [b["view"] for b in json.loads((folder / "language_id.json").read_text(encoding="utf-8"))["blocks"]]
        assert views == [spec.view for spec in features]
    assert LanguageIdentifier.load(tmp_path) is None  # a model that keeps no identifier


def test_the_benchmark_refuses_the_test_split_unless_told_it_reads_it_once(capsys):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
    try:
        import language_id as benchmark
    finally:
        sys.path.pop(0)
    with pytest.raises(SystemExit):
        benchmark.main(["--split", "test"])
    assert "--i-read-test-once" in capsys.readouterr().err


def test_training_texts_without_a_marker_word_fit_an_identifier_without_that_block():
    texts, languages = rows((["khana me keede the", "dal me pani tha"], "hi"), (ENGLISH, "en"))
    identifier = fit_language_id(texts, languages, texts, languages)
    assert identifier is not None
    assert [b.view for b in identifier.channel.blocks] == ["text", "text"]
    assert identifier.identify(["walidain ne kaha dal me keede", "worms in the rice"]) == ["hi", "en"]
