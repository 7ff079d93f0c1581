"""How many children a complaint says were affected, read from its words in every language mealwatch identifies:
digits of any Indian script and number words of the twelve languages (in their scripts and as typed in Latin
letters), with a word for children, a person classifier ("১২ জন", "పది మంది", "8 பேருக்கு") or an "affected"
word ("3 ko ulti", "two in hospital") beside them, and "all the children". No model is involved: the same text
always gives the same count.

The rules follow the annotators' guide: the number of affected children; of two numbers, the larger; a child
named beside a number of others counts too ("my son and 3 friends" is 4, "Rinki and eleven others" 12); ages,
classes, dates, times, money, weights and a school's strength ("out of 40", "on the register") are no count.
"""

from __future__ import annotations

import re
import unicodedata

from .text import normalize

#: the children part of the triage key: a number named (at most ``MAX_CHILDREN``), or ``ALL_CHILDREN`` for "all"
MAX_CHILDREN, ALL_CHILDREN = 9_998, 9_999
_LETTER = r"[\w\u0900-\u0dff\u0600-\u06ff]"  # a letter, digit or Indic sign (a vowel sign is no \w)

#: words for children and pupils (and a family's children: son, daughter), by language; a word of the text counts
#: when it starts with one of them (so that the inflected forms of agglutinating languages — "குழந்தைகளுக்கு",
#: "കുട്ടികൾക്ക്" — count too)
CHILD_STEMS: dict[str, tuple[str, ...]] = {
    "en": ("child", "kid", "student", "pupil", "boy", "girl", "son", "daughter", "schoolchild", "little ones",
           "sibling", "twin", "nephew", "niece", "grandson", "granddaughter"),
    "hi": ("baccha", "bachcha", "bacha", "bachche", "bacche", "bachhe", "bache", "bachchon", "bachon", "bacchon",
           "bachho", "bachcho", "bachchey", "bacchey", "bacho", "bachi", "bacchi", "bachh", "chhatr", "chatr",
           "ladke", "ladki", "ladko", "beta", "bete", "beti", "bhatij", "बच्च", "बच्चि", "बचच", "बालक", "बालिका",
           "छात्र", "विद्यार्थ", "लड़क", "लडक", "बेटा", "बेटे", "बेटी", "बेटिय", "भांज", "भतीज"),
    "mr": ("मुल", "मुलं", "मुलां", "पोर", "लेकर", "विद्यार्थ", "mula", "mule", "muli", "mulanna", "vidyarth",
           "pora", "pore", "poranna"),
    "bn": ("শিশু", "ছাত্র", "বাচ্চা", "ছেলেমেয়ে", "ছেলে", "মেয়ে", "পড়ুয়া", "শিক্ষার্থী", "পোলাপান", "পোলা", "ছানা",
           "ছাত্রী", "bachcha", "bacha", "chhele", "chele", "chatro", "chhatro", "chhatrachhatri", "shishu", "porua",
           "meye", "polapan", "fuwa"),
    "pa": ("ਬੱਚ", "ਬਚ", "ਵਿਦਿਆਰਥ", "ਨਿਆਣ", "ਜੁਆਕ", "ਜਵਾਕ", "ਮੁੰਡ", "ਕੁੜੀ", "bachian", "bachiyan", "bache", "bacche",
           "niane", "juak", "jawak", "jwak", "munde", "kudiyan", "kuriyan"),
    "gu": ("બાળ", "વિદ્યાર્થ", "છોકર", "ભૂલકા", "દીકર", "છાત્ર", "ભાણેજ", "balak", "balko", "baalko", "chhokr",
           "chokr", "vidyarth", "bhulka"),
    "or": ("ପିଲା", "ଛାତ୍ର", "ଶିଶୁ", "ଛୁଆ", "pila", "chhatra", "chatra", "sishu", "chhua"),
    "ta": ("குழந்தை", "மாணவ", "பிள்ளை", "பொண்ணு", "பையன்", "பசங்", "பசங்க", "சிறுவ", "சிறுமி", "kuzhandha",
           "kulandha", "kozhandha", "pasang",
           "pasanga", "pillainga", "manavar", "maanavar", "kuzhanthai", "kulanthai"),
    "te": ("పిల్ల", "విద్యార్థ", "చిన్నార", "pillal", "pilla", "vidyarth", "chinnar"),
    "kn": ("ಮಕ್ಕಳ", "ಮಕ್ಳ", "ಮಗು", "ಮಗಳ", "ಮಗನ", "ಕೂಸು", "ಹುಡುಗೂರ", "ವಿದ್ಯಾರ್ಥಿ", "ಹುಡುಗ", "makkal",
           "makkalu", "magu", "vidyarth", "hudug"),
    "ml": ("കുട്ടി", "വിദ്യാർത്ഥി", "വിദ്യാര്ത്ഥി", "പിള്ളേ", "കുഞ്ഞ", "മകൾ", "മകന", "kutti", "kuttikal", "kuttyol", "vidyarth",
           "pillerr"),
    "ur": ("بچ", "طلب", "طالب", "bachon", "bachay", "bachey", "talba", "talaba", "talib"),
}  # fmt: skip


def _series(words: str, start: int = 1) -> dict[str, int]:
    """Number words given in order ("one two three ..."), each to its number from ``start``; a word may give
    spellings of one number joined by "/" ("पांच/पाँच")."""
    return {spelling: n for n, word in enumerate(words.split(), start) for spelling in word.split("/")}


