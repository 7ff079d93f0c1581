"""Romanisation to one script and the spelling fold, on hand-made cases."""

from __future__ import annotations

import pytest

from mealwatch.romanise import fold_spelling, romanise, romanise_every_script, romanise_text, to_devanagari

WORDS = {
    "खाना": "khana", "उल्टी": "ulti", "दाल": "dal", "सब्ज़ी": "sabzi", "बच्चों": "bachchon", "खिचड़ी": "khichdi",
    "कीड़े": "kide", "पकोड़ा": "pakoda", "ज़्यादा": "zyada", "पानी": "pani", "और": "aur", "भोजन": "bhojan",
    # schwa deletion inside a word, right to left
    "समझना": "samajhna", "बदबू": "badbu", "बरतन": "bartan", "सरकारी": "sarkari", "बदलना": "badalna",
    "कमरा": "kamra", "नमक": "namak", "व": "va",
    # nasal signs: unwritten at the end after e, ai, i; n elsewhere
    "में": "me", "नहीं": "nahi", "हैं": "hai", "आँख": "ankh", "गंदा": "ganda",
    # nukta letters, visarga, vocalic r, the English o, conjuncts, digits
    "ख़राब": "kharab", "ग़लत": "galat", "फ़ोन": "fon", "दुःख": "dukh", "कृपया": "kripya", "कॉपी": "kopi",
    "ज्ञान": "gyan", "छात्र": "chhatr", "शिक्षक": "shikshak", "१२": "12",
}  # fmt: skip


@pytest.mark.parametrize("word, expected", WORDS.items())
def test_a_devanagari_word_is_written_as_hinglish_is_typed(word, expected):
    assert romanise(word) == expected


def test_a_nukta_letter_reads_the_same_precomposed_or_as_letter_and_mark():
    assert "\u095c" != "\u0921\u093c"  # ड़ as one code point, and as ड + nukta
    assert romanise("खि\u091a\u095c\u0940") == romanise("खि\u091a\u0921\u093c\u0940") == "khichdi"


def test_mixed_text_keeps_its_latin_punctuation_and_danda():
    text = "बच्चों को उल्टी हुई, Khana KHARAB tha। 3 din se दाल नहीं!"
    assert romanise_text(text) == "bachchon ko ulti hui, Khana KHARAB tha। 3 din se dal nahi!"


@pytest.mark.parametrize("text", ["", " ", "  \n\t", "Café served cold, 12 kids ill?", "naïve ñ ü ß", "a\u0301"])
def test_text_without_devanagari_is_returned_character_for_character(text):
    assert romanise_text(text) == text


def test_emoji_and_their_joiners_are_left_alone():
    family = "\U0001f468\u200d\U0001f469\u200d\U0001f467"  # man ZWJ woman ZWJ girl: one emoji
    text = f"{family} दाल\u200d ठंडी 😡🙏🏽"
    assert romanise_text(text) == f"{family} dal thandi 😡🙏🏽"  # a joiner inside a Devanagari run goes with it


@pytest.mark.parametrize(
    "variants, folded",
    [
        (["ulti", "ultee", "ulty", "ULTI"], "ulti"),
        (["bachche", "bacche", "bachhe", "bache"], "bache"),
        (["chhipkali", "chipkali"], "chipkali"),
        (["zyaada", "jyada", "zyada"], "jyada"),
        (["khaana", "khana"], "khana"),
        (["paani", "pani"], "pani"),
        (["keeda", "kida"], "kida"),
        (["acchha", "accha", "achha", "acha"], "acha"),
        (["khatta", "khata"], "khata"),
        (["wala", "vala"], "vala"),
        (["sabzi", "sabji"], "sabji"),
        (["doodh", "dudh"], "dudh"),
    ],
)
def test_spelling_variants_fold_into_one(variants, folded):
    assert {fold_spelling(v) for v in variants} == {folded}


def test_the_fold_changes_latin_letters_only():
    assert fold_spelling("दाल ZYAADA thi, 2 बच्चे 😡") == "दाल jyada thi, 2 बच्चे 😡"
    assert fold_spelling(romanise_text("बच्चे")) == fold_spelling("bacche") == "bache"  # the two scripts meet
    assert fold_spelling("") == ""


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("ছেলেরা বমি করেছে", "chhelera bami karechhe"),  # Bengali
        ("ਬੱਚਿਆਂ ਨੂੰ ਉਲਟੀ", "bachian nun ulti"),  # Gurmukhi: the addak is dropped, the tippi is a nasal
        ("બાળકોને ઉલટી", "balkone ulti"),  # Gujarati
        ("ପିଲାମାନଙ୍କୁ ବାନ୍ତି", "pilamananku banti"),  # Odia
        ("பிள்ளைகள் வாந்தி", "pillaikal vanti"),  # Tamil
        ("పిల్లలకు వాంతులు", "pillalku vantulu"),  # Telugu
        ("ಮಕ್ಕಳಿಗೆ ವಾಂತಿ", "makkalige vanti"),  # Kannada
        ("കുട്ടികൾക്ക് ഛർദ്ദി", "kuttikalkk chharddi"),  # Malayalam: chillus are dead consonants
    ],
)
def test_every_indian_script_but_urdus_is_romanised_through_devanagari(text, expected):
    assert romanise_every_script(text) == expected


def test_every_script_romanisation_keeps_latin_devanagari_and_urdu_as_romanise_text_does():
    text = "खाना ठंडा था, khana thanda tha, کھانا ٹھنڈا تھا 🙁"
    assert romanise_every_script(text) == romanise_text(text)
    assert to_devanagari("کھانا ٹھنڈا") == "کھانا ٹھنڈا"


def test_letters_without_a_devanagari_twin_are_written_as_the_sound_they_make():
    assert to_devanagari("ൻ") == "न\u094d"  # Malayalam chillu n
    assert to_devanagari("ৎ") == "त\u094d"  # Bengali khanda ta
    assert to_devanagari("௧௨") == "१२"  # Tamil digits are Devanagari digits
