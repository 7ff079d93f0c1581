"""The concept lexicon (search.concepts, search.lexicon): real phrasings in each script find their concepts, the
spelling variants fold together, and short stems do not fire inside unrelated words (false friends)."""

from __future__ import annotations

import pytest

from mealwatch.search.concepts import BITS, concepts_of, fold
from mealwatch.search.lexicon import CONCEPTS

SCRIPTS = {"Devanagari": (0x900, 0x980), "Bengali": (0x980, 0xA00), "Gurmukhi": (0xA00, 0xA80),
           "Gujarati": (0xA80, 0xB00), "Odia": (0xB00, 0xB80), "Tamil": (0xB80, 0xC00), "Telugu": (0xC00, 0xC80),
           "Kannada": (0xC80, 0xD00), "Malayalam": (0xD00, 0xD80), "Arabic": (0x600, 0x700),
           "Latin": (0x61, 0x7B)}  # fmt: skip


def test_every_concept_is_written_in_every_script_and_fits_a_mask():
    assert len(BITS) <= 64
    for name, forms in CONCEPTS.items():
        have = {s for f in forms for s, (a, b) in SCRIPTS.items() if any(a <= ord(c) < b for c in f)}
        assert have == set(SCRIPTS), (name, set(SCRIPTS) - have)


@pytest.mark.parametrize("text, expected", [
    ("चावल में घुन लग गया है", {"insects", "rice"}),
    ("ಅನ್ನದಲ್ಲಿ ಹುಳುಗಳು ಇದ್ದವು", {"insects", "rice"}),
    ("সকালের দুধ কেটে গেছে", {"milk", "spoiled"}),
    ("ਰਸੋਈਆ ਤਿੰਨ ਦਿਨਾਂ ਤੋਂ ਨਹੀਂ ਆਇਆ", {"cook", "cook_absent"}),  # "a … b": words between
    ("காய்ச்சலால் மூன்று பேர் லீவு", {"fever"}),  # the stem without its virama takes the case ending
    ("bachhon ko ulti aur dast", {"vomiting", "diarrhoea"}),
    ("paani jaisi daal", {"watery", "dal"}),  # romanised long vowels: "pani jaisi dal"
    ("آج مڈ ڈے میل بند ہے", {"stopped"}),
    ("आज मिड डे मील बंद है", {"not_served", "stopped"}),
    ("ఈ నెల బియ్యం నాసిరకం", {"rice", "quality"}),
    ("हेडमास्टर हर बच्चे से पैसे मांगते हैं", {"money_asked"}),
    ("बासी खिचड़ी परोसी", {"leftover", "spoiled"}),
    ("ସାମ୍ବାରରେ ଅସରପା", {"cockroach", "insects"}),
    ("ଥାଳି ନାହିଁ, ଘରୁ ଆଣିବାକୁ ପଡୁଛି", {"utensils"}),
    ("ਸਕੂਲ ਵਿੱਚ ਪੀਣ ਵਾਲਾ ਪਾਣੀ ਨਹੀਂ", {"water", "not_given"}),
    ("ભોજન માટે આચાર્ય પૈસા માંગે છે", {"money_asked"}),
    ("ഭക്ഷണം കഴിച്ച കുട്ടികൾക്ക് ഛർദ്ദി", {"vomiting"}),
    ("દાળમાં લાંબો વાળ નીકળ્યો", {"dal", "hair"}),
])  # fmt: skip
def test_phrasings_find_their_concepts(text, expected):
    assert concepts_of(text) == expected


@pytest.mark.parametrize("typed, standard", [
    ("रजिस्टर में फर्जी हाजिरी", "रजिस्टर में फ़र्ज़ी हाज़िरी"),  # nukta
    ("काँच", "कांच"),  # chandrabindu, anusvara
    ("بيمار", "بیمار"),  # an Arabic keyboard's yeh
    ("പാല്\u200d", "പാൽ"),  # the chillu written with a joiner
    ("chhipkali keede", "chipkali kide"),  # romanised doubles
])  # fmt: skip
def test_spelling_variants_fold_together(typed, standard):
    assert fold(typed) == fold(standard)
    assert concepts_of(typed) == concepts_of(standard) != set()


@pytest.mark.parametrize("text, absent, present", [
    ("बालक बीमार", "hair", "sick"),  # बाल$: hair, not बालक (a boy)
    ("বাচ্চাটার চুলকানি হচ্ছে", "hair", "itching"),  # চুল$: hair, not চুলকানি (itching)
    ("बेचारे बच्चे भूखे रहे", "theft", "hunger"),  # बेच दे: sell, not बेचारा (poor thing)
    ("ಹುಳಿ ವಾಸನೆ ಬರುತ್ತಿತ್ತು", "insects", "spoiled"),  # ಹುಳ$: worms, not ಹುಳಿ (sour)
    ("சாப்பிட முடியல, காய்ச்சல்", "hair", "fever"),  # முடி$: hair, not முடியல (could not)
    ("raat ko ulti hui", "rats", "vomiting"),  # "raat" folds to "rat": rats need "rats", "dead rat", ...
    ("मीठा हलवा और दाल", "salt", "dal"),  # मीठ$ (Marathi salt), not मीठा (sweet)
    ("दस्तखत के बिना पेट दर्द का पर्चा", "diarrhoea", "stomach_ache"),  # दस्त$, not दस्तखत (signature)
    ("بیچ میں کھڑے بچوں کو بخار", "theft", "fever"),  # بیچ دی..., not بیچ میں (in the middle)
    ("ಬೈಕ್ ನಲ್ಲಿ ಬಂದು ಮೊಟ್ಟೆ ಕೊಟ್ಟರು", "beating", "eggs"),  # ಬೈದ (scolded), not ಬೈಕ್ (bike)
    ("खाना ले जाती है, भेदभाव नहीं", "theft", "caste"),  # caste forms never "जाती" (goes)
    ("പുഴുങ്ങിയ മുട്ട തന്നു", "insects", "eggs"),  # പുഴു$: worms, not പുഴുങ്ങിയ (boiled)
    ("a glass of milk every morning", "glass", "milk"),  # glass pieces, not a glass of milk
    ("later the children had fever", "late", "fever"),  # late$, not later
    ("the sweeper has no salary", "child_labour", "salary"),  # sweep$, not sweeper
    ("अंडों की पेटी आई", "stomach_ache", "eggs"),  # पेट$, not पेटी (a crate)
    ("রাঁধুনির ভাতা পাইনি", "rice", "salary"),  # ভাত$, not ভাতা (allowance)
    ("আমার বন্ধুর ছেলের জ্বর", "stopped", "fever"),  # বন্ধ$, not বন্ধু (friend)
    ("ग्रामीण लाइन में खड़े रहे, दूध नहीं", "stones", "milk"),  # Marathi खडे (pebbles) only in its phrases
    ("آلودہ پانی پینے کے بعد بخار", "vegetables", "fever"),  # آلو$ (potato), not آلودہ (polluted)
    ("the cook says the new gas cylinder will not come till monday", "cook_absent", "fuel"),  # at most 3 between
])  # fmt: skip
def test_false_friends_of_short_forms(text, absent, present):
    found = concepts_of(text)
    assert absent not in found and present in found, found