#: number words, by language (native script and as typed in Latin letters) -> the number
NUMBER_WORDS_BY_LANGUAGE: dict[str, dict[str, int]] = {
    "en": _series("one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
                  "seventeen eighteen nineteen twenty")
          | {"thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90,
             "hundred": 100, "dozen": 12, "both": 2, "twins": 2},
    "hi": _series("एक दो तीन चार पांच/पाँच छह/छः/छे/छै सात आठ नौ दस ग्यारह बारह तेरह चौदह पंद्रह/पन्द्रह सोलह सत्रह अठारह "
                  "उन्नीस बीस इक्कीस बाईस तेईस चौबीस पच्चीस छब्बीस सत्ताईस अट्ठाईस/अठ्ठाईस उनतीस तीस इकतीस बत्तीस "
                  "तैंतीस चौंतीस पैंतीस छत्तीस सैंतीस अड़तीस उनतालीस चालीस इकतालीस बयालीस तैंतालीस चौवालीस पैंतालीस "
                  "छियालीस सैंतालीस अड़तालीस उनचास पचास इक्यावन बावन तिरपन चौवन पचपन छप्पन सत्तावन अट्ठावन/अठ्ठावन "
                  "उनसठ साठ इकसठ बासठ तिरसठ चौंसठ पैंसठ छियासठ सड़सठ अड़सठ उनहत्तर सत्तर इकहत्तर बहत्तर तिहत्तर "
                  "चौहत्तर पचहत्तर छिहत्तर सतहत्तर अठहत्तर उन्यासी अस्सी इक्यासी बयासी तिरासी चौरासी पचासी छियासी "
                  "सत्तासी अट्ठासी नवासी नब्बे इक्यानबे बानबे तिरानबे चौरानबे पचानबे छियानबे सत्तानबे अट्ठानबे "
                  "निन्यानबे सौ")
          | _series("ek do teen/tin char/chaar panch/paanch/paanc chhe/chah/chhah/che saat/sat aath/aat nau "
                    "das/dus gyarah/gyara barah/baarah/bara terah/tera chaudah/chauda pandrah/pandra solah/sola "
                    "satrah/satra atharah/athara unnis/unees bees/bis ikkis bais teis chaubis/chobis "
                    "pachees/pachis/pachchis chhabbis/chabbis sattais atthais untis tees/tis")
          | {"चालीस": 40, "chalis": 40, "chaalis": 40, "pachas": 50, "pachaas": 50, "saath": 60, "sattar": 70,
             "assi": 80, "nabbe": 90, "sau": 100, "dedh": 150, "dhai": 250, "डेढ़": 150, "ढाई": 250, "दर्जन": 12,
             "darjan": 12, "दोनों": 2, "दोनो": 2, "dono": 2, "donon": 2, "तीनों": 3, "teeno": 3, "teenon": 3,
             "चारों": 4, "charo": 4},
    "mr": _series("एक दोन तीन चार पाच सहा सात आठ नऊ दहा अकरा बारा तेरा चौदा पंधरा सोळा सतरा अठरा एकोणीस वीस एकवीस "
                  "बावीस तेवीस चोवीस पंचवीस सव्वीस सत्तावीस अठ्ठावीस/अठ्ठावीस एकोणतीस तीस एकतीस बत्तीस तेहतीस "
                  "चौतीस पस्तीस छत्तीस सदतीस अडतीस एकोणचाळीस चाळीस एक्केचाळीस बेचाळीस त्रेचाळीस चव्वेचाळीस "
                  "पंचेचाळीस सेहेचाळीस सत्तेचाळीस अठ्ठेचाळीस एकोणपन्नास पन्नास एक्कावन्न बावन्न त्रेपन्न चोपन्न "
                  "पंचावन्न छप्पन्न सत्तावन्न अठ्ठावन्न एकोणसाठ साठ एकसष्ट बासष्ट त्रेसष्ट चौसष्ट पासष्ट सहासष्ट "
                  "सदुसष्ट अडुसष्ट एकोणसत्तर सत्तर")
          | {"ऐंशी": 80, "नव्वद": 90, "शंभर": 100, "दीडशे": 150, "दोनशे": 200, "अडीचशे": 250, "तीनशे": 300,
             "don": 2, "pach": 5, "saha": 6, "daha": 10, "akra": 11, "bara": 12, "pandhra": 15, "vees": 20,
             "pannas": 50, "shambhar": 100, "दोघे": 2, "दोघं": 2, "दोघी": 2, "तिघे": 3, "तिघं": 3, "तिघी": 3,
             "चौघे": 4, "चौघं": 4, "पाचही": 5, "doghe": 2, "tighe": 3},
    "bn": _series("এক দুই তিন চার পাঁচ ছয় সাত আট নয় দশ এগারো বারো তেরো চোদ্দ/চৌদ্দ পনেরো ষোলো/ষোল সতেরো আঠারো উনিশ "
                  "কুড়ি/বিশ একুশ বাইশ তেইশ চব্বিশ পঁচিশ ছাব্বিশ সাতাশ আঠাশ উনত্রিশ ত্রিশ/তিরিশ একত্রিশ বত্রিশ "
                  "তেত্রিশ চৌত্রিশ পঁয়ত্রিশ ছত্রিশ সাঁইত্রিশ আটত্রিশ উনচল্লিশ চল্লিশ একচল্লিশ বিয়াল্লিশ তেতাল্লিশ "
                  "চুয়াল্লিশ পঁয়তাল্লিশ ছেচল্লিশ সাতচল্লিশ আটচল্লিশ উনপঞ্চাশ পঞ্চাশ একান্ন বাহান্ন তিপ্পান্ন চুয়ান্ন "
                  "পঞ্চান্ন ছাপ্পান্ন সাতান্ন আটান্ন উনষাট ষাট একষট্টি বাষট্টি তেষট্টি চৌষট্টি পঁয়ষট্টি ছেষট্টি "
                  "সাতষট্টি আটষট্টি উনসত্তর সত্তর একাত্তর বাহাত্তর তিয়াত্তর চুয়াত্তর পঁচাত্তর ছিয়াত্তর সাতাত্তর "
                  "আটাত্তর উনআশি আশি একাশি বিরাশি তিরাশি চুরাশি পঁচাশি ছিয়াশি সাতাশি অষ্টআশি উননব্বই নব্বই")
          | {"দু": 2, "দুটো": 2, "ছ": 6, "ন": 9, "চাইর": 4, "একশো": 100, "একশ": 100, "শো": 100, "দেড়শো": 150,
             "আড়াইশো": 250, "দুশো": 200, "এক ডজন": 12, "ডজন": 12,
             "ek": 1, "dui": 2, "du": 2, "tin": 3, "char": 4, "charta": 4, "panch": 5, "chhoy": 6, "choy": 6,
             "aat": 8, "noy": 9, "dosh": 10, "egaro": 11, "baro": 12, "tero": 13, "choddo": 14, "ponero": 15,
             "sholo": 16, "kuri": 20, "bish": 20, "tirish": 30, "chollish": 40, "ponchash": 50, "eksho": 100,
             "dujon": 2, "tinjon": 3},
    "pa": _series("ਇੱਕ/ਇਕ ਦੋ ਤਿੰਨ ਚਾਰ ਪੰਜ ਛੇ ਸੱਤ ਅੱਠ ਨੌਂ/ਨੌ ਦਸ ਗਿਆਰਾਂ ਬਾਰਾਂ ਤੇਰਾਂ ਚੌਦਾਂ ਪੰਦਰਾਂ ਸੋਲ਼ਾਂ/ਸੋਲਾਂ ਸਤਾਰਾਂ "
                  "ਅਠਾਰਾਂ ਉੱਨੀ ਵੀਹ ਇੱਕੀ ਬਾਈ ਤੇਈ ਚੌਵੀ ਪੱਚੀ ਛੱਬੀ ਸਤਾਈ ਅਠਾਈ ਉਣੱਤੀ ਤੀਹ ਇਕੱਤੀ ਬੱਤੀ ਤੇਤੀ ਚੌਂਤੀ ਪੈਂਤੀ "
                  "ਛੱਤੀ ਸੈਂਤੀ ਅਠੱਤੀ ਉਣਤਾਲੀ ਚਾਲੀ ਇਕਤਾਲੀ ਬਿਆਲੀ ਤਿਰਤਾਲੀ ਚੁਤਾਲੀ ਪੰਜਤਾਲੀ ਛਿਆਲੀ ਸੰਤਾਲੀ ਅਠਤਾਲੀ ਉਣੰਜਾ "
                  "ਪੰਜਾਹ ਇਕਵੰਜਾ ਬਵੰਜਾ ਤਰਵੰਜਾ ਚਰਵੰਜਾ ਪਚਵੰਜਾ ਛਪੰਜਾ ਸਤਵੰਜਾ ਅਠਵੰਜਾ ਉਣਾਠ ਸੱਠ")
          | {"ਸੱਤਰ": 70, "ਅੱਸੀ": 80, "ਨੱਬੇ": 90, "ਸੌ": 100, "ਦੋਵੇਂ": 2, "ਦੋਨੋਂ": 2, "ਤਿੰਨੇ": 3,
             "ikk": 1, "ik": 1, "tinn": 3, "panj": 5, "satt": 7, "atth": 8, "gyaran": 11, "baran": 12,
             "pandran": 15, "veeh": 20, "vih": 20, "teeh": 30, "chali": 40, "panjah": 50, "sath": 60,
             "dove": 2, "doven": 2},
    "gu": _series("એક બે ત્રણ ચાર પાંચ છ સાત આઠ નવ દસ/દશ અગિયાર બાર તેર ચૌદ પંદર સોળ સત્તર અઢાર ઓગણીસ વીસ એકવીસ "
                  "બાવીસ તેવીસ ચોવીસ પચ્ચીસ છવ્વીસ સત્તાવીસ અઠ્ઠાવીસ ઓગણત્રીસ ત્રીસ એકત્રીસ બત્રીસ તેત્રીસ ચોત્રીસ "
                  "પાંત્રીસ છત્રીસ સાડત્રીસ આડત્રીસ ઓગણચાલીસ ચાલીસ એકતાલીસ બેતાલીસ તેતાલીસ ચુંમાલીસ પિસ્તાલીસ "
                  "છેતાલીસ સુડતાલીસ અડતાલીસ ઓગણપચાસ પચાસ એકાવન બાવન ત્રેપન ચોપન પંચાવન છપ્પન સત્તાવન અઠ્ઠાવન "
                  "ઓગણસાઠ સાઠ")
          | {"સિત્તેર": 70, "એંસી": 80, "નેવું": 90, "સો": 100, "દોઢસો": 150, "બસો": 200, "બંને": 2, "બન્ને": 2,
             "ત્રણેય": 3, "બેઉ": 2, "બેય": 2, "ચારેય": 4, "પાંચેય": 5,
             "ek": 1, "be": 2, "tran": 3, "char": 4, "panch": 5, "chha": 6, "saat": 7, "aath": 8,
             "nav": 9, "das": 10, "agiyar": 11, "baar": 12, "pandar": 15, "vis": 20, "pachis": 25, "trees": 30,
             "chalis": 40, "pachas": 50, "banne": 2},
    "or": _series("ଏକ ଦୁଇ ତିନି ଚାରି ପାଞ୍ଚ ଛଅ ସାତ ଆଠ ନଅ ଦଶ ଏଗାର ବାର ତେର ଚଉଦ ପନ୍ଦର ଷୋହଳ ସତର ଅଠର ଊଣେଇଶି କୋଡ଼ିଏ/କୋଡିଏ "
                  "ଏକୋଇଶି ବାଇଶି ତେଇଶି ଚବିଶି ପଚିଶି ଛବିଶି ସତାଇଶି ଅଠାଇଶି ଅଣତିରିଶି ତିରିଶି")
          | {"ଗୋଟିଏ": 1, "ଗୋଟେ": 1, "ଜଣେ": 1, "ଦିଜଣ": 2, "ଚାଳିଶ": 40, "ଚାଳିଶି": 40, "ପଚାଶ": 50, "ଷାଠିଏ": 60,
             "ସତୁରି": 70, "ଅଶୀ": 80, "ନବେ": 90, "ଶହେ": 100, "ତିରିଶ": 30, "ପଚିଶ": 25, "ବାଇଶ": 22,
             "gotie": 1, "gote": 1, "dui": 2, "tini": 3, "chari": 4, "pancha": 5, "chha": 6, "sata": 7, "atha": 8,
             "na": 9, "dasa": 10, "egara": 11, "bara": 12, "pandara": 15, "kodie": 20, "tirisa": 30,
             "chalisa": 40, "pachasa": 50, "sahe": 100},
    "ta": _series("ஒன்று இரண்டு மூன்று நான்கு ஐந்து ஆறு ஏழு எட்டு ஒன்பது பத்து பதினொன்று பன்னிரண்டு பதின்மூன்று "
                  "பதினான்கு பதினைந்து பதினாறு பதினேழு பதினெட்டு பத்தொன்பது இருபது")
          | {"ஒரு": 1, "ஒண்ணு": 1, "ஒருவர்": 1, "ஒருத்தர்": 1, "ஒருவன்": 1, "ஒருத்தி": 1, "ரெண்டு": 2, "இரு": 2,
             "இருவர்": 2, "மூணு": 3, "மூவர்": 3, "நாலு": 4, "நால்வர்": 4, "அஞ்சு": 5, "ஐவர்": 5, "பதினொரு": 11, "பதினோரு": 11,
             "பன்னெண்டு": 12, "பதிமூணு": 13, "பதினாலு": 14, "பதினஞ்சு": 15, "இருவது": 20, "இருபத்தி": 20,
             "இருபத்து": 20, "முப்பது": 30, "முப்பத்தி": 30, "நாற்பது": 40, "நாப்பது": 40, "ஐம்பது": 50,
             "அம்பது": 50, "அறுபது": 60, "எழுபது": 70, "எண்பது": 80, "தொண்ணூறு": 90, "நூறு": 100, "நூத்தி": 100,
             "நூற்றி": 100, "நூற்றைம்பது": 150,
             "onnu": 1, "oru": 1, "rendu": 2, "moonu": 3, "munu": 3, "naalu": 4, "nalu": 4, "anju": 5, "aaru": 6,
             "ezhu": 7, "ettu": 8, "ombathu": 9, "pathu": 10, "paththu": 10, "pathinonnu": 11, "pannendu": 12,
             "pathimoonu": 13, "pathinaalu": 14, "pathinanju": 15, "irubathu": 20, "irupathu": 20, "iruvathu": 20,
             "muppathu": 30, "naapathu": 40, "aimbathu": 50, "ambathu": 50, "nooru": 100},
    "te": _series("ఒకటి రెండు మూడు నాలుగు ఐదు ఆరు ఏడు ఎనిమిది తొమ్మిది పది పదకొండు పన్నెండు పదమూడు పద్నాలుగు "
                  "పదిహేను పదహారు పదిహేడు పద్దెనిమిది పంతొమ్మిది")
          | {"ఒక": 1, "ఒకరు": 1, "ఒకడు": 1, "ఒకామె": 1, "ఇద్దరు": 2, "ముగ్గురు": 3, "నలుగురు": 4, "ఐదుగురు": 5,
             "ఆరుగురు": 6, "ఏడుగురు": 7, "ఇరవై": 20, "ముప్పై": 30, "నలభై": 40, "యాభై": 50, "అరవై": 60,
             "డెబ్బై": 70, "ఎనభై": 80, "తొంభై": 90, "వంద": 100, "వందల": 100, "పదిమంది": 10,
             "okati": 1, "okaru": 1, "okadu": 1, "rendu": 2, "iddaru": 2, "moodu": 3, "mudu": 3, "muggaru": 3,
             "mugguru": 3, "muguru": 3, "nalugu": 4, "naalugu": 4, "naluguru": 4, "aidu": 5, "aiduguru": 5,
             "aaru": 6, "aaruguru": 6, "aruguru": 6, "edu": 7, "eduguru": 7, "enimidi": 8, "tommidi": 9,
             "padi": 10, "padimandi": 10, "padakondu": 11, "pannendu": 12, "padamudu": 13, "padnalugu": 14,
             "padihenu": 15, "padaharu": 16, "padihedu": 17, "paddenimidi": 18, "pantommidi": 19, "iravai": 20,
             "muppai": 30, "nalabhai": 40, "yabhai": 50, "yabai": 50, "aravai": 60, "debbai": 70, "vanda": 100},
    "kn": _series("ಒಂದು ಎರಡು ಮೂರು ನಾಲ್ಕು ಐದು ಆರು ಏಳು ಎಂಟು ಒಂಬತ್ತು ಹತ್ತು ಹನ್ನೊಂದು ಹನ್ನೆರಡು ಹದಿಮೂರು ಹದಿನಾಲ್ಕು "
                  "ಹದಿನೈದು ಹದಿನಾರು ಹದಿನೇಳು ಹದಿನೆಂಟು ಹತ್ತೊಂಬತ್ತು ಇಪ್ಪತ್ತು")
          | {"ಒಬ್ಬ": 1, "ಒಬ್ಬಳು": 1, "ಒಬ್ಬರು": 1, "ಇಬ್ಬರು": 2, "ಮೂವರು": 3, "ನಾಲ್ವರು": 4, "ಐವರು": 5, "ಮೂವತ್ತು": 30,
             "ನಲವತ್ತು": 40, "ಐವತ್ತು": 50, "ಅರವತ್ತು": 60, "ಎಪ್ಪತ್ತು": 70, "ಎಂಬತ್ತು": 80, "ತೊಂಬತ್ತು": 90,
             "ನೂರು": 100, "ನೂರಾ": 100,
             "ondu": 1, "obba": 1, "eradu": 2, "ibbaru": 2, "mooru": 3, "moovaru": 3, "naalku": 4, "nalku": 4,
             "naalvaru": 4, "aidu": 5, "aivaru": 5, "aaru": 6, "elu": 7, "entu": 8, "ombattu": 9, "hattu": 10,
             "hannondu": 11, "hanneradu": 12, "hadimooru": 13, "hadinalku": 14, "hadinaidu": 15, "hadinaaru": 16,
             "hadinelu": 17, "hadinentu": 18, "ippattu": 20, "moovattu": 30, "nalavattu": 40, "aivattu": 50,
             "nooru": 100},
    "ml": _series("ഒന്ന് രണ്ട് മൂന്ന് നാല് അഞ്ച് ആറ് ഏഴ് എട്ട് ഒമ്പത് പത്ത് പതിനൊന്ന് പന്ത്രണ്ട് പതിമൂന്ന് പതിനാല് "
                  "പതിനഞ്ച് പതിനാറ് പതിനേഴ് പതിനെട്ട് പത്തൊമ്പത് ഇരുപത്")
          | {"ഒരു": 1, "ഒരാൾ": 1, "രണ്ടു": 2, "മൂന്നു": 3, "നാലു": 4, "അഞ്ചു": 5, "ആറു": 6, "ഏഴു": 7, "എട്ടു": 8,
             "ഒൻപത്": 9, "പത്തു": 10, "രണ്ടുപേർ": 2, "ഇരുവരും": 2, "മുപ്പത്": 30, "നാൽപത്": 40, "നാല്പത്": 40,
             "അമ്പത്": 50, "അറുപത്": 60, "എഴുപത്": 70, "എൺപത്": 80, "തൊണ്ണൂറ്": 90, "നൂറ്": 100, "നൂറു": 100,
             "onnu": 1, "oru": 1, "randu": 2, "moonnu": 3, "moonu": 3, "naalu": 4, "anchu": 5, "aaru": 6,
             "ezhu": 7, "ettu": 8, "ombathu": 9, "pathu": 10, "pathinonnu": 11, "panthrandu": 12,
             "pathinanchu": 15, "irupathu": 20, "muppathu": 30, "ambathu": 50, "nooru": 100},
    "ur": _series("ایک دو تین چار پانچ چھ/چھے سات آٹھ نو دس گیارہ بارہ تیرہ چودہ پندرہ سولہ سترہ اٹھارہ انیس بیس اکیس "
                  "بائیس تئیس چوبیس پچیس چھبیس ستائیس اٹھائیس انتیس تیس")
          | {"چالیس": 40, "پچاس": 50, "پچپن": 55, "ساٹھ": 60, "ستر": 70, "اسی": 80, "نوے": 90, "سو": 100,
             "درجن": 12, "دونوں": 2, "تینوں": 3, "ek": 1, "teen": 3, "paanch": 5, "chay": 6, "chhe": 6,
             "saat": 7, "das": 10, "barah": 12, "pandrah": 15, "bees": 20, "chalees": 40, "pachaas": 50},
}  # fmt: skip
#: tens written glued to the units that follow them ("ಇಪ್ಪತ್ತೈದು", "முப்பத்தஞ்சு", "ഇരുപത്തിയെട്ട്"): the stem of
#: each tens word and the spellings of the units after it
COMPOUND_TENS: dict[str, int] = {
    "ಇಪ್ಪತ್ತ": 20, "ಮೂವತ್ತ": 30, "ನಲವತ್ತ": 40, "ಐವತ್ತ": 50, "ಅರವತ್ತ": 60, "ಎಪ್ಪತ್ತ": 70, "ಎಂಬತ್ತ": 80, "ತೊಂಬತ್ತ": 90,
    "இருபத்": 20, "முப்பத்": 30, "நாற்பத்": 40, "நாப்பத்": 40, "ஐம்பத்": 50, "அம்பத்": 50, "அறுபத்": 60,
    "எழுபத்": 70, "எண்பத்": 80, "ഇരുപത്തി": 20, "മുപ്പത്തി": 30, "നാൽപത്തി": 40, "നാല്പത്തി": 40, "അമ്പത്തി": 50,
    "അറുപത്തി": 60, "എഴുപത്തി": 70, "എൺപത്തി": 80, "ఇరవై": 20, "ముప్పై": 30, "నలభై": 40, "యాభై": 50,
    "iravai": 20, "muppai": 30, "ippatt": 20, "moovatt": 30, "irupath": 20, "muppath": 30,
}  # fmt: skip
COMPOUND_UNITS: dict[str, int] = {
    "ೊಂದು": 1, "ೆರಡು": 2, "ಮೂರು": 3, "ನಾಲ್ಕು": 4, "ೈದು": 5, "ಾರು": 6, "ೇಳು": 7, "ೆಂಟು": 8, "ೊಂಬತ್ತು": 9,
    "தொன்று": 1, "தொரு": 1, "திரண்டு": 2, "திரெண்டு": 2, "துமூன்று": 3, "திமூணு": 3, "துநான்கு": 4, "திநாலு": 4,
    "தைந்து": 5, "தஞ்சு": 5, "தாறு": 6, "தேழு": 7, "தெட்டு": 8, "தொன்பது": 9,
    "യൊന്ന്": 1, "ഒന്ന്": 1, "രണ്ട്": 2, "രണ്ടു": 2, "മൂന്ന്": 3, "മൂന്നു": 3, "നാല്": 4, "നാലു": 4, "യഞ്ച്": 5,
    "യഞ്ചു": 5, "യാറ്": 6, "യാറു": 6, "യേഴ്": 7, "യെട്ട്": 8, "യെട്ടു": 8, "യൊമ്പത്": 9, "ഒമ്പത്": 9,
    "ఒకటి": 1, "రెండు": 2, "మూడు": 3, "నాలుగు": 4, "ఐదు": 5, "ఆరు": 6, "ఏడు": 7, "ఎనిమిది": 8, "తొమ్మిది": 9,
    "aidu": 5, "aaru": 6, "okati": 1, "rendu": 2, "moodu": 3, "naalugu": 4, "edu": 7, "enimidi": 8,
    "entu": 8, "eradu": 2, "anju": 5, "ettu": 8,
}  # fmt: skip
#: number words that are also common words of another language typed in Latin letters ("do", "sat", "per"):
#: they count only right before a word for children
WEAK_NUMBER_WORDS = frozenset(
    "do sat na be ek oru nav vis tin char das bara baar saat aat sath edu padi both elu entu pathu".split()
)
#: endings glued to a number word or digits: case endings and classifiers ("পাঁচজনের", "৫টি", "பத்துக்கும்")
NUMBER_SUFFIXES = frozenset(
    "জন জনের জনকে জনই জনেরই জনকেই জনকেই টা টি টে টো টার টির টিকে টাকে টারে জনা ই য় "
    "ों ो ही ने ला ना जण जणं जणांना जणांची जणांचा जणी जणांच्या "
    "க்கும் க்கு ம் ல பேர் பேரு பேருக்கு பேருக்கும் "
    "మంది మందికి మందిని మందీ గురు గురికి గురూ "
    "ಜನ ಜನರು ಜನರಿಗೆ ಮಂದಿ ರಿಗೆ ರಿಗೂ "
    "പേർ പേർക്ക് പേര് പേര്ക്ക് ഉം "
    "જણ જણા જણાં ને "
    "ਜਣੇ ਜਣਿਆਂ ਨੂੰ "
    "ଜଣ ଜଣଙ୍କ ଜଣଙ୍କୁ ଟି ଟା "
    "jon jan jana mandi ta ti te to jon-er".split()
)
#: person classifiers: a number with one glued on or standing after it counts people ("১২ জন", "పది మంది")
PERSON_WORDS = frozenset(
    "জন জনের জনকে জনই জনেরই জনকেই জনা jon joner jonke jan jana jon-er janer "
    "जण जणं जणांना जणांची जणांचा जणी जणांच्या जन जने "
    "பேர் பேரு பேருக்கு பேருக்கும் பேர்க்கு per peru peruku perukku "
    "మంది మందికి మందిని మందీ గురు గురికి గురూ mandi mandiki mandini "
    "ಜನ ಜನರು ಜನರಿಗೆ ಮಂದಿ jana janaru "
    "പേർ പേർക്ക് പേര് പേര്ക്ക് പേരെ ജനം perkku peru "
    "જણ જણા જણાં jan jana "
    "ਜਣੇ ਜਣਿਆਂ jane "
    "ଜଣ ଜଣଙ୍କ ଜଣଙ୍କୁ jana "
    "log लोग لوگ".split()
)
#: words that, right after a bare number, say it is a number of affected children ("3 ko ulti", "two in
#: hospital", "16 of them"); they count only in a text that speaks of children
AFFECTED_AFTER = frozenset(
    "of had got were went are fell fainted vomited complained needed admitted have others other more in "
    "ko को se ne ने kon کو نے".split()
)
#: a number followed by one of these words counts the children beside one named child ("my son and 3 friends":
#: 4, "Rinki and eleven others": 12, "6 aur bachche": 7)
PLUS_ONE_AFTER = frozenset(
    "other others more friends friend classmates classmate aur और inka dost dosto दोस्त साथी saathi sathi "
    "बन्धु बन्धুরা".split()
)
#: case endings glued to a number that make it the children something happened to ("পাঁচজনকে", "પંદરને")
DATIVE_ENDINGS = frozenset("ने को কে জনকে ને ਨੂੰ க்கு பேருக்கு కి కు ಗೆ ಕ್ಕೆ ക്ക് ko ku ki ke ku".split())
#: words that stand between a number and a word for children when the number is no count ("2 per child")
NOT_BETWEEN = frozenset("per each every for प्रति हर har prati".split())
#: a word right after a number that makes it an age, a time, money, a weight, a date or a duration
UNIT_WORDS = frozenset(
    "saal sal saal-ka year years yr yrs yo month months mahine mahina week weeks day days din hour hours ghante "
    "ghanta baje am pm rs rupees rupee kg kilo kilos gm gms g grams litre litres liters ml packet packets km "
    "minutes minute mins min percent loaves rotis roti eggs plates ladle ladles sacks bags "
    "साल वर्ष वर्षीय वर्षांचा वर्षाची महीने महीना दिन घंटे बजे रुपये रुपए रुपया किलो ग्राम लीटर मिनट "
    "বছর বছরের মাস দিন টাকা কেজি মিনিট বোচর bochor bochorer "
    "वर्षांचा वर्षांची महिने दिवस तास वाजता रुपये "
    "ਸਾਲ ਸਾਲਾਂ ਮਹੀਨੇ ਦਿਨ ਵਜੇ ਰੁਪਏ ਕਿੱਲੋ "
    "વર્ષ વર્ષનો વર્ષની મહિના દિવસ વાગ્યે રૂપિયા કિલો "
    "ବର୍ଷ ବର୍ଷର ମାସ ଦିନ ଟଙ୍କା କିଲୋ "
    "வயது வயசு ஆண்டு மாதம் நாள் நாளா மணி மணிக்கு ரூபாய் கிலோ நிமிஷம் நிமிடம் "
    "సంవత్సరాల ఏళ్ల నెలల రోజుల గంటలకు రూపాయలు కిలో rojula "
    "ವರ್ಷದ ವರ್ಷ ತಿಂಗಳು ದಿನ ಗಂಟೆಗೆ ರೂಪಾಯಿ ಕೆಜಿ "
    "വയസ്സ് വയസ്സുള്ള വർഷം മാസം ദിവസം മണിക്ക് രൂപ കിലോ "
    "سال سالہ مہینے دن بجے روپے کلو".split()
)
#: a word right before a number that makes it no count ("Rs 200", "ward 42", "no. 14", "at 11")
NOT_BEFORE = frozenset("rs ward no number room at by since page roll rupees of ₹ नं नंबर ক্রমাংক নং ন ନଂ".split())
#: words that make the number before them a school's strength, not a count of those affected ("on roll")
STRENGTH_WORDS = frozenset(
    "roll register registered enrolled enrolment enrollment strength रजिस्टर register-me नामांकन পট पट "
    "ছাত্রসংখ্যা হাজিরা ਦਾਖਲ દાખલ".split()
)
#: words (or word endings) that make the number before them a whole of which a later number is a part
#: ("40 में से 15", "চল্লিশ জনের মধ্যে পনেরো জন", "112 மாணவர்களில் 21 பேர்")
PART_OF_WORDS = frozenset("among में मध्ये মধ্যে madhye ਵਿੱਚੋਂ માંથી ମଧ୍ୟରୁ پیکی ಪೈಕಿ".split())
PART_OF_ENDINGS = ("களில்", "ரில்", "માંથી", "లో", "ಲ್ಲಿ", "ിൽ")
#: words for "and" or "to" that may stand between a class word and the number of a second class ("class 1 and 2")
_JOINERS = frozenset("and & aur or to और ও আর व आणि ਤੇ અને ଓ மற்றும் మరియు ಮತ್ತು ഉം اور".split())
#: "all the children", in every language (a phrase of the folded text)
ALL_CHILDREN_PHRASES = (
    "all children", "all the children", "all students", "all the students", "all kids", "all the kids",
    "every child", "sabhi bachch", "sab bachch", "saare bachch", "sare bachch", "sab bachh", "sabhi bachh",
    "sare bachh", "saare bachh", "sab bacch", "sabhi bacch", "सभी बच्च", "सब बच्च", "सारे बच्च", "सारे बचच",
    "सर्व मुल", "सगळी मुल", "सगळ्या मुल", "सगळी पोर", "সব বাচ্চা", "সকল ছাত্র", "সব ছাত্র", "সব শিশু", "ছানাগুলান সব",
    "ਸਾਰੇ ਬੱਚ", "ਸਾਰੇ ਜੁਆਕ", "ਸਾਰੇ ਜਵਾਕ", "બધા બાળ", "બધાં બાળ", "બધાં છોકર", "બધા છોકર", "ସମସ୍ତ ପିଲା", "ସବୁ ପିଲା",
    "ସବୁ ଛୁଆ", "எல்லா குழந்தை", "அனைத்து குழந்தை", "அனைத்து மாணவ", "எல்லா மாணவ", "பசங்க எல்லாருக்கும்",
    "பசங்க எல்லாரும்", "అందరు పిల్ల", "పిల్లలందరూ", "పిల్లలందరికీ", "ಎಲ್ಲಾ ಮಕ್ಕಳ", "ಎಲ್ಲ ಮಕ್ಕಳ", "ಮಕ್ಳೆಲ್ಲ",
    "ಮಕ್ಕಳೆಲ್ಲ", "എല്ലാ കുട്ടി", "കുട്ടികളെല്ലാം", "സബ് ബച്ച", "تمام بچ", "سب بچ", "sab bache", "sare bache",
    "ellam pasanga", "ella pasanga", "ella kuzhandha", "andaru pillal", "pillalu andaru", "ella makkal",
    "ellaa makkal", "ella kuttikal", "sob bachcha", "sare bachian", "badha balko", "sabu pila", "samasta pila",
)  # fmt: skip
#: words for a school class: a number beside one is a class ("class 5 children", "5ஆம் வகுப்பு"), not a count
CLASS_WORDS = (
    "class", "classes", "cl", "std", "standard", "grade", "kaksha", "कक्षा", "क्लास", "इयत्ता", "वर्ग", "শ্রেণি",
    "শ্রেণী", "শ্রেণির", "ক্লাস", "ਜਮਾਤ", "ਕਲਾਸ", "ધોરણ", "ଶ୍ରେଣୀ", "வகுப்பு", "வகுப்பில்", "கிளாஸ்", "తరగతి",
    "ತರಗತಿ", "ക്ലാസ്", "ക്ലാസിലെ", "جماعت", "کلاس", "vaguppu", "taragati", "taragathi", "dhoran", "jamaat", "ધો", "ध", "cls",
)  # fmt: skip
#: endings of a digit or number word that make it an ordinal ("5th", "5ஆம்", "৪-ാം"), a class or a date
ORDINAL_SUFFIXES = frozenset("st nd rd th ஆம் ாம் ম ാം வது వ ನೇ वीं वी वां ਵੀਂ માં".split())
#: how many words after a number its children word may stand ("12 জন ছাত্র", "five small children")
NUMBER_WINDOW = 3
NUMBER_WORDS: dict[str, int] = {}
for _words in NUMBER_WORDS_BY_LANGUAGE.values():
    for _word, _n in _words.items():
        NUMBER_WORDS.setdefault(normalize(_word), _n)
