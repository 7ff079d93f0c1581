"""How many children a complaint says were affected, read from its words in every language mealwatch identifies:
digits of any Indian script, number words of the twelve languages (in their scripts and as typed in Latin letters)
beside a word for children, and "all the children". No model is involved: the same text always gives the same
count.
"""

from __future__ import annotations

import re
import unicodedata

from .text import normalize

#: the children part of the triage key: a number named (at most ``MAX_CHILDREN``), or ``ALL_CHILDREN`` for "all"
MAX_CHILDREN, ALL_CHILDREN = 9_998, 9_999
_LETTER = r"[\w\u0900-\u0dff\u0600-\u06ff]"  # a letter, digit or Indic sign (a vowel sign is no \w)

#: words for children and pupils, by language; a word of the text counts when it starts with one of them (so that
#: the inflected forms of agglutinating languages — "குழந்தைகளுக்கு", "കുട്ടികൾക്ക്" — count too)
CHILD_STEMS: dict[str, tuple[str, ...]] = {
    "en": ("child", "kid", "student", "pupil", "boy", "girl"),
    "hi": ("baccha", "bachcha", "bacha", "bachche", "bacche", "bachhe", "bache", "bachchon", "bachon", "bacchon",
           "bachho", "bachcho", "bachchey", "bacchey", "chhatr", "chatr", "ladke", "ladki", "ladko", "बच्च", "बच्चि",
           "बालक", "बालिका", "छात्र", "विद्यार्थ", "लड़क", "लडक"),
    "mr": ("मुल", "मुलं", "विद्यार्थ", "mula", "mule", "muli", "mulanna", "vidyarth"),
    "bn": ("শিশু", "ছাত্র", "বাচ্চা", "ছেলেমেয়ে", "ছেলে", "মেয়ে", "পড়ুয়া", "শিক্ষার্থী", "bachcha", "bacha",
           "chhele", "chele", "chatro", "chhatro", "shishu", "porua", "meye"),
    "pa": ("ਬੱਚ", "ਬਚ", "ਵਿਦਿਆਰਥ", "ਨਿਆਣ", "ਜੁਆਕ", "bachian", "bachiyan", "bache", "bacche", "niane", "juak", "jawak"),
    "gu": ("બાળ", "વિદ્યાર્થ", "છોકર", "ભૂલકા", "balak", "balko", "baalko", "chhokr", "chokr", "vidyarth"),
    "or": ("ପିଲା", "ଛାତ୍ର", "ଶିଶୁ", "pila", "chhatra", "chatra", "sishu"),
    "ta": ("குழந்தை", "மாணவ", "பிள்ளை", "பசங்க", "சிறுவ", "சிறுமி", "kuzhandha", "kulandha", "kozhandha", "pasang",
           "pasanga", "pillainga", "manavar", "maanavar"),
    "te": ("పిల్ల", "విద్యార్థ", "చిన్నార", "pillal", "pilla", "vidyarth", "chinnar"),
    "kn": ("ಮಕ್ಕಳ", "ಮಗು", "ವಿದ್ಯಾರ್ಥಿ", "makkal", "magu", "vidyarth"),
    "ml": ("കുട്ടി", "വിദ്യാർത്ഥി", "വിദ്യാര്ത്ഥി", "kutti", "kuttikal", "kuttyol", "vidyarth"),
    "ur": ("بچ", "طلب", "طالب", "bachon", "bachay", "bachey", "talba", "talaba", "talib"),
}  # fmt: skip
#: number words, by language (native script and as typed in Latin letters) -> the number
NUMBER_WORDS_BY_LANGUAGE: dict[str, dict[str, int]] = {
    "en": {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
           "ten": 10, "eleven": 11, "twelve": 12, "dozen": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15,
           "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19, "twenty": 20, "thirty": 30, "forty": 40,
           "fifty": 50, "sixty": 60, "hundred": 100},
    "hi": {"ek": 1, "do": 2, "teen": 3, "tin": 3, "char": 4, "chaar": 4, "panch": 5, "paanch": 5, "chhe": 6,
           "chah": 6, "chhah": 6, "saat": 7, "aath": 8, "nau": 9, "das": 10, "dus": 10, "gyarah": 11, "barah": 12,
           "baarah": 12, "pandrah": 15, "bees": 20, "pachees": 25, "pachis": 25, "tees": 30, "chalis": 40,
           "chaalis": 40, "pachas": 50, "pachaas": 50, "sau": 100,
           "एक": 1, "दो": 2, "तीन": 3, "चार": 4, "पांच": 5, "पाँच": 5, "छह": 6, "छः": 6, "छे": 6, "सात": 7, "आठ": 8,
           "नौ": 9, "दस": 10, "ग्यारह": 11, "बारह": 12, "दर्जन": 12, "पंद्रह": 15, "पन्द्रह": 15, "बीस": 20,
           "पच्चीस": 25, "तीस": 30, "चालीस": 40, "पचास": 50, "सौ": 100},
    "mr": {"दोन": 2, "पाच": 5, "सहा": 6, "नऊ": 9, "दहा": 10, "अकरा": 11, "बारा": 12, "पंधरा": 15, "वीस": 20,
           "पंचवीस": 25, "चाळीस": 40, "पन्नास": 50, "शंभर": 100, "don": 2, "pach": 5, "saha": 6, "daha": 10,
           "bara": 12, "pandhra": 15, "vees": 20, "pannas": 50, "shambhar": 100},
    "bn": {"এক": 1, "দুই": 2, "দু": 2, "তিন": 3, "চার": 4, "পাঁচ": 5, "ছয়": 6, "সাত": 7, "আট": 8, "নয়": 9,
           "দশ": 10, "এগারো": 11, "বারো": 12, "পনেরো": 15, "কুড়ি": 20, "বিশ": 20, "পঁচিশ": 25,
           "তিরিশ": 30, "ত্রিশ": 30, "চল্লিশ": 40, "পঞ্চাশ": 50, "একশো": 100, "dui": 2, "charta": 4, "panch": 5,
           "chhoy": 6, "choy": 6, "sat": 7, "aat": 8, "noy": 9, "dosh": 10, "baro": 12, "ponero": 15, "kuri": 20,
           "bish": 20, "tirish": 30, "chollish": 40, "ponchash": 50, "eksho": 100},
    "pa": {"ਇੱਕ": 1, "ਇਕ": 1, "ਦੋ": 2, "ਤਿੰਨ": 3, "ਚਾਰ": 4, "ਪੰਜ": 5, "ਛੇ": 6, "ਸੱਤ": 7, "ਅੱਠ": 8, "ਨੌਂ": 9, "ਨੌ": 9,
           "ਦਸ": 10, "ਗਿਆਰਾਂ": 11, "ਬਾਰਾਂ": 12, "ਪੰਦਰਾਂ": 15, "ਵੀਹ": 20, "ਪੱਚੀ": 25, "ਤੀਹ": 30, "ਚਾਲੀ": 40,
           "ਪੰਜਾਹ": 50, "ਸੌ": 100, "ikk": 1, "ik": 1, "tinn": 3, "panj": 5, "satt": 7, "atth": 8, "baran": 12,
           "pandran": 15, "veeh": 20, "vih": 20, "teeh": 30, "chali": 40, "panjah": 50},
    "gu": {"એક": 1, "બે": 2, "ત્રણ": 3, "ચાર": 4, "પાંચ": 5, "છ": 6, "સાત": 7, "આઠ": 8, "નવ": 9, "દસ": 10, "દશ": 10,
           "અગિયાર": 11, "બાર": 12, "પંદર": 15, "વીસ": 20, "પચ્ચીસ": 25, "ત્રીસ": 30, "ચાલીસ": 40, "પચાસ": 50, "સો": 100,
           "tran": 3, "chha": 6, "nav": 9, "baar": 12, "pandar": 15, "vis": 20, "pachis": 25, "trees": 30},
    "or": {"ଗୋଟିଏ": 1, "ଏକ": 1, "ଦୁଇ": 2, "ତିନି": 3, "ଚାରି": 4, "ପାଞ୍ଚ": 5, "ଛଅ": 6, "ସାତ": 7, "ଆଠ": 8, "ନଅ": 9,
           "ଦଶ": 10, "ଏଗାର": 11, "ବାର": 12, "ପନ୍ଦର": 15, "କୋଡ଼ିଏ": 20, "କୋଡିଏ": 20, "ପଚିଶ": 25, "ତିରିଶ": 30,
           "ଚାଳିଶ": 40, "ପଚାଶ": 50, "ଶହେ": 100, "gotie": 1, "tini": 3, "chari": 4, "chha": 6, "sata": 7, "atha": 8,
           "dasa": 10, "pandara": 15, "kodie": 20, "tirisa": 30, "chalisa": 40, "pachasa": 50, "sahe": 100},
    "ta": {"ஒரு": 1, "ஒன்று": 1, "இரண்டு": 2, "ரெண்டு": 2, "இரு": 2, "மூன்று": 3, "மூணு": 3, "நான்கு": 4, "நாலு": 4,
           "ஐந்து": 5, "அஞ்சு": 5, "ஆறு": 6, "ஏழு": 7, "எட்டு": 8, "ஒன்பது": 9, "பத்து": 10, "பதினொன்று": 11,
           "பன்னிரண்டு": 12, "பதினைந்து": 15, "இருபது": 20, "முப்பது": 30, "நாற்பது": 40, "ஐம்பது": 50, "நூறு": 100,
           "onnu": 1, "rendu": 2, "moonu": 3, "munu": 3, "naalu": 4, "nalu": 4, "anju": 5, "aaru": 6, "ezhu": 7,
           "ettu": 8, "ombathu": 9, "pathu": 10, "paththu": 10, "panniranDu": 12, "pannendu": 12, "irubathu": 20,
           "irupathu": 20, "muppathu": 30, "aimbathu": 50, "nooru": 100},
    "te": {"ఒక": 1, "ఒకటి": 1, "ఇద్దరు": 2, "రెండు": 2, "ముగ్గురు": 3, "మూడు": 3, "నలుగురు": 4, "నాలుగు": 4,
           "ఐదుగురు": 5, "ఐదు": 5, "ఆరుగురు": 6, "ఆరు": 6, "ఏడుగురు": 7, "ఏడు": 7, "ఎనిమిది": 8, "తొమ్మిది": 9,
           "పది": 10, "పదిమంది": 10, "పన్నెండు": 12, "పదిహేను": 15, "ఇరవై": 20, "ముప్పై": 30, "నలభై": 40, "యాభై": 50,
           "వంద": 100, "okati": 1, "iddaru": 2, "muggaru": 3, "muguru": 3, "naluguru": 4, "aiduguru": 5, "aidu": 5,
           "aaruguru": 6, "enimidi": 8, "tommidi": 9, "padi": 10, "padimandi": 10, "pannendu": 12, "padihenu": 15,
           "iravai": 20, "muppai": 30, "yabhai": 50, "vanda": 100},
    "kn": {"ಒಂದು": 1, "ಒಬ್ಬ": 1, "ಎರಡು": 2, "ಇಬ್ಬರು": 2, "ಮೂರು": 3, "ಮೂವರು": 3, "ನಾಲ್ಕು": 4, "ನಾಲ್ವರು": 4, "ಐದು": 5,
           "ಐವರು": 5, "ಆರು": 6, "ಏಳು": 7, "ಎಂಟು": 8, "ಒಂಬತ್ತು": 9, "ಹತ್ತು": 10, "ಹನ್ನೆರಡು": 12, "ಹದಿನೈದು": 15,
           "ಇಪ್ಪತ್ತು": 20, "ಮೂವತ್ತು": 30, "ನಲವತ್ತು": 40, "ಐವತ್ತು": 50, "ನೂರು": 100, "ondu": 1, "eradu": 2,
           "ibbaru": 2, "mooru": 3, "moovaru": 3, "naalku": 4, "aidu": 5, "aaru": 6, "elu": 7, "entu": 8,
           "ombattu": 9, "hattu": 10, "hanneradu": 12, "hadinaidu": 15, "ippattu": 20, "moovattu": 30, "aivattu": 50,
           "nooru": 100},
    "ml": {"ഒരു": 1, "ഒന്ന്": 1, "രണ്ട്": 2, "രണ്ടു": 2, "മൂന്ന്": 3, "മൂന്നു": 3, "നാല്": 4, "നാലു": 4, "അഞ്ച്": 5,
           "അഞ്ചു": 5, "ആറ്": 6, "ആറു": 6, "ഏഴ്": 7, "എട്ട്": 8, "ഒമ്പത്": 9, "ഒൻപത്": 9, "പത്ത്": 10, "പത്തു": 10,
           "പന്ത്രണ്ട്": 12, "പതിനഞ്ച്": 15, "ഇരുപത്": 20, "മുപ്പത്": 30, "നാൽപത്": 40, "അമ്പത്": 50, "നൂറ്": 100,
           "randu": 2, "moonnu": 3, "anchu": 5, "aaru": 6, "ezhu": 7, "ettu": 8, "ombathu": 9, "pathu": 10,
           "panthrandu": 12, "pathinanchu": 15, "irupathu": 20, "muppathu": 30, "ambathu": 50, "nooru": 100},
    "ur": {"ایک": 1, "دو": 2, "تین": 3, "چار": 4, "پانچ": 5, "چھ": 6, "سات": 7, "آٹھ": 8, "نو": 9, "دس": 10,
           "گیارہ": 11, "بارہ": 12, "پندرہ": 15, "بیس": 20, "پچیس": 25, "تیس": 30, "چالیس": 40, "پچاس": 50, "سو": 100,
           "paanch": 5, "chay": 6, "barah": 12, "pandrah": 15, "chalees": 40},
}  # fmt: skip
#: "all the children", in every language (a phrase of the folded text)
ALL_CHILDREN_PHRASES = (
    "all children", "all the children", "all students", "all the students", "all kids", "sabhi bachch", "sab bachch",
    "saare bachch", "sare bachch", "सभी बच्च", "सब बच्च", "सारे बच्च", "सर्व मुल", "सगळी मुल", "সব বাচ্চা", "সকল ছাত্র",
    "সব ছাত্র", "ਸਾਰੇ ਬੱਚ", "બધા બાળ", "બધાં બાળ", "ସମସ୍ତ ପିଲା", "ସବୁ ପିଲା", "எல்லா குழந்தை", "அனைத்து குழந்தை",
    "அனைத்து மாணவ", "எல்லா மாணவ", "అందరు పిల్ల", "పిల్లలందరూ", "ಎಲ್ಲಾ ಮಕ್ಕಳ", "ಎಲ್ಲ ಮಕ್ಕಳ", "എല്ലാ കുട്ടി",
    "സബ് ബച്ച", "تمام بچ", "سب بچ", "sab bache", "sare bache", "ellam pasanga", "ella pasanga", "ella kuzhandha",
    "andaru pillal", "ella makkal", "ellaa makkal", "ella kuttikal", "sob bachcha", "sare bachian", "badha balko",
    "sabu pila", "samasta pila",
)  # fmt: skip
#: words for a school class: a number beside one is a class ("class 5 children", "5ஆம் வகுப்பு"), not a count
CLASS_WORDS = (
    "class", "std", "standard", "grade", "kaksha", "कक्षा", "क्लास", "इयत्ता", "वर्ग", "শ্রেণি", "শ্রেণী", "ক্লাস", "ਜਮਾਤ",
    "ਕਲਾਸ", "ધોરણ", "ଶ୍ରେଣୀ", "வகுப்பு", "வகுப்பில்", "తరగతి", "ತರಗತಿ", "ക്ലാസ്", "ക്ലാസിലെ", "جماعت", "کلاس",
    "vaguppu", "taragati", "taragathi", "dhoran", "jamaat",
)  # fmt: skip
#: how many words after a number its children word may stand ("12 জন ছাত্র", "five small children")
NUMBER_WINDOW = 3
NUMBER_WORDS: dict[str, int] = {}
for _words in NUMBER_WORDS_BY_LANGUAGE.values():
    for _word, _n in _words.items():
        NUMBER_WORDS.setdefault(normalize(_word), _n)
