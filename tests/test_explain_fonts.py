"""Pictures draw Devanagari and other Indic scripts with an installed font, or say that none is installed."""

import warnings

import pytest

from mealwatch.explain import fonts
from mealwatch.explain.fonts import BASE_FAMILY, FontChoice, families_for

HAS_NOTO = any(name == "Noto Sans Devanagari" for name, _ in fonts._candidates())


def test_latin_needs_only_the_base_font():
    assert families_for(["the", "dal", "Café"]) == FontChoice((BASE_FAMILY,), frozenset())


@pytest.mark.skipif(not HAS_NOTO, reason="needs Debian's fonts-noto-core (setup.sh installs it)")
def test_each_script_gets_a_font_that_has_it():
    choice = families_for(["खाने", "খাবারে", "ਖਾਣੇ", "சாப்பாட்டில்"])
    assert not choice.missing and choice.note == ""
    for family in ("Noto Sans Devanagari", "Noto Sans Bengali", "Noto Sans Gurmukhi", "Noto Sans Tamil"):
        assert family in choice.families


def test_without_a_font_the_picture_says_so(monkeypatch):
    monkeypatch.setattr(fonts, "_candidates", lambda: ((BASE_FAMILY, frozenset(range(128))),))
    choice = families_for(["खाने", "dal"])
    assert choice.families == (BASE_FAMILY,)
    assert choice.missing == frozenset("खाने")
    assert "fonts-noto-core" in choice.note


def test_picture_of_devanagari_words_is_written_without_glyph_warnings(tmp_path, tiny_config, tokenizer):
    import torch

    from mealwatch.explain.pictures import save_head
    from mealwatch.explain.word_attention import word_attention
    from mealwatch.transformer import Encoder

    torch.manual_seed(0)
    wa = word_attention(Encoder(tiny_config).eval(), tokenizer, "बच्चों को उल्टी हुई")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        path = save_head(wa, tmp_path / "deva.png", layer=0, head=0)
    assert path.stat().st_size > 1000