_CHILD_STEMS = tuple(sorted({normalize(s) for stems in CHILD_STEMS.values() for s in stems}, key=len, reverse=True))
_ALL_CHILDREN = re.compile(
    "|".join(rf"(?<!{_LETTER}){re.escape(normalize(p))}" for p in sorted(ALL_CHILDREN_PHRASES, key=len, reverse=True))
)
_CLASS_WORDS = frozenset(normalize(w) for w in CLASS_WORDS)
_COMPOUND_TENS = {normalize(k): v for k, v in COMPOUND_TENS.items()}
_COMPOUND_UNITS = {normalize(k): v for k, v in COMPOUND_UNITS.items()}
_UNIT_STEMS = tuple(normalize(w) for w in UNIT_WORDS if not w.isascii())
_DATIVE = frozenset(normalize(w) for w in DATIVE_ENDINGS)
_SUFFIXES = frozenset(normalize(s) for s in NUMBER_SUFFIXES)
_PERSON = frozenset(normalize(s) for s in PERSON_WORDS)
_PERSON_STEMS = tuple(w for w in _PERSON if not w.isascii())
_BREAK = ".!?।॥;:|"
_TOKEN = re.compile(rf"{_LETTER}+|[{re.escape(_BREAK)}]")
#: dates, times, decimals, money and numbered references, read as no number at all
_NOT_A_COUNT = re.compile(
    r"\d+\s*[:./]\s*\d+(?:\s*[./]\s*\d+)*"  # 2:30, 19/12/2023, 14.08, 2345/..
    r"|(?:rs\.?|₹|inr)\s*\d[\d,]*"  # money
    r"|\d+\s*-\s*(?:year|yr|saal|sal|varsh)"  # 10-year-old
    r"|#\s*\d+",
    re.IGNORECASE,
)


