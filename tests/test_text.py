"""Text handling that never damages a script: normalisation, grapheme-whole word spans, script detection."""

import pytest
from tokenizers import Tokenizer as FastTokenizer
from tokenizers import normalizers

from mealwatch.text import detect_script, devanagari_share, normalize, snap_spans
from mealwatch.transformer import bundled_model_dir

#: (language, text) in five Indic scripts; each word must come back whole, every mark kept
INDIC = [
    ("Hindi", "आज खाने में कीड़े थे, बच्चों को उल्टी हुई।"),
    ("Marathi", "आज जेवणात अळ्या होत्या आणि मुलांना उलट्या झाल्या"),
    ("Bengali", "আজ খাবারে পোকা ছিল, শিশুরা বমি করেছে"),
    ("Tamil", "இன்று சாப்பாட்டில் புழு இருந்தது"),
    ("Gurmukhi", "ਅੱਜ ਖਾਣੇ ਵਿੱਚ ਕੀੜੇ ਸਨ"),
]


@pytest.mark.parametrize("language,text", INDIC)
def test_indic_marks_survive_normalisation(language, text):
    assert normalize(text) == text  # NFC already, no case, nothing to strip


@pytest.mark.parametrize("language,text", INDIC)
def test_words_and_spans_cover_whole_words(tokenizer, language, text):
    b = tokenizer([text])
    words = [w for w in text.replace(",", " , ").replace("।", " । ").split()]
    assert b.words[0] == words
    assert [text[s:e] for s, e in b.word_spans[0]] == words
    assert all(not ("\u0300" <= w[0] <= "\u036f") for w in b.words[0])


def test_latin_accents_and_case_fold_as_the_checkpoint_expects():
    assert normalize("Café NAÏVE Ёлка") == "cafe naive елка"  # Latin and Cyrillic accents stripped, like BERT
    assert normalize("Café", lowercase=False) == "Café"  # a cased checkpoint keeps them
    assert normalize("Café", lowercase=True, strip_accents=False) == "café"


def test_nfc_decomposed_input_is_composed():
    decomposed = "क\u093c"  # KA + NUKTA: stays two code points in NFC (a composition exclusion) ...
    assert normalize(decomposed) == decomposed
    assert normalize("ऩ") == "ऩ" and normalize("न\u093c") == "ऩ"  # ... NNNA composes


LATIN = [
    "The meal was served without dal because it was spoiled.",
    "Khichdi me chhipkali giri thi, 6 bachhe ulti kar rahe hai!!",
    "Café-owner's naïve rösti: £5 — ÉCOLE Ñandú; “quotes” and emoji 🍛 and tabs\tand  spaces",
    "ΚΑΛΗΜΕΡΑ καλημέρα, Ёлка й, 北京 食物",
]


@pytest.mark.parametrize("text", LATIN)
def test_tokenization_of_other_scripts_is_unchanged(tokenizer, text):
    reference = FastTokenizer.from_file(str(bundled_model_dir() / "tokenizer.json"))
    assert isinstance(reference.normalizer, normalizers.BertNormalizer)  # the checkpoint's own, unchanged
    reference.no_padding()
    reference.no_truncation()
    expected = reference.encode(text)
    got = tokenizer([text])
    assert got.tokens[0] == expected.tokens
    assert got.input_ids[0].tolist() == expected.ids


def test_spans_are_snapped_to_grapheme_clusters():
    text = "कीड़े थे"
    assert snap_spans(text, [(1, 3), (6, 7)]) == [(0, 5), (6, 8)]  # never start or end inside a letter


@pytest.mark.parametrize(
    "text,script",
    [
        ("बच्चों को खाने के बाद उल्टी हुई", "deva"),
        ("आज MDM में dal बिल्कुल पानी जैसी थी", "mixed"),
        ("khichdi me chhipkali giri thi, bachhe ulti kar rahe hai", "latn-hi"),
        ("The meal was served without dal because it was spoiled.", "latn-en"),
        ("12345 !!!", "latn-en"),
        ("பள்ளி உணவில் பல்லி", "other"),  # Tamil: languages.detect_language names it
        ("آج کھانے میں کیڑے تھے", "other"),
        ("MDM me கறி", "latn-en"),  # mostly Latin letters
    ],
)
def test_detect_script(text, script):
    assert detect_script(text) == script


def test_devanagari_share_counts_letters_and_marks():
    assert devanagari_share("खाना") == 1.0
    assert devanagari_share("abc") == 0.0
    assert devanagari_share("") == 0.0
    assert devanagari_share("ab खा") == pytest.approx(2 / 4)  # ख, ा against a, b


def test_check_text_refuses_what_no_complaint_holds():
    from mealwatch.text import check_text

    assert check_text("दाल खट्टी थी") == "दाल खट्टी थी"
    for bad, message in [("   ", "empty"), ("dal\x00", "NUL"), (5, "must be a string"), ("x" * 11, "limit is 10")]:
        with pytest.raises(ValueError, match=message):
            check_text(bad, max_chars=10)