_CHILD_STEMS = tuple(sorted({normalize(s) for stems in CHILD_STEMS.values() for s in stems}, key=len, reverse=True))
_ALL_CHILDREN = tuple(normalize(p) for p in ALL_CHILDREN_PHRASES)
_CLASS_WORDS = frozenset(normalize(w) for w in CLASS_WORDS)
_WORD = re.compile(rf"{_LETTER}+")


def _number(word: str) -> int | None:
    """The number a word says: leading digits of any script ("12", "১২টি", "12-க்கும்"), or a number word."""
    digits = ""
    for ch in word:
        if not ch.isdigit():
            break
        digits += str(unicodedata.digit(ch))
    if digits:
        return int(digits) if len(digits) <= 4 else None
    return NUMBER_WORDS.get(word)


def _is_child_word(word: str) -> bool:
    return word.startswith(_CHILD_STEMS)


def children_named(text: str) -> int:
    """The most children ``text`` says a number of ("12 children", "teen bachche", "பன்னிரண்டு குழந்தைகள்",
    "১২ জন ছাত্র"), ``ALL_CHILDREN`` for "all the children" without a larger number, 0 for none."""
    folded = normalize(text)
    words = _WORD.findall(folded)
    found = []
    for i, word in enumerate(words):
        n = _number(word)
        if n is None or n <= 0 or _CLASS_WORDS & set(words[max(0, i - 1) : i + 2]):
            continue
        after = words[i + 1 : i + 1 + NUMBER_WINDOW]
        before = words[max(0, i - 1) : i]  # "குழந்தைகள் 12 பேர்", "bachche 12"
        if any(_is_child_word(w) for w in after) or any(_is_child_word(w) for w in before):
            found.append(n)
    if found:
        return min(max(found), MAX_CHILDREN)
    return ALL_CHILDREN if any(p in folded for p in _ALL_CHILDREN) else 0


def children_text(children: int) -> str | None:
    """How the page names the children part of a key: "12", "all", or None for none named."""
    if children <= 0:
        return None
    return "all" if children == ALL_CHILDREN else str(children)