class _Number:
    """A number read from one or more words of a text: its value, where it stands and what is glued to it."""

    __slots__ = ("value", "start", "end", "person", "ordinal", "weak", "digits", "dative", "ending")

    def __init__(self, value: int, start: int, end: int, person: bool, ordinal: bool, weak: bool, digits: bool):
        self.value, self.start, self.end = value, start, end
        self.person, self.ordinal, self.weak, self.digits = person, ordinal, weak, digits
        self.dative, self.ending = False, ""


def _read(word: str) -> tuple[int, str, bool] | None:
    """The number a word says, the ending glued to it, and whether it is spelt in digits: leading digits of any
    script ("12", "১২টি", "12-க்கும்"), a number word, or a number word with a known ending ("পাঁচজনের")."""
    digits = ""
    for ch in word:
        if not ch.isdigit():
            break
        digits += str(unicodedata.digit(ch))
    if digits:
        return (int(digits), word[len(digits) :], True) if len(digits) <= 4 else None
    if (n := _word_value(word)) is not None:
        return n, "", False
    for cut in range(len(word) - 1, 1, -1):
        if word[cut:] in _SUFFIXES and (n := _word_value(word[:cut])) is not None:
            return n, word[cut:], False
    return None


def _word_value(word: str) -> int | None:
    """The number a whole word says: a number word, or tens glued to units ("ಇಪ್ಪತ್ತೈದು", "இருபத்தஞ்சு")."""
    if word in NUMBER_WORDS:
        return NUMBER_WORDS[word]
    for stem, tens in _COMPOUND_TENS.items():
        if word.startswith(stem) and word[len(stem) :] in _COMPOUND_UNITS:
            return tens + _COMPOUND_UNITS[word[len(stem) :]]
    return None


def _numbers(words: list[str]) -> list[_Number]:
    """The numbers of a word list, neighbouring number words joined: a compound ("twenty two", "एक सौ बीस",
    "একশো চল্লিশ") or a range ("8 10", "দশ বারোটা", "सात आठ"), which counts as its larger end."""
    found: list[_Number] = []
    for i, word in enumerate(words):
        read = _read(word)
        if read is None:
            continue
        n, ending, digits = read
        person = ending in _PERSON
        ordinal = ending in ORDINAL_SUFFIXES or ending.lstrip("-") in ORDINAL_SUFFIXES
        weak = not digits and word in WEAK_NUMBER_WORDS
        last = found[-1] if found else None
        if last is not None and last.end == i - 1 and not last.ending and not ordinal:
            last.value = _join(last.value, n)
            last.end, last.person, last.weak = i, last.person or person, weak
            last.digits, last.ending, last.dative = last.digits or digits, ending, ending in _DATIVE
            continue
        found.append(_Number(n, i, i, person, ordinal, weak, digits))
        found[-1].dative, found[-1].ending = ending in _DATIVE, ending
    return found


def _join(first: int, second: int) -> int:
    """Two numbers written side by side: a compound ("twenty" "two", "ek" "sau", "একশো" "চল্লিশ") or a range,
    which gives its larger end."""
    if second in (100, 1000) and first < second:
        return first * second if first not in (150, 250) else first
    if first >= 100 and first % 100 == 0 and second < 100:
        return first + second
    if 20 <= first < 100 and first % 10 == 0 and second < 10:
        return first + second
    return max(first, second)


def _is_child_word(word: str) -> bool:
    return word.startswith(_CHILD_STEMS)


def _is_class(words: list[str], number: _Number) -> bool:
    """Whether a number names a class: a class word just before it (over "and", "," and other class numbers:
    "class 1 and 2") or just after it ("5 वीं कक्षा")."""
    if number.ordinal or number.end + 1 < len(words) and words[number.end + 1] in _CLASS_WORDS:
        return True
    i = number.start - 1
    while i >= 0 and (words[i] in _JOINERS or words[i] == "." or _read(words[i]) is not None):
        i -= 1
    return i >= 0 and words[i] in _CLASS_WORDS and number.start - i <= 4


def _excluded(words: list[str], number: _Number) -> bool:
    """Whether a number is an age, a time, money, a class, a reference or a school's strength."""
    after = words[number.end + 1] if number.end + 1 < len(words) else ""
    before = words[number.start - 1] if number.start > 0 else ""
    if after in UNIT_WORDS or after.startswith(_UNIT_STEMS) or before in NOT_BEFORE or _is_class(words, number):
        return True
    near = words[number.end + 1 : number.end + 1 + NUMBER_WINDOW + 2] + words[max(0, number.start - 2) : number.start]
    return any(w in STRENGTH_WORDS for w in near)


def _child_after(words: list[str], number: _Number) -> bool:
    """A word for children within ``NUMBER_WINDOW`` words after the number, with no break or "per" between."""
    for w in words[number.end + 1 : number.end + 1 + NUMBER_WINDOW]:
        if _is_child_word(w):
            return True
        if w in _BREAK or w in NOT_BETWEEN or _read(w) is not None:
            return False
    return False


def _counts(words: list[str], number: _Number, children_spoken_of: bool) -> bool:
    """Whether a number counts children: a person classifier glued to it or after it, a word for children after
    it (or just before a number in digits or script), or an "affected" word after it in a text about children."""
    after = words[number.end + 1] if number.end + 1 < len(words) else ""
    if _child_after(words, number):
        return True
    if number.weak:
        return False
    if number.person or after in _PERSON or after.startswith(_PERSON_STEMS):
        return True
    before = words[max(0, number.start - 2) : number.start]
    if number.digits and before and _is_child_word(before[-1]):
        return True
    if number.digits and len(before) == 2 and _is_child_word(before[0]) and before[1] not in _BREAK:
        return True  # "শিশুর সংখ্যা ১১"
    return children_spoken_of and (number.dative or after in AFFECTED_AFTER or after in PLUS_ONE_AFTER)


def _is_whole(words: list[str], number: _Number, following: _Number | None) -> bool:
    """Whether a number is a whole of which the next number is a part ("40 में से 15", "112 மாணவர்களில் 21")."""
    if following is None or following.start - number.end > 5:
        return False
    between = words[number.end + 1 : following.start]
    return any(w in PART_OF_WORDS or w.endswith(PART_OF_ENDINGS) for w in between)


def _plus_one(words: list[str], number: _Number) -> int:
    """1 when the number counts others beside a named child ("and 3 friends", "6 aur bachche", "inka 12")."""
    after = words[number.end + 1 : number.end + 4]
    before = words[number.start - 1] if number.start > 0 else ""
    return int(bool(after) and after[0] in PLUS_ONE_AFTER or "friends" in after or before in ("inka", "inkaa"))


def children_named(text: str) -> int:
    """The most children ``text`` says a number of ("12 children", "teen bachche", "பன்னிரண்டு குழந்தைகள்",
    "১২ জন ছাত্র"), ``ALL_CHILDREN`` for "all the children" without a number, 0 for none."""
    folded = normalize(text)
    words = _TOKEN.findall(_NOT_A_COUNT.sub(" | ", folded))
    children_spoken_of = any(_is_child_word(w) for w in words)
    numbers = _numbers(words)
    found = []
    for k, number in enumerate(numbers):
        if number.value <= 0 or _excluded(words, number) or not _counts(words, number, children_spoken_of):
            continue
        if _is_whole(words, number, numbers[k + 1] if k + 1 < len(numbers) else None):
            continue
        found.append(number.value + _plus_one(words, number))
    if found:
        return min(max(found), MAX_CHILDREN)
    return ALL_CHILDREN if _ALL_CHILDREN.search(folded) else 0


def children_text(children: int) -> str | None:
    """How the page names the children part of a key: "12", "all", or None for none named."""
    if children <= 0:
        return None
    return "all" if children == ALL_CHILDREN else str(children)
