"""How many children a complaint says were affected, read from its words in every language mealwatch identifies:
digits of any Indian script and number words of the twelve languages (in their scripts and as typed in Latin
letters, glued to their case endings and classifiers: "পাঁচজনকে", "ಮೂವರಿಗೆ", "iddariki"), beside a word for
children, a person classifier ("১২ জন", "పది మంది"), a person numeral ("ಮೂವರು", "दोघे"), a case ending, an
illness ("दो बेहोश") or another "affected" word, and "all the children". No model is involved: the same text
always gives the same count.

The rules follow the annotators' guide (data/complaints/README.md, data/languages/README.md):

- the number of affected children (who fell ill, went without the meal, got less); of two numbers, the larger;
- a child named beside a number of others counts too ("my son and 3 friends": 4, "Rinki and eleven others": 12,
  "మా పాప ..., ఇంకో ఇద్దరు": 3), and "N more" adds to the count before it ("13 ..., மேலும் இருவர்": 15);
- ages, classes, dates, times, money, weights, years, helpline numbers, references and counts of things are no
  count; nor are grown-ups ("রাঁধুনি আর সহায়িকা দুজনেই") or "not even one";
- a few children sharing one thing out ("एक केला चार बच्चो में") are no count;
- of a whole and a part ("45 chhokra mathi pandar"), the part counts, unless the whole fell ill before the part
  is named ("22 બાળકો બીમાર, તેમાંથી ૧૦ને": 22);
- beside the children left without food, the totals of a shortage are no count ("60 pila, 40 eggs, baki 20": 20);
- the children a meal was cooked for ("for 180 children"), the children present ("आते हैं 70") and the register
  ("register me 180") count only when no other number of children does, the last two only in a complaint about
  a shortage ("40 का खाना, आते हैं 70": 70).
"""

from __future__ import annotations

import re
import unicodedata

from .text import normalize

#: the children part of the triage key: a number named (at most ``MAX_CHILDREN``), or ``ALL_CHILDREN`` for "all"
MAX_CHILDREN, ALL_CHILDREN = 9_998, 9_999
#: a letter, digit or Indic sign (a vowel sign is no \w), not a danda or an Arabic comma or full stop
_LETTER = r"(?:(?![\u0964\u0965\u060c\u061f\u06d4])[\w\u0900-\u0dff\u0600-\u06ff])"
#: how many words after a number its children word may stand ("12 জন ছাত্র", "five small children")
NUMBER_WINDOW = 3

# ---------------------------------------------------------------------------- words for children and grown-ups

#: words for children and pupils (and a family's children: son, daughter), by language; a word of the text counts
#: when it starts with one of them (so that the inflected forms of agglutinating languages — "குழந்தைகளுக்கு",
#: "കുട്ടികൾക്ക്" — count too)
CHILD_STEMS: dict[str, tuple[str, ...]] = {
    "en": ("child", "kid", "student", "pupil", "boy", "girl", "son", "daughter", "schoolchild", "sibling", "twin",
           "sister", "brother", "nephew", "niece", "grandson", "granddaughter", "grandchild"),
    "hi": ("baccha", "bachcha", "bacha", "bachche", "bacche", "bachhe", "bache", "bachchon", "bachon", "bacchon",
           "bachho", "bachcho", "bachchey", "bacchey", "bacho", "bachi", "bacchi", "bachh", "chhatr", "chatr",
           "ladke", "ladki", "ladko", "beta", "bete", "beti", "bhatij", "laika", "बच्च", "बच्चि", "बचच", "बालक",
           "बालिका", "छात्र", "विद्यार्थ", "लड़क", "लडक", "बेटा", "बेटे", "बेटी", "बेटिय", "भांज", "भतीज", "लइका",
           "पुत्र", "पोता", "पोती", "तालिब"),
    "mr": ("मुल", "मुलं", "मुलां", "पोर", "पोट्ट", "लेकर", "विद्यार्थ", "भावंड", "नातू", "बहिण", "mula", "mule", "muli",
           "mulg", "mulanna", "vidyarth", "pora", "pore", "poranna"),
    "bn": ("শিশু", "ছাত্র", "বাচ্চা", "ছেলেমেয়ে", "ছেলে", "মেয়ে", "পড়ুয়া", "শিক্ষার্থী", "পোলাপান", "পোলা", "ছানা",
           "ছাত্রী", "ভাইবোন", "ভাইপো", "ভাইঝি", "ভাগ্নে", "ভাগ্নি", "নাতি", "নাতনি", "bachcha", "bacha", "chhele",
           "chele", "chatro", "chhatro", "chhatrachhatri", "shishu", "porua", "meye", "polapan", "fuwa"),
    "pa": ("ਬੱਚ", "ਬਚ", "ਵਿਦਿਆਰਥ", "ਨਿਆਣ", "ਜੁਆਕ", "ਜਵਾਕ", "ਮੁੰਡ", "ਕੁੜੀ", "ਪੋਤ", "ਧੀ", "ਪੁੱਤ", "ਭਤੀਜ", "ਭਾਣਜ",
           "bachian", "bachiyan", "bache", "bacche", "bachi", "niane", "juak", "jawak", "jwak", "munde", "munda",
           "kudi", "kudiyan", "kuriyan"),
    "gu": ("બાળ", "વિદ્યાર્થ", "છોકર", "ભૂલકા", "દીકર", "છાત્ર", "ભાણેજ", "ભત્રીજ", "પોતર", "balak", "balko",
           "baalko", "chhokr", "chokr", "vidyarth", "bhulka", "dikr", "bhatrij"),
    "or": ("ପିଲା", "ଛାତ୍ର", "ଶିଶୁ", "ଛୁଆ", "ଝିଅ", "ପୁଅ", "ନାତି", "ନାତୁଣୀ", "ଭଣଜା", "ଭତିଜ", "ଟୁରି", "pila", "chhatra",
           "chatra", "sishu", "chhua", "jhia", "pua"),
    "ta": ("குழந்தை", "மாணவ", "பிள்ளை", "பொண்ணு", "பையன்", "பசங்", "பசங்க", "சிறுவ", "சிறுமி", "சிறார்",
           "சின்னஞ்சிறுசு", "மகன்", "மகள்", "kuzhandha", "kulandha", "kozhandha", "pasang", "pasanga", "pillainga",
           "manavar", "maanavar", "kuzhanthai", "kulanthai", "paiyan", "ponnu"),
    "te": ("పిల్ల", "విద్యార్థ", "చిన్నార", "బాలిక", "బాలుడ", "బాలుర", "పిలగాండ్ల", "పోరగాండ్ల", "పోరి", "పోరడు",
           "అబ్బాయి", "అమ్మాయి", "బిడ్డ", "పాప", "కొడుకు", "కూతురు", "మనవరాలు", "మనవడు", "pillal", "pillaki",
           "vidyarth", "chinnar", "abbai", "ammai", "ammayi", "koduku", "kuthuru"),
    "kn": ("ಮಕ್ಕಳ", "ಮಕ್ಳ", "ಮಗು", "ಮಗಳ", "ಮಗನ", "ಕೂಸು", "ಹುಡುಗೂರ", "ವಿದ್ಯಾರ್ಥಿ", "ಹುಡುಗ", "ಬಾಲಕ", "ಮೊಮ್ಮಗ",
           "makkal", "makkalu", "magu", "vidyarth", "hudug", "hudg"),
    "ml": ("കുട്ടി", "വിദ്യാർത്ഥി", "വിദ്യാര്ത്ഥി", "പിള്ളേ", "കുഞ്ഞ", "മകൾ", "മകന", "മകൻ", "മോൻ", "മോന", "മോള",
           "ഇരട്ടക്കുട്ടി", "kutti", "kuttikal", "kuttyol", "vidyarth", "pillerr"),
    "ur": ("بچ", "طلب", "طالب", "لڑک", "بیٹ", "bachon", "bachay", "bachey", "talba", "talaba", "talib", "larke",
           "larki"),
}  # fmt: skip
#: friends and classmates of a child: counted as children, and as others beside a child named before them ("my
#: son and 3 friends": 4)
FRIEND_STEMS: tuple[str, ...] = (
    "friend", "classmate", "dost", "दोस्त", "सहेली", "सहेलि", "saheli", "मित्र", "मैत्रिण", "mitra", "বন্ধু", "bondhu",
    "ਦੋਸਤ", "ਸਹੇਲੀ", "મિત્ર", "બહેનપણી", "ସାଙ୍ଗ", "நண்ப", "స్నేహితు", "దోస్తు", "ಗೆಳೆಯ", "ಗೆಳತಿ", "ಸ್ನೇಹಿತ",
    "കൂട്ടുകാര", "സുഹൃത്ത", "دوست", "سہیلی",
)  # fmt: skip
#: one child of the writer's family or named by them (a son, a daughter, a nephew): others counted after such a
#: child with "also" or "more" count it too ("मेरा बेटा भर्ती है ... दस बच्चों को भी उल्टी": 11)
ONE_CHILD_STEMS: tuple[str, ...] = (
    "son", "daughter", "nephew", "niece", "grandson", "granddaughter", "my child", "my kid", "बेटा", "बेटी", "बेटे",
    "beta", "beti", "bete", "भांजा", "भांजी", "भतीजा", "भतीजी", "bhatija", "bhanja", "पुत्र", "putra", "पोता", "पोती",
    "बच्चा", "बच्ची", "bachcha", "bachi", "bacchi", "bachhi", "मुलगा", "मुलगी", "mulga", "mulgi", "नातू", "ছেলে",
    "মেয়ে", "ভাইপো", "ভাইঝি", "chele", "meye", "ਪੁੱਤ", "ਧੀ", "ਬੱਚੀ", "ਭਤੀਜ", "ਮੁੰਡਾ", "ਕੁੜੀ", "kudi", "munda",
    "દીકરો", "દીકરી", "છોકરો", "છોકરી", "છોકરાન", "ભત્રીજ", "dikro", "dikri", "bhatrij", "ପୁଅ", "ଝିଅ", "ଭଣଜା", "ଭତିଜ",
    "pua", "jhia",
    "மகன்", "மகள்", "பொண்ணு", "பொண்ண", "பையன்", "paiyan", "ponnu", "కొడుకు", "కూతురు", "పాప", "అబ్బాయి",
    "అమ్మాయి", "పోరడు", "పోరి", "మనవరాలు", "మా వాడు", "abbai", "ammai", "papa", "ma vadu", "ಮಗ", "ಹುಡುಗಿ",
    "ಮೊಮ್ಮಗ", "മകൻ", "മകൾ", "മോൻ", "മോന", "മോള", "بیٹا", "بیٹی", "بیٹے", "بچہ", "بچی", "طالبہ",
)  # fmt: skip
#: grown-ups of a school: a person classifier or numeral just after one of them counts them, not children
#: ("শিক্ষক মোটে দুজন", "स्वयंपाकी दोघी", "ಅಡುಗೆ ಮಾಡೋರು ಇಬ್ಬರೂ", "వంట ఏజెన్సీ సభ్యులు ముగ్గురికీ")
GROWN_UP_STEMS = (
    "teacher", "cook", "helper", "parent", "mother", "father", "member", "villager", "officer", "staff", "worker",
    "शिक्षक", "रसोइ", "सहायिका", "अभिभावक", "सदस्य", "ग्रामीण", "स्वयंपाकी", "मदतनीस", "मावशी", "शिक्षिका", "पालक",
    "শিক্ষক", "রাঁধুনি", "সহায়িকা", "অভিভাবক", "সদস্য", "ਅਧਿਆਪਕ", "ਰਸੋਈ", "ਕੁੱਕ", "ਮਾਪੇ", "ਮੈਂਬਰ", "શિક્ષક",
    "રસોઈ", "વાલી", "ગામના", "સભ્ય", "ଶିକ୍ଷକ", "ରୋଷେୟା", "ଅଭିଭାବକ", "ସଦସ୍ୟ", "ଆମେ", "ஆசிரிய", "சமையல",
    "அமைப்பாளர்", "பெற்றோர்", "உறுப்பினர்", "టీచర్", "ఉపాధ్యాయ", "వంట", "సభ్యులు", "తల్లిదండ్రులు", "ಶಿಕ್ಷಕ",
    "ಅಡುಗೆ", "ಸದಸ್ಯ", "ಪೋಷಕ", "ಟೀಚರ", "അധ്യാപക", "ടീച്ചർ", "പാചക", "രക്ഷിതാ", "استاد", "باورچ", "والدین", "ممبر",
    "rasoiya", "rasoiye", "shikshak", "sadasya",
)  # fmt: skip
#: "all the children", in every language (a phrase of the folded text)
ALL_CHILDREN_PHRASES = (
    "all children", "all the children", "all students", "all the students", "all kids", "all the kids",
    "every child", "every kid", "sabhi bachch", "sab bachch", "saare bachch", "sare bachch", "sab bachh",
    "sabhi bachh", "sare bachh", "saare bachh", "sab bacch", "sabhi bacch", "सभी बच्च", "सब बच्च", "सारे बच्च",
    "सारे बचच", "सर्व मुल", "सगळी मुल", "सगळ्या मुल", "सगळी पोर", "सगळ्या पोर", "সব বাচ্চা", "সকল ছাত্র", "সব ছাত্র",
    "সব শিশু", "ছানাগুলান সব", "ਸਾਰੇ ਬੱਚ", "ਸਾਰੇ ਜੁਆਕ", "ਸਾਰੇ ਜਵਾਕ", "બધા બાળ", "બધાં બાળ", "બધાં છોકર",
    "બધા છોકર", "ସମସ୍ତ ପିଲା", "ସବୁ ପିଲା", "ସବୁ ଛୁଆ", "எல்லா குழந்தை", "அனைத்து குழந்தை", "அனைத்து மாணவ",
    "எல்லா மாணவ", "எல்லா பசங்க", "பசங்க எல்லாருக்கும்", "பசங்க எல்லாரும்", "అందరు పిల్ల", "పిల్లలందరూ",
    "పిల్లలందరికీ", "పిల్లోల్లందరూ", "పోరగాండ్లందరు", "ಎಲ್ಲಾ ಮಕ್ಕಳ", "ಎಲ್ಲ ಮಕ್ಕಳ", "ಮಕ್ಳೆಲ್ಲ", "ಮಕ್ಕಳೆಲ್ಲ",
    "എല്ലാ കുട്ടി", "കുട്ടികളെല്ലാം", "കുട്ടികൾ മുഴുവൻ", "പിള്ളേർക്കെല്ലാം", "സബ് ബച്ച", "تمام بچ", "سب بچ",
    "sab bache", "sare bache", "saare bache", "saare ke saare bache", "ellam pasanga", "ella pasanga",
    "ella kuzhandha", "andaru pillal", "pillalu andaru", "pillalandaru", "ella makkal", "ellaa makkal",
    "ella kuttikal", "kuttikal muzhuvan", "sob bachcha", "sare bachian", "saare bachian", "badha balko",
    "sabu pila", "samasta pila",
)  # fmt: skip
#: how many words after "all the children" may say they are well
ALL_WINDOW = 5
#: words after "all the children" that say they are well ("sab bachhe khush", "ସବୁ ପିଲା ଠିକ"): no count
WELL_AFTER = frozenset(
    "fine ok okay well happy safe theek thik khush ठीक खुश ভালো ঠিক ସୁସ୍ଥ ଭଲ ଠିକ thik நல்லா బాగు ಚೆನ್ನಾಗಿ സുഖ "
    "ਠੀਕ ਖੁਸ਼ સાજાં બરાબર बरे ٹھیک خوش".split()
)

# ---------------------------------------------------------------------------- number words


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
             "assi": 80, "nabbe": 90, "sau": 100, "दर्जन": 12, "दू": 2,
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
             "चौघे": 4, "चौघं": 4, "पाचही": 5, "दोघा": 2, "तिघा": 3, "चौघा": 4, "दोन्ही": 2, "एकशे": 100,
             "doghe": 2, "doghi": 2, "tighe": 3, "tighi": 3, "एका": 1, "eka": 1}
          | _series("ek don teen char pach saha saat aath nau daha akra bara tera chauda pandhra sola satra athra "
                    "ekonis vees ekvis bavis tevis chovis panchvis savvis sattavis atthavis ekontis tees"),
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
             "dujon": 2, "tinjon": 3, "charjon": 4, "duto": 2, "ekta": 1, "ekti": 1, "sotero": 17,
             "atharo": 18, "unish": 19},
    "pa": _series("ਇੱਕ/ਇਕ ਦੋ ਤਿੰਨ ਚਾਰ ਪੰਜ ਛੇ ਸੱਤ ਅੱਠ ਨੌਂ/ਨੌ ਦਸ ਗਿਆਰਾਂ ਬਾਰਾਂ ਤੇਰਾਂ ਚੌਦਾਂ ਪੰਦਰਾਂ ਸੋਲ਼ਾਂ/ਸੋਲਾਂ ਸਤਾਰਾਂ "
                  "ਅਠਾਰਾਂ ਉੱਨੀ ਵੀਹ ਇੱਕੀ ਬਾਈ ਤੇਈ ਚੌਵੀ ਪੱਚੀ ਛੱਬੀ ਸਤਾਈ ਅਠਾਈ ਉਣੱਤੀ ਤੀਹ ਇਕੱਤੀ ਬੱਤੀ ਤੇਤੀ ਚੌਂਤੀ ਪੈਂਤੀ "
                  "ਛੱਤੀ ਸੈਂਤੀ ਅਠੱਤੀ ਉਣਤਾਲੀ/ਉਨਤਾਲੀ ਚਾਲੀ ਇਕਤਾਲੀ ਬਿਆਲੀ ਤਿਰਤਾਲੀ ਚੁਤਾਲੀ ਪੰਜਤਾਲੀ ਛਿਆਲੀ ਸੰਤਾਲੀ ਅਠਤਾਲੀ ਉਣੰਜਾ "
                  "ਪੰਜਾਹ ਇਕਵੰਜਾ ਬਵੰਜਾ ਤਰਵੰਜਾ ਚਰਵੰਜਾ ਪਚਵੰਜਾ ਛਪੰਜਾ ਸਤਵੰਜਾ ਅਠਵੰਜਾ ਉਣਾਠ ਸੱਠ ਇਕਾਹਠ ਬਾਹਠ ਤਰੇਹਠ ਚੌਂਹਠ "
                  "ਪੈਂਹਠ ਛਿਆਹਠ ਸਤਾਹਠ ਅਠਾਹਠ ਉਣੱਤਰ ਸੱਤਰ ਇਕਹੱਤਰ ਬਹੱਤਰ ਤਿਹੱਤਰ ਚੌਹੱਤਰ ਪਚੱਤਰ ਛਿਹੱਤਰ ਸਤੱਤਰ ਅਠੱਤਰ ਉਣਾਸੀ "
                  "ਅੱਸੀ ਇਕਾਸੀ ਬਿਆਸੀ ਤਿਰਾਸੀ ਚੁਰਾਸੀ ਪਚਾਸੀ ਛਿਆਸੀ ਸਤਾਸੀ ਅਠਾਸੀ ਉਣਾਨਵੇਂ ਨੱਬੇ")
          | {"ਸੌ": 100, "ਦੋਵੇਂ": 2, "ਦੋਵਾਂ": 2, "ਦੋਨੋਂ": 2, "ਤਿੰਨੇ": 3, "ath": 8, "nau": 9, "teran": 13, "terran": 13,
             "chaudan": 14, "solan": 16, "unni": 19, "chaar": 4, "chhe": 6,
             "ikk": 1, "ik": 1, "tinn": 3, "panj": 5, "satt": 7, "atth": 8, "gyaran": 11, "baran": 12,
             "pandran": 15, "veeh": 20, "vih": 20, "teeh": 30, "chali": 40, "panjah": 50, "sath": 60,
             "dove": 2, "doven": 2},
    "gu": _series("એક બે ત્રણ ચાર પાંચ છ સાત આઠ નવ દસ/દશ અગિયાર બાર તેર ચૌદ પંદર સોળ સત્તર અઢાર ઓગણીસ વીસ એકવીસ "
                  "બાવીસ તેવીસ ચોવીસ પચ્ચીસ છવ્વીસ સત્તાવીસ અઠ્ઠાવીસ ઓગણત્રીસ ત્રીસ એકત્રીસ બત્રીસ તેત્રીસ ચોત્રીસ "
                  "પાંત્રીસ છત્રીસ સાડત્રીસ આડત્રીસ ઓગણચાલીસ ચાલીસ એકતાલીસ બેતાલીસ તેતાલીસ ચુંમાલીસ પિસ્તાલીસ "
                  "છેતાલીસ સુડતાલીસ અડતાલીસ ઓગણપચાસ પચાસ એકાવન બાવન ત્રેપન ચોપન પંચાવન છપ્પન સત્તાવન અઠ્ઠાવન "
                  "ઓગણસાઠ સાઠ એકસઠ બાસઠ ત્રેસઠ ચોસઠ પાંસઠ છાસઠ સડસઠ અડસઠ ઓગણસિત્તેર સિત્તેર એકોતેર બોતેર તોતેર "
                  "ચુમોતેર પંચોતેર છોતેર સિત્યોતેર ઇઠ્ઠોતેર ઓગણએંસી એંસી એક્યાસી બ્યાસી ત્યાસી ચોર્યાસી પંચાસી છ્યાસી "
                  "સિત્યાસી અઠ્યાસી નેવ્યાસી નેવું")
          | {"બેતાળીસ": 42, "ચાળીસ": 40, "પચીસ": 25, "સો": 100, "દોઢસો": 150, "બસો": 200, "બંને": 2, "બન્ને": 2,
             "ત્રણેય": 3, "બેઉ": 2, "બેય": 2, "ચારેય": 4, "પાંચેય": 5,
             "ek": 1, "be": 2, "tran": 3, "char": 4, "panch": 5, "chha": 6, "saat": 7, "aath": 8,
             "nav": 9, "das": 10, "agiyar": 11, "baar": 12, "pandar": 15, "vis": 20, "pachis": 25, "trees": 30,
             "chalis": 40, "chaalis": 40, "pachas": 50, "pachaas": 50, "banne": 2, "beu": 2,
             "sol": 16, "ognis": 19, "pachyasi": 85, "bar": 12},
    "or": _series("ଏକ ଦୁଇ ତିନି ଚାରି ପାଞ୍ଚ ଛଅ ସାତ ଆଠ ନଅ ଦଶ ଏଗାର ବାର ତେର ଚଉଦ ପନ୍ଦର ଷୋହଳ ସତର ଅଠର ଊଣେଇଶି କୋଡ଼ିଏ/କୋଡିଏ "
                  "ଏକୋଇଶି/ଏକୋଇଶ ବାଇଶି/ବାଇଶ ତେଇଶି/ତେଇଶ ଚବିଶି/ଚବିଶ ପଚିଶି/ପଚିଶ ଛବିଶି/ଛବିଶ ସତାଇଶି/ସତାଇଶ ଅଠାଇଶି/ଅଠାଇଶ "
                  "ଅଣତିରିଶି/ଅଣତିରିଶ ତିରିଶି/ତିରିଶ")
          | {"ଗୋଟିଏ": 1, "ଗୋଟେ": 1, "ଜଣେ": 1, "ଦିଜଣ": 2, "ଚାଳିଶ": 40, "ଚାଳିଶି": 40, "ପଚାଶ": 50, "ଷାଠିଏ": 60,
             "ସତୁରି": 70, "ଅଶୀ": 80, "ନବେ": 90, "ଶହେ": 100, "ତିନ": 3, "ଦି": 2, "ଦୁହେଁ": 2, "ଦୁହିଁ": 2,
             "gotie": 1, "gote": 1, "dui": 2, "tini": 3, "chari": 4, "pancha": 5, "chha": 6, "chhaa": 6, "sata": 7,
             "atha": 8, "nau": 9, "dasa": 10, "sohala": 16, "satara": 17, "athara": 18, "ekoisi": 21,
             "pachisi": 25, "egara": 11, "bara": 12, "pandara": 15, "kodie": 20, "tirisa": 30,
             "chalisa": 40, "pachasa": 50, "sahe": 100},
    "ta": _series("ஒன்று இரண்டு மூன்று நான்கு ஐந்து ஆறு ஏழு எட்டு ஒன்பது பத்து பதினொன்று பன்னிரண்டு பதின்மூன்று "
                  "பதினான்கு பதினைந்து பதினாறு பதினேழு பதினெட்டு பத்தொன்பது இருபது")
          | {"ஒரு": 1, "ஒண்ணு": 1, "ஒருவர்": 1, "ஒருத்தர்": 1, "ஒருவன்": 1, "ஒருத்தி": 1, "ரெண்டு": 2,
             "இருவர்": 2, "மூணு": 3, "மூவர்": 3, "நாலு": 4, "நால்வர்": 4, "அஞ்சு": 5, "ஐவர்": 5, "பதினொரு": 11, "பதினோரு": 11,
             "பன்னெண்டு": 12, "பதிமூணு": 13, "பதினாலு": 14, "பதினஞ்சு": 15, "இருவது": 20, "இருபத்தி": 20,
             "இருபத்து": 20, "முப்பது": 30, "முப்பத்தி": 30, "நாற்பது": 40, "நாப்பது": 40, "ஐம்பது": 50,
             "அம்பது": 50, "அறுபது": 60, "எழுபது": 70, "எண்பது": 80, "தொண்ணூறு": 90, "நூறு": 100, "நூத்தி": 100,
             "நூற்றி": 100, "நூற்றைம்பது": 150, "இருநூறு": 200, "முப்பத்து": 30,
             "நாற்பத்து": 40, "ஐம்பத்து": 50, "அறுபத்து": 60, "எழுபத்து": 70, "எண்பத்து": 80, "தொண்ணூற்று": 90,
             "பதினைஞ்சு": 15,
             "முந்நூறு": 300, "முன்னூறு": 300, "நானூறு": 400, "அஞ்சாறு": 6, "நாலஞ்சு": 5,
             "onnu": 1, "oru": 1, "rendu": 2, "moonu": 3, "munu": 3, "naalu": 4, "nalu": 4, "anju": 5, "aaru": 6,
             "ezhu": 7, "ettu": 8, "ombathu": 9, "pathu": 10, "paththu": 10, "pathinonnu": 11, "pannendu": 12,
             "pathimoonu": 13, "pathinaalu": 14, "pathinanju": 15, "irubathu": 20, "irupathu": 20, "iruvathu": 20,
             "muppathu": 30, "naapathu": 40, "aimbathu": 50, "ambathu": 50, "nooru": 100, "onbadhu": 9, "onbathu": 9,
             "padhu": 10, "padhinonnu": 11, "padhimoonu": 13, "padhinaalu": 14, "padhinanju": 15, "pathinaaru": 16,
             "padhinaaru": 16, "pathinezhu": 17, "padhinezhu": 17, "pathinettu": 18, "padhinettu": 18,
             "irubadhu": 20, "muppadhu": 30, "naarpathu": 40, "iruvar": 2, "moovar": 3},
    "te": _series("ఒకటి రెండు మూడు నాలుగు ఐదు ఆరు ఏడు ఎనిమిది తొమ్మిది పది పదకొండు పన్నెండు పదమూడు పద్నాలుగు "
                  "పదిహేను పదహారు పదిహేడు పద్దెనిమిది పంతొమ్మిది")
          | {"ఒక": 1, "ఒకరు": 1, "ఒకడు": 1, "ఒకామె": 1, "ఇద్దరు": 2, "ముగ్గురు": 3, "నలుగురు": 4, "ఐదుగురు": 5,
             "ఆరుగురు": 6, "ఏడుగురు": 7, "ఇరవై": 20, "ముప్పై": 30, "నలభై": 40, "యాభై": 50, "అరవై": 60,
             "డెబ్బై": 70, "ఎనభై": 80, "తొంభై": 90, "వంద": 100, "వందల": 100, "పదిమంది": 10, "పాతిక": 25,
             "ఒక్క": 1, "ఒక్కటి": 1, "okka": 1, "okati": 1, "okaru": 1, "okadu": 1, "rendu": 2, "iddaru": 2,
             "moodu": 3, "mudu": 3, "muggaru": 3, "mugguru": 3, "muguru": 3, "nalugu": 4, "naalugu": 4,
             "naluguru": 4, "aidu": 5, "aiduguru": 5,
             "aaru": 6, "aaruguru": 6, "aruguru": 6, "edu": 7, "eduguru": 7, "enimidi": 8, "tommidi": 9,
             "padi": 10, "padimandi": 10, "padakondu": 11, "pannendu": 12, "padamudu": 13, "padnalugu": 14,
             "padihenu": 15, "padaharu": 16, "padihedu": 17, "paddenimidi": 18, "pantommidi": 19, "iravai": 20,
             "muppai": 30, "nalabhai": 40, "yabhai": 50, "yabai": 50, "aravai": 60, "debbai": 70, "vanda": 100},
    "kn": _series("ಒಂದು ಎರಡು ಮೂರು ನಾಲ್ಕು ಐದು ಆರು ಏಳು ಎಂಟು ಒಂಬತ್ತು ಹತ್ತು ಹನ್ನೊಂದು ಹನ್ನೆರಡು ಹದಿಮೂರು ಹದಿನಾಲ್ಕು "
                  "ಹದಿನೈದು ಹದಿನಾರು ಹದಿನೇಳು ಹದಿನೆಂಟು ಹತ್ತೊಂಬತ್ತು ಇಪ್ಪತ್ತು")
          | {"ಒಬ್ಬ": 1, "ಒಬ್ಬಳು": 1, "ಒಬ್ಬರು": 1, "ಇಬ್ಬರು": 2, "ಮೂವರು": 3, "ನಾಲ್ವರು": 4, "ಐವರು": 5, "ಮೂವತ್ತು": 30,
             "ನಲವತ್ತು": 40, "ಐವತ್ತು": 50, "ಅರವತ್ತು": 60, "ಎಪ್ಪತ್ತು": 70, "ಎಂಬತ್ತು": 80, "ತೊಂಬತ್ತು": 90,
             "ನೂರು": 100, "ನೂರಾ": 100, "ಇನ್ನೂರು": 200, "ಮುನ್ನೂರು": 300, "ನಾನೂರು": 400,
             "ಇಬ್ರು": 2, "ಒಂದ": 1, "ಐದಾರು": 6,
             "ondu": 1, "obba": 1, "eradu": 2, "ibbaru": 2, "mooru": 3, "moovaru": 3, "naalku": 4, "nalku": 4,
             "naalvaru": 4, "aidu": 5, "aivaru": 5, "aaru": 6, "elu": 7, "entu": 8, "ombattu": 9, "hattu": 10,
             "hannondu": 11, "hanneradu": 12, "hadimooru": 13, "hadinalku": 14, "hadinaidu": 15, "hadinaaru": 16,
             "hadinelu": 17, "hadinentu": 18, "ippattu": 20, "moovattu": 30, "nalavattu": 40, "aivattu": 50,
             "nooru": 100, "hadinaalku": 14, "hattombattu": 19},
    "ml": _series("ഒന്ന് രണ്ട് മൂന്ന് നാല് അഞ്ച് ആറ് ഏഴ് എട്ട് ഒമ്പത് പത്ത് പതിനൊന്ന് പന്ത്രണ്ട് പതിമൂന്ന് പതിനാല് "
                  "പതിനഞ്ച് പതിനാറ് പതിനേഴ് പതിനെട്ട് പത്തൊമ്പത് ഇരുപത്")
          | {"ഒരു": 1, "ഒരാൾ": 1, "രണ്ടു": 2, "മൂന്നു": 3, "നാലു": 4, "അഞ്ചു": 5, "ആറു": 6, "ഏഴു": 7, "എട്ടു": 8,
             "ഒൻപത്": 9, "പത്തു": 10, "രണ്ടുപേർ": 2, "ഇരുവരും": 2, "മുപ്പത്": 30, "നാൽപത്": 40, "നാല്പത്": 40,
             "അമ്പത്": 50, "അറുപത്": 60, "എഴുപത്": 70, "എൺപത്": 80, "തൊണ്ണൂറ്": 90, "നൂറ്": 100, "നൂറു": 100,
             "ഇരുനൂറ്": 200, "മുന്നൂറ്": 300, "നാനൂറ്": 400, "അഞ്ഞൂറ്": 500, "അറുനൂറ്": 600, "ഇരുവരെയും": 2,
             "മൂവരും": 3, "രണ്ടുപേരും": 2, "മൂന്നുപേരും": 3, "നൂറ്റി": 100,
             "onnu": 1, "oru": 1, "randu": 2, "moonnu": 3, "moonu": 3, "naalu": 4, "anchu": 5, "aaru": 6,
             "ezhu": 7, "ettu": 8, "ombathu": 9, "pathu": 10, "pathinonnu": 11, "panthrandu": 12,
             "pathinanchu": 15, "irupathu": 20, "muppathu": 30, "ambathu": 50, "nooru": 100, "pathimoonnu": 13,
             "pathinaalu": 14, "pathinaaru": 16, "pathinezhu": 17, "pathinettu": 18, "iruppathu": 20,
             "naalpathu": 40, "anpathu": 50},
    "ur": _series("ایک دو تین چار پانچ چھ/چھے سات آٹھ نو دس گیارہ بارہ تیرہ چودہ پندرہ سولہ سترہ اٹھارہ انیس بیس اکیس "
                  "بائیس تئیس چوبیس پچیس چھبیس ستائیس اٹھائیس انتیس تیس اکتیس بتیس تینتیس چونتیس پینتیس چھتیس سینتیس "
                  "اڑتیس انتالیس چالیس اکتالیس بیالیس تینتالیس چوالیس پینتالیس چھیالیس سینتالیس اڑتالیس انچاس پچاس")
          | {"پچپن": 55, "ساٹھ": 60, "ستر": 70, "اسی": 80, "نوے": 90, "سو": 100,
             "درجن": 12, "دونوں": 2, "تینوں": 3, "ek": 1, "teen": 3, "paanch": 5, "chay": 6, "chhe": 6,
             "saat": 7, "das": 10, "barah": 12, "pandrah": 15, "bees": 20, "chalees": 40, "pachaas": 50},
}  # fmt: skip
#: "one and a half" and "two and a half" (hundred): a number only before a word for a hundred ("डेढ़ सौ")
HUNDRED_FRACTIONS: dict[str, int] = {"डेढ़": 150, "डेढ": 150, "ढाई": 250, "dedh": 150, "dhai": 250, "ਡੇਢ": 150,
                                     "ਢਾਈ": 250, "دیڑھ": 150, "ڈھائی": 250}  # fmt: skip
#: tens and hundreds written glued to the number after them ("ಇಪ್ಪತ್ತೈದು", "இருபத்தஞ்சு", "നൂറ്റിനാല്പത്",
#: "irupathirandu"), by language: the stem each is written with before that number, and its value; the number
#: after it is written with its first vowel as a vowel sign ("ಐದು" as "ೈದು"), or after a glide ("യെട്ട്", "yezhu")
FUSING_STEMS: dict[str, dict[str, int]] = {
    "kn": {"ಇಪ್ಪತ್ತ": 20, "ಮೂವತ್ತ": 30, "ನಲವತ್ತ": 40, "ಐವತ್ತ": 50, "ಅರವತ್ತ": 60, "ಎಪ್ಪತ್ತ": 70, "ಎಂಬತ್ತ": 80,
           "ತೊಂಬತ್ತ": 90, "ippatt": 20, "moovatt": 30, "nalavatt": 40, "aivatt": 50},
    "ta": {"இருபத்த": 20, "முப்பத்த": 30, "நாற்பத்த": 40, "நாப்பத்த": 40, "ஐம்பத்த": 50, "அம்பத்த": 50,
           "அறுபத்த": 60, "எழுபத்த": 70, "எண்பத்த": 80, "தொண்ணூற்ற": 90, "நூற்ற": 100, "irubathi": 20,
           "irupathi": 20, "iruvathi": 20, "irubath": 20, "irupath": 20, "muppathi": 30, "muppadhi": 30,
           "muppath": 30},
    "ml": {"ഇരുപത്ത": 20, "ഇരുപത്തി": 20, "മുപ്പത്ത": 30, "മുപ്പത്തി": 30, "നാല്പത്ത": 40, "നാല്പത്തി": 40,
           "നാൽപത്ത": 40, "നാൽപത്തി": 40, "അമ്പത്ത": 50, "അമ്പത്തി": 50, "അറുപത്ത": 60, "അറുപത്തി": 60,
           "എഴുപത്ത": 70, "എഴുപത്തി": 70, "എൺപത്ത": 80, "എൺപത്തി": 80, "തൊണ്ണൂറ്റ": 90, "തൊണ്ണൂറ്റി": 90,
           "നൂറ്റ": 100, "നൂറ്റി": 100, "ഇരുനൂറ്റ": 200, "ഇരുനൂറ്റി": 200, "മുന്നൂറ്റ": 300, "മുന്നൂറ്റി": 300,
           "irupathi": 20, "irupath": 20, "iruppathi": 20, "iruppath": 20, "muppathi": 30, "muppath": 30,
           "naalpathi": 40, "anpathi": 50, "ambathi": 50},
    "te": {"ఇరవై": 20, "ముప్పై": 30, "నలభై": 40, "యాభై": 50, "iravai": 20, "muppai": 30},
}  # fmt: skip
#: words that start like a number but say "anything" or "nothing" ("ഒന്നും മനസ്സിലാകാതെ", "onnum illa")
NOT_NUMBERS = frozenset("ഒന്നും ഒന്നുമില്ല onnum onnumilla ஒன்னும் ஒன்றும்".split())
#: number words that are also common words of another language typed in Latin letters ("do", "sat", "che"):
#: they count only just before a word for children or a case word ("do ko ulti")
WEAK_NUMBER_WORDS = frozenset(
    "do sat na be ek oru nav vis tin char das bara baar bar saat aat sath saath edu padi both elu entu pathu che "
    "chhe don sol".split()
)
#: endings glued to a number word or digits: case endings, classifiers and "about" ("পাঁচজনের", "৫টি",
#: "பத்துக்கும்", "ત્રીસેક", "മുപ്പതോളം"); a number word ending in a vowel sign or virama drops it before one that
#: starts with a vowel sign ("ನಾಲ್ವರಿಗೂ", "மூவருக்கு", "ఇద్దరికీ")
NUMBER_SUFFIXES = frozenset(
    "জন জনের জনকে জনই জনেই জনেরই জনকেই জনা টা টি টে টো টার টির টিকে টাকে টারে ই য় "
    "ों ो ही ने ला ना च ेक ांना ंना जण जणं जणांना जणांची जणांचा जणी जणांच्या "
    "க்கும் க்கு ம் ல பேர் பேரு பேருக்கு பேருக்கும் ுக்கு ுக்கும் ும் "
    "మంది మందికి మందికీ మందిని మందీ గురు గురికి గురూ ికి ికీ ిని ూ "
    "ಜನ ಜನರು ಜನರಿಗೆ ಮಂದಿ ರಿಗೆ ರಿಗೂ ಿಗೆ ಿಗೂ ೂ "
    "പേർ പേർക്ക് പേര് പേര്ക്ക് ഉം ോളം ും ുപേർ "
    "જણ જણા જણાં ને ેક ેય નું "
    "ਜਣੇ ਜਣਿਆਂ ਨੂੰ ਾਂ "
    "ଜଣ ଜଣଙ୍କ ଜଣଙ୍କୁ ଟି ଟା ଙ୍କୁ ଙ୍କ "
    "jon jan jana mandi ta ti te to jonke joner mandiki ek olam per peru iki".split()
)
#: endings of a digit or number word that make it an ordinal ("5th", "5ஆம்", "৪-ാം"), a class or a date
ORDINAL_SUFFIXES = frozenset("st nd rd th ஆம் ாம் ম ാം வது వ ನೇ वीं वी वां ਵੀਂ ਵਾਂ ਵੇਂ માં".split())
#: person classifiers: a number with one glued on or standing after it counts people ("১২ জন", "పది మంది")
PERSON_WORDS = frozenset(
    "জন জনের জনকে জনই জনেই জনেরই জনকেই জনা jon joner jonke jan jana janer "
    "जण जणं जणांना जणांची जणांचा जणी जणांच्या जन जने janana jananvar "
    "பேர் பேரு பேருக்கு பேருக்கும் பேர்க்கு பேரும் பேர பேரை per peru peruku perukku "
    "మంది మందికి మందికీ మందిని మందీ గురు గురికి గురూ mandi mandiki mandini "
    "ಜನ ಜನರು ಜನರಿಗೆ ಮಂದಿ jana janaru "
    "പേർ പേർക്ക് പേര് പേര്ക്ക് പേരെ പേരും ജനം perkku peru ുപേർ "
    "જણ જણા જણાં jan jana "
    "ਜਣੇ ਜਣਿਆਂ jane "
    "ଜଣ ଜଣଙ୍କ ଜଣଙ୍କୁ jana "
    "log लोग لوگ".split()
)
#: numbers that count people by themselves ("ಮೂವರು", "ముగ్గురు", "மூவர்", "दोघे"): a person numeral
PERSON_NUMERALS = frozenset(
    "ಒಬ್ಬ ಒಬ್ಬಳು ಒಬ್ಬರು ಇಬ್ಬರು ಇಬ್ರು ಮೂವರು ನಾಲ್ವರು ಐವರು ఒకరు ఒకడు ఒకామె ఇద్దరు ముగ్గురు నలుగురు ఐదుగురు "
    "ఆరుగురు ఏడుగురు ஒருவர் ஒருத்தர் ஒருவன் ஒருத்தி இருவர் மூவர் நால்வர் ஐவர் ഒരാൾ രണ്ടുപേർ ഇരുവരും "
    "ഇരുവരെയും മൂവരും दोघे दोघं दोघी तिघे तिघं तिघी चौघे चौघं दोघा तिघा चौघा ଜଣେ ଦିଜଣ ଦୁହେଁ ଦୁହିଁ "
    "okaru okadu obba iddaru mugguru muggaru muguru naluguru aiduguru aaruguru aruguru eduguru ibbaru moovaru "
    "naalvaru aivaru iruvar moovar doghe doghi tighe tighi dujon tinjon charjon twins".split()
)
#: words for "both" and "all N" (a number of people already named): they count when children are named just
#: before them ("my son and daughter both", "ਮੇਰੇ ਜੁੜਵਾਂ ਪੁੱਤ ਦੋਵੇਂ", "দুজনেই") or an illness follows
BOTH_WORDS = frozenset(
    "both dono donon दोनों दोनो दोन्ही ਦੋਵੇਂ ਦੋਵਾਂ ਦੋਨੋਂ ਤਿੰਨੇ બંને બન્ને બેઉ બેય ત્રણેય ଦୁହେଁ ଦୁହିଁ "
    "ఇద్దరూ ಇಬ್ಬರೂ இருவரும் രണ്ടുപേരും ഇരുവരും ഇരുവരെയും دونوں تینوں तीनों teeno teenon चारों charo doghi doghe "
    "beu banne".split()
)

# ---------------------------------------------------------------------------- numbers that are no count

#: a word right after a number that makes it an age, a time, money, a date, a duration or a count of times
UNIT_WORDS = frozenset(
    "saal sal saal-ka year years yr yrs yo month months mahine mahina week weeks day days din hour hours ghante "
    "ghanta baje am pm rs rupees rupee minutes minute mins min percent baar times dafa vaar occasions mondays "
    "tuesdays wednesdays thursdays fridays saturdays sundays jan feb mar apr may jun jul aug sep sept oct nov dec "
    "january february march april june july august september october november december hafta hafte tarikh "
    "साल वर्ष वर्षीय महीने महीना दिन घंटे बजे रुपये रुपए रुपया मिनट बार दफा हफ्ते हफ्ता हफ़्ते सप्ताह तारीख तारीख़ जनवरी फरवरी "
    "मार्च अप्रैल मई जून जुलाई अगस्त सितंबर सितम्बर अक्टूबर नवंबर नवम्बर दिसंबर दिसम्बर "
    "वर्षांचा वर्षाची वर्षांची वर्षाच्या महिने दिवस तास वाजता मिनिटं आठवडे आठवड्यां varsh varshachya varshachi divas vajta "
    "বছর বছরের মাস দিন টাকা মিনিট ঘণ্টা সপ্তাহ হপ্তা বার তারিখ বোচর bochor bochorer "
    "ਸਾਲ ਸਾਲਾਂ ਮਹੀਨੇ ਦਿਨ ਵਜੇ ਰੁਪਏ ਵਾਰ ਮਿੰਟ ਹਫ਼ਤੇ ਹਫਤੇ ਤਾਰੀਖ "
    "વર્ષ વર્ષનો વર્ષની વરસ મહિના દિવસ વાગ્યે રૂપિયા વાર મિનિટ અઠવાડિયા કલાક varas varasni varasno vage kalak "
    "ବର୍ଷ ବର୍ଷର ମାସ ଦିନ ଟଙ୍କା ଥର ବାଜିଲା ବାଜେ ମିନିଟ ସପ୍ତାହ ତାରିଖ barsa dina thara saptaha "
    "வயது வயசு ஆண்டு மாதம் நாள் நாளா நாளாக மணி மணிக்கு ரூபாய் நிமிஷம் நிமிடம் தடவ வருஷம் வாரம் வாரமா vayasu naal "
    "naala mani manikku thadava tadava varaikkum "
    "సంవత్సరాల ఏళ్ల నెలల రోజుల రోజులు రోజు గంటలకు రూపాయలు సార్లు నిమిష నిముష వారాలు వారాల rojula rojulu roju vaaralu "
    "varalu vaaram varam ganta gantalaku "
    "ವರ್ಷದ ವರ್ಷ ತಿಂಗಳು ದಿನ ದಿನಗಳ ಗಂಟೆ ಗಂಟೆಗೆ ರೂಪಾಯಿ ಸಲ ನಿಮಿಷ ವಾರ ವಾರದ "
    "വയസ്സ് വയസ്സുള്ള വർഷം വർഷ മാസം മാസ ദിവസം ദിവസ മണിക്ക് രൂപ തവണ വട്ടം മിനിറ്റ് ആഴ്ച ആഴ്ചയായി aazhcha divasam "
    "سال سالہ مہینے دن بجے روپے بار مرتبہ منٹ ہفتے ہفتہ".split()
)
#: a word right after a number that makes it a quantity of food or things ("4 kg", "40 eggs"): no count
QUANTITY_WORDS = frozenset(
    "kg kilo kilos gm gms g grams litre litres liters ml packet packets km loaves rotis roti eggs egg plates plate "
    "ladle ladles sacks bags spoons glasses bananas banana katori thali thaliyan "
    "किलो ग्राम लीटर रोटी रोटियां अंडे केले थाली "
    "কেজি লিটার ডিম কলা "
    "ਕਿੱਲੋ ਰੋਟੀਆਂ ਅੰਡੇ "
    "કિલો "
    "କିଲୋ ଅଣ୍ଡା "
    "கிலோ முட்டை லிட்டர் "
    "కిలో కిలోలు "
    "ಕೆಜಿ ಲೋಟ ಮೊಟ್ಟೆ "
    "കിലോ ലിറ്റർ ചാക്ക് bed beds bori बोरी बोरे बिस्तर ಚೀಲ ಮೂಟೆ ಹಾಸಿಗೆ বস্তা ବସ୍ତା ਬੋਰੀ ગૂણ சாக்கு மூட்டை "
    "మూట బస్తా پوری "
    "کلو انڈے".split()
)
#: a word right before a number that makes it no count ("Rs 200", "ward 42", "no. 14", "at 11", "साढ़े दस")
NOT_BEFORE = frozenset(
    "rs ward no number room at since page roll rupees ₹ नं नंबर ক্রমাংক নং ন ନଂ team round sector क्र "
    "date dated dt दिनांक दि तारीख तिथि ਮਿਤੀ তারিখ తేదీ ದಿನಾಂಕ தேதி തീയതി مورخہ tarikh dinank "
    "साढ़े साढे सवा पौने saade sade sava paune ਸਾਢੇ સાડા সাড়ে ସାଢ଼େ".split()
)
#: a word right after a number that makes it a numbered thing ("৭৯৪ নং বিদ্যালয়", "14 no. school")
NOT_AFTER = frozenset("নং নম্বর नं नंबर no number".split())
#: helpline, ambulance and emergency numbers: no count unless a word for children follows them ("108 ने")
HELPLINE_NUMBERS = frozenset({100, 102, 104, 108, 112, 181, 1098, 1100})
#: words for a school class: a number beside one is a class ("class 5 children", "5ஆம் வகுப்பு"), not a count
CLASS_WORDS = (
    "class", "classes", "cl", "std", "standard", "grade", "kaksha", "कक्षा", "क्लास", "इयत्ता", "वर्ग", "শ্রেণি",
    "শ্রেণী", "ক্লাস", "ਜਮਾਤ", "ਕਲਾਸ", "ધોરણ", "ଶ୍ରେଣୀ", "வகுப்பு", "கிளாஸ்", "తరగతి", "ತರಗತಿ", "ക്ലാസ്",
    "جماعت", "کلاس", "vaguppu", "taragati", "taragathi", "dhoran", "jamaat", "ધો", "ध", "cls",
)  # fmt: skip
#: a class word as "of the class" or "in the class" ("তৃতীয় শ্রেণির দুই ছাত্রী", "ക്ലാസിലെ 3 കുട്ടികൾക്ക്", "என்
#: வகுப்பில் ஆறு குழந்தைகள்"): a number before it is a class, a number after it a count
CLASS_OF_WORDS = (
    "শ্রেণির", "শ্রেণীর", "ক্লাসের", "ক্লাসে", "ଶ୍ରେଣୀର", "வகுப்பில்", "வகுப்புக்", "ക്ലാസിലെ", "ക്ലാസിൽ", "ತರಗತಿಯ",
    "తరగతిలో", "ਜਮਾਤ ਦੀ", "classile", "classil", "vargatil",
)  # fmt: skip
#: words for "and", "to" or "from" that may stand between a class word and the number of a second class ("class
#: 1 and 2", "कक्षा 1 से 5", "ધોરણ ૬ થી ૮")
_JOINERS = frozenset(
    "and & aur or to और ও আর व आणि ਤੇ અને ଓ மற்றும் మరియు ಮತ್ತು ഉം اور se से thi થી theke থেকে ru ते till , ،".split()
)
#: words after a class word that make it "in the class" ("class la 3 per", "class lo aiduguru"): the number
#: after them is a count, not the class
_IN_THE_CLASS = frozenset("la lo il me mein ch ma e re te में ਚ માં ൽ".split())
#: "even" after "one" (glued or a word): "not even one" ("एकाही", "ek bhi", "একটা বাচ্চাও")
EVEN = frozenset("ही bhi भी even ও ਵੀ પણ ବି కూడా ಕೂಡ ಸಹ ഉം bhee".split())
EVEN_ENDINGS = ("ও", "ही", "ಊ", "ൂം")

# ---------------------------------------------------------------------------- what happened to the children

#: words (stems; "$": the whole word) for an illness, an admission or a death, in every language: after a number
#: they make it the children who fell ill ("दो बेहोश"), and in a complaint they make a whole of children the count
ILLNESS_STEMS = (
    "vomit", "faint", "unconscious", "diarrh", "loose", "stomach", "sick", "ill$", "illness", "unwell", "fever",
    "itch", "rash", "allerg", "hospital", "admitted", "admit", "icu", "phc", "chc", "ambulance", "nausea",
    "headache", "dizz", "cramp", "poison", "gastro", "drip", "saline", "died", "death", "dead",
    "उल्टी", "उलटी", "उल्टिय", "बेहोश", "चक्कर", "दस्त", "पेट", "बीमार", "बिमार", "बुखार", "खुजली", "अस्पताल", "भर्ती",
    "भरती", "हॉस्पिटल", "एम्बुलेंस", "तबीयत", "तबियत", "मौत", "मृत्यु", "ulti", "ulty", "behosh", "chakkar", "dast$",
    "pet$", "bimar", "beemar", "bukhar", "khujli", "aspatal", "bharti", "bhartee", "tabiyat", "maut$",
    "उलट्या", "ओकारी", "जुलाब", "पोट", "आजारी", "ताप$", "दवाखान", "रुग्णालय", "मृत्यू", "भोवळ", "बेशुद्ध", "ajari",
    "aajari", "dawakhan", "mrutyu", "বমি", "পাতলা", "পায়খানা", "পেট", "অসুস্থ", "জ্বর", "হাসপাতাল", "ভর্তি", "অজ্ঞান",
    "মৃত্যু", "চুলকানি", "বেহুঁশ", "bomi", "osustho", "asustho", "bhorti", "ਉਲਟੀ", "ਦਸਤ", "ਢਿੱਡ", "ਪੇਟ", "ਬਿਮਾਰ",
    "ਬੀਮਾਰ", "ਬੁਖਾਰ", "ਹਸਪਤਾਲ", "ਦਾਖ਼ਲ", "ਦਾਖਲ", "ਬੇਹੋਸ਼", "ਚੱਕਰ", "ਮੌਤ", "ਖੁਜਲੀ", "dakhal", "ઉલટી", "ઊલટી", "ઉલ્ટી",
    "ઝાડા", "પેટ", "બીમાર", "બિમાર", "તાવ", "દવાખાન", "હોસ્પિટલ", "દાખલ", "બેભાન", "ચક્કર", "મોત", "ખંજવાળ", "jhada",
    "davakhan", "bebhan", "ବାନ୍ତି", "ଝାଡା", "ଝାଡ଼ା", "ପେଟ", "ଅସୁସ୍ଥ", "ଜ୍ୱର", "ଡାକ୍ତରଖାନା", "ହସ୍ପିଟାଲ", "ହସପିଟାଲ", "ଭର୍ତ୍ତି",
    "ବେହୋସ", "ମୃତ୍ୟୁ", "ଅଚେତ", "banti", "bemar", "asustha", "வாந்தி", "மயக்க", "மயங்கி", "வயிற்று", "வயிறு", "வயித்து",
    "பேதி", "காய்ச்சல்", "மருத்துவமனை", "ஆஸ்பத்திரி", "ஆஸ்பிட்டல்", "அட்மிட்", "உயிரிழ", "இறந்த", "அரிப்பு", "லூஸ்",
    "vaandhi", "vandhi", "mayakk", "vayiru", "vayithu", "వాంతి", "విరేచన", "బేదులు", "కడుపు", "జ్వరం",
    "ఆసుపత్రి", "ఆస్పత్రి", "హాస్పిటల్", "దవాఖాన", "అస్వస్థ", "అనారోగ్య", "చనిపో", "మరణ", "దురద", "స్పృహ", "మోషన్",
    "vanthi", "vaanthi", "kadupu", "motion", "ವಾಂತಿ", "ಭೇದಿ", "ಹೊಟ್ಟೆ", "ಜ್ವರ", "ಆಸ್ಪತ್ರೆ", "ದಾಖಲ", "ಅಸ್ವಸ್ಥ", "ಮೂರ್ಛೆ",
    "ಮೃತ", "ತುರಿಕೆ", "vaanti", "vanti", "bedi", "hotte", "ഛർദ", "ഛര്ദ്ദ", "വയറിളക്ക", "വയറുവേദന", "പനി", "ആശുപത്രി",
    "അഡ്മിറ്റ്", "ബോധം", "തലകറങ്ങ", "മരിച്ച", "മരണ", "ചൊറിച്ചിൽ", "അസുഖ", "chardi", "vayar", "الٹی", "قے", "دست",
    "پیٹ", "بیمار", "بخار", "اسپتال", "ہسپتال", "داخل", "بیہوش", "موت", "کھجلی",
)  # fmt: skip
#: the words of ``ILLNESS_STEMS`` for a death: no sign, after a number, that the number is children ("दो चूहे मरे")
DEATH_STEMS = ("died", "death", "dead", "मौत", "मृत्यु", "maut$", "मृत्यू", "mrutyu", "মৃত্যু", "ਮੌਤ", "મોત", "ମୃତ୍ୟୁ",
               "உயிரிழ", "இறந்த", "చనిపో", "మరణ", "ಮೃತ", "മരിച്ച", "മരണ", "موت")  # fmt: skip
#: words for hunger, in every language: after a number they make it children who went without ("kuttikal
#: pattini", "20 ta pila roj bhoke"), and they make a complaint one about a shortage
HUNGER_STEMS = (
    "hungry", "hunger", "starv", "भूख", "भूखे", "bhookh", "bhookhe", "bhukh", "bhuk", "उपाशी", "भूक", "भुके", "upashi",
    "খিদে", "ক্ষুধা", "khide", "ਭੁੱਖ", "ભૂખ", "ଭୋକ", "ଉପାସ", "bhoke", "பசி", "பட்டினி", "pasi", "ఆకలి", "akali",
    "ಹಸಿವ", "hasiv", "വിശന്ന", "വിശപ്പ", "പട്ടിണി", "vishann", "pattini", "بھوک", "بھوکے",
)  # fmt: skip
#: words for too little food: with ``HUNGER_STEMS``, they make a complaint one about a shortage ("kam padta hai")
SHORT_STEMS = (
    "insufficient", "shortage", "less", "kam$", "कम$", "कमी", "पुरत", "पुरले", "ಕಡಿಮೆ", "తక్కువ", "సరిపో", "ઓછું", "ઓછી",
    "ଅଳ୍ପ", "କମ୍", "কম$", "ਘੱਟ", "کم$", "കുറവ", "തികഞ്ഞില്ല", "குறைவ", "பத்தல", "போதல", "kami", "kammi", "ochhu",
)  # fmt: skip
#: words that, right after a bare number, say it is a number of affected children ("3 ko ulti", "two in
#: hospital", "16 of them", "20 से अधिक"); they count only in a text that speaks of children
AFFECTED_AFTER = frozenset(
    "had got were went are fell fainted vomited complained needed admitted have others other more in "
    "ko को se ne ने kon کو نے से سے thi ਤੋਂ ତୁ ku kku".split()
)
#: case endings glued to a number that make it the children something happened to ("পাঁচজনকে", "પંદરને")
DATIVE_ENDINGS = frozenset(
    "ने को কে জনকে ને ਨੂੰ க்கு பேருக்கு కి కు ಗೆ ಕ್ಕೆ ക്ക് ുക്കു ുക്കുക് ికి ికీ ిని ಿಗೆ ಿಗೂ ଙ୍କୁ ांना ंना ko ku ki ke kku ukku iki mandiki".split()
)
#: case words after a weak number word that make it a number of children ("do ko ulti")
WEAK_DATIVE = frozenset("ko को کو".split())
#: words that stand between a number and a word for children when the number is no count ("2 per child")
NOT_BETWEEN = frozenset("per each every for प्रति हर har prati".split())
#: words before a number that name a total ("कुल 19", "ekun 6", "ಒಟ್ಟು ಮೂವರು", "সংখ্যা ১১")
TOTAL_BEFORE = frozenset("total कुल kul ekun एकूण ಒಟ್ಟು মোট ସଂଖ୍ୟା संख्या সংখ্যা ennam എണ്ണം".split())
#: words just before a number that make it the children left without ("बाकी 25 जन", "the last 30", "ulida
#: nalavattu"); with a "not" or "without" after a number they mark the children who went without the meal, who
#: are the count beside the totals of a shortage ("60 pila, 40 eggs, baki 20": 20)
REMAINDER_BEFORE = frozenset(
    "baaki baki baqi बाकी remaining rest last ulida ಉಳಿದ మిగిలిన మిగతా ബാക്കി বাকি ବାକି baki ਬਾਕੀ બાકીના બાકી "
    "उरलेल्या शेष chhella chhela છેલ્લા शेवटच्या शेवटचे pachhla પાછળના kadaisi கடைசி chivari చివరి ಕೊನೆಯ അവസാന "
    "শেষের ଶେଷ آخری باقی".split()
)
#: "not", "no", "without" and "empty" just after a number: the children who went without ("পনেরো জন ডিম পায়নি",
#: "20 jana ku na egg")
WITHOUT_AFTER = frozenset(
    "not no none nothing without nahi nahin नहीं नही नहि ना बिना बगैर bina khali खाली kuch na না নি নেই ফাঁকা "
    "নাই ન નથી nathi nthi ନାହିଁ ନାହି ନାହିଁ kichi khali ଖାଲି illa இல்லை இல்ல இல்லாம లేదు ledu లేక ಇಲ್ಲ illa "
    "ഇല്ല കിട്ടിയില്ല नाही काहीच ਨਹੀਂ ਨੀ ਬਿਨਾਂ نہیں بغیر بنا nai".split()
)

# ---------------------------------------------------------------------------- several numbers

#: words (or word endings) that make the number before them a whole of which a later number is a part
#: ("চল্লিশ জনের মধ্যে পনেরো জন", "112 மாணவர்களில் 21 பேர்", "45 chhokra mathi pandar")
PART_OF_WORDS = frozenset("among मध्ये মধ্যে madhye ਵਿੱਚੋਂ માંથી ମଧ୍ୟରୁ پیکی ಪೈಕಿ mathi tyatil".split())
#: the words of ``PART_OF_WORDS`` that mean "of them" before a number too ("ਬੱਚਿਆਂ ਵਿੱਚੋਂ ਤਿੰਨ"), not "in"
PART_OF_BEFORE = PART_OF_WORDS - {"मध्ये"}
#: "in": before "from" (``FROM_AMONG``) or just before a number it makes a part too ("40 में से 15", "सौ बच्चों
#: में साठ", "bachon mein se ek")
IN_WORDS = frozenset("में me mein میں".split())
PART_OF_ENDINGS = ("களில்", "ரில்", "માંથી", "లో", "ಲ್ಲಿ", "ിൽ", "ਵਿੱਚੋਂ")
#: "from" after "among": a part of the children, not a share ("में से", "میں سے")
FROM_AMONG = frozenset("से se سے".split())
#: words after a number that count it as others beside a child named before it ("Rinki and eleven others": 12,
#: "6 aur bachche": 7, "బారహ अन्य"), or added to the number counted before it ("13 ... and two more": 15)
MORE_AFTER = frozenset("other others more aur और अन्य ਹੋਰ અન્ય অন্য অন্যান্য اور".split())
#: words before a number that count it as more children beside those named before ("inka 12 mandi", "మరో 16",
#: "மேலும் 9", "ଆଉ 4", "बीजां तेर")
MORE_BEFORE = frozenset(
    "another inka inko innum itar इतर मरो ఇంకో ఇంకా మరో మరొక இன்னும் மேலும் ಇನ್ನೂ ಇನ್ನು ഇനിയും ആരോ aro আরও আরো "
    "ଆଉ બીજાં બીજા બીજી अन्य અન્ય".split()
)
#: words after a number (within a few words) that say "also" or "too": more children beside one named before
#: ("उसके अलावा दस बच्चों को भी", "two of her classmates ... too")
ALSO_AFTER = frozenset("also too bhi भी ਵੀ પણ ବି కూడా ಕೂಡ கூட കൂടി".split())
#: words before "also" that make it "still" ("अब भी भर्ती", "ਅਜੇ ਵੀ")
STILL_BEFORE = frozenset("अब ab abhi अभी ਅਜੇ ajje ajj ইখনও এখনও innum".split())
#: words for the register or a school's strength: beside a number, or in its sentence, they make it no count of
#: those affected ("310 students on roll", "पंजी में 96", "ਰਜਿਸਟਰ ਵਿੱਚ ਅੱਜ 74 ਬੱਚੇ ਦਰਜ")
STRENGTH_WORDS = frozenset(
    "roll register registered enrolled enrolment enrollment strength रजिस्टर register-me नामांकन পট पट "
    "ছাত্রসংখ্যা হাজিরা पटावर patavar पंजी पंजिका गिनती ଖାତା ଖାତାରେ খাতায় খাতা ਰਜਿਸਟਰ రిజిస్టర్ ಹಾಜರಾತಿ "
    "ರಿಜಿಸ್ಟರ್ രജിസ്റ്ററിൽ رجسٹر haziri hajiri हाजिरी".split()
)
#: "there are" right after a number and its word for children: the school's strength ("430 കുട്ടികൾ ഉണ്ട്",
#: "250 chhokra che", "143 ଜଣ ପିଲା ଅଛନ୍ତି")
THERE_ARE = (
    "ഉണ്ട്", "ഉള്ള", "und", "ulla", "ache", "achhe", "আছে", "ଅଛନ୍ତି", "ଅଛି", "che", "chhe", "છે", "आहेत", "ఉన్నారు",
    "ಇದ್ದಾರೆ", "இருக்காங்க", "இருந்த", "there",
)  # fmt: skip
#: words just before a number, or just after it or its word for children, that make it the children present
#: ("70 उपस्थित", "आते हैं 70", "hajar hata 85"): no count, unless a meal was cooked for fewer and nothing else
#: is counted ("40 का खाना, आते हैं 70": 70)
ATTENDANCE_WORDS = frozenset(
    "present attend attending aate आते आती उपस्थित उपस्थिति हाजिर हाज़िर hajar হাজির উপস্থিত ਹਾਜ਼ਰ "
    "ਹਾਜਰ હાજર ହାଜର ଉପସ୍ଥିତ హాజరు ಹಾಜರ ഹാജർ حاضر asal aunde ਆਉਂਦੇ yetat येतात".split()
)
#: words after a number of children (and its word for children) that make it the children a meal was cooked or
#: was enough for ("40 का खाना", "सौ बच्चों के लिए", "140 jon er ranna", "৭০ জনের রান্না"); a phrase's last word is a
#: stem ("का बन": "का बनता")
FOR_AFTER = (
    "का खाना", "का भोजन", "का बन", "ka khana", "ka bhojan", "ka ban", "के लिए", "के लिये", "ke liye", "ke liya",
    "के लायक", "ke layak", "लायक", "layak", "के हिसाब", "ke hisab", "for", "ਲਈ", "layi", "लिए", "साठी", "sathi",
    "માટે", "mate", "ପାଇଁ", "pain", "hisabare", "er ranna", "er khabar", "জনের রান্না", "জনের খাবার", "کے لیے",
    "کے لئے", "ka hi khana", "का ही खाना", "సరిపోతుంది", "saripoye", "saripotundi", "ಸಾಕಾಗುತ್ತೆ", "ಸಾಕಾಗಲ್ಲ",
)  # fmt: skip
#: words before a number that make it the children a meal was cooked or was enough for ("only for the first 40")
FOR_BEFORE = frozenset("for".split())
#: endings of a number or of its word for children that make it the children a meal was cooked for ("સાઠનું",
#: "मुलांसाठी", "കുട്ടികൾക്കുള്ള")
FOR_ENDINGS = ("નું", "साठी", "ക്കുള്ള")
#: "one" thing for a few children: at most this many, this many words apart ("एक केला चार बच्चो में")
SHARE_MOST, SHARE_WINDOW = 10, 4
#: words after "one" that make it "the same", not one thing ("एक ही class", "ఒకే బడి")
SAME_AFTER = frozenset("ही hi hee same ekai".split())
#: places: "one" before one is "a" ("ek school mein teen bachon ko"), not one thing shared out
PLACE_STEMS = (
    "school", "village", "hostel", "ashram", "स्कूल", "विद्यालय", "शाला", "गाँव", "गांव", "ग्राम", "gaon", "gaam", "gram",
    "স্কুল", "বিদ্যালয়", "গ্রাম", "ਸਕੂਲ", "ਪਿੰਡ", "શાળા", "નિશાળ", "ગામ", "ସ୍କୁଲ", "ବିଦ୍ୟାଳୟ", "ଗାଁ", "பள்ளி", "கிராம",
    "బడి", "పాఠశాల", "గ్రామ", "ಶಾಲೆ", "ಗ್ರಾಮ", "സ്കൂൾ", "ഗ്രാമ", "اسکول", "مدرس", "گاؤں", "shala", "shal", "iskul",
)  # fmt: skip
#: words after a few children that share out one thing named before them ("एक केला चार बच्चो में")
SHARE_WORDS = frozenset(
    "में me mein main between among share shared split baant बांट ভাগ bhag ಹಂಚಿಕೊಳ್ಳಬೇಕು میں ভিতরে ଭିତରେ".split()
)

# ---------------------------------------------------------------------------- the tables, folded


def _fused(unit: str) -> set[str]:
    """The spellings of a number written glued after a tens or hundreds stem: its first vowel as a vowel sign
    ("ಐದು": "ೈದು"; "അഞ്ച്": "ഞ്ച്"), or after the glide "യ" in Malayalam and "y" in Latin letters."""
    first = unit[0]
    if first.isascii():
        return {unit, "y" + unit} if first in "aeiou" else {unit}
    name = unicodedata.name(first, "")
    if " LETTER " not in name:
        return {unit}
    if name.endswith(" LETTER A"):
        sign = ""
    else:
        try:
            sign = unicodedata.lookup(name.replace(" LETTER ", " VOWEL SIGN "))
        except KeyError:
            return {unit}  # a consonant: written as it is
    return {sign + unit[1:], "\u0d2f" + sign + unit[1:]} if name.startswith("MALAYALAM") else {sign + unit[1:]}


def _number_words() -> tuple[dict[str, int], dict[str, frozenset[str]]]:
    """Every number word, folded, with its value and the languages that use it: the words of
    ``NUMBER_WORDS_BY_LANGUAGE``, and tens and hundreds fused with the numbers after them (``FUSING_STEMS``)."""
    values: dict[str, int] = {}
    languages: dict[str, set[str]] = {}

    def add(word: str, n: int, language: str) -> None:
        values.setdefault(word, n)
        languages.setdefault(word, set()).add(language)

    for language, words in NUMBER_WORDS_BY_LANGUAGE.items():
        for word, n in words.items():
            add(normalize(word), n, language)
    for language, stems in FUSING_STEMS.items():
        for stem, n in sorted(stems.items(), key=lambda item: item[1]):  # tens first: hundreds fuse with them
            step = 100 if n % 100 == 0 else 10
            units = [(w, v) for w, v in values.items() if language in languages[w] and 0 < v < step
                     and w.isascii() == stem.isascii()]  # fmt: skip
            for unit, v in units:
                for spelling in _fused(unit):
                    add(normalize(stem + spelling), n + v, language)
    return values, {w: frozenset(s) for w, s in languages.items()}


NUMBER_WORDS, _NUMBER_LANGUAGES = _number_words()
#: number words less their last vowel sign or virama, before an ending that starts with a vowel sign
_NUMBER_STEMS = {
    w[:-1]: w for w in NUMBER_WORDS
    if len(w) >= 3 and (unicodedata.category(w[-1]).startswith("M") or w.isascii() and len(w) >= 5 and w[-1] in "aeiou")
}  # fmt: skip
_HUNDRED_FRACTIONS = {normalize(w): n for w, n in HUNDRED_FRACTIONS.items()}
_CHILD_STEMS = tuple(sorted({normalize(s) for stems in CHILD_STEMS.values() for s in stems}
                            | {normalize(s) for s in FRIEND_STEMS}, key=len, reverse=True))  # fmt: skip
_FRIEND_STEMS = tuple(normalize(s) for s in FRIEND_STEMS)


def _phrases(phrases: tuple[str, ...] | frozenset[str]) -> re.Pattern[str]:
    """Any of ``phrases`` at the start of a word of the folded text."""
    return re.compile("|".join(rf"(?<!{_LETTER}){re.escape(normalize(p))}" for p in sorted(phrases, key=len,
                                                                                       reverse=True)))  # fmt: skip


def _stems(entries: tuple[str, ...]) -> tuple[frozenset[str], tuple[str, ...]]:
    """A table of words as (whole words, stems): an entry ending in "$" is a whole word, any other a stem."""
    folded = [normalize(e.rstrip("$")) for e in entries]
    return (frozenset(f for f, e in zip(folded, entries) if e.endswith("$")),
            tuple(f for f, e in zip(folded, entries) if not e.endswith("$")))  # fmt: skip


_ILLNESS, _DEATH, _HUNGER, _SHORTAGE = (
    _stems(t) for t in (ILLNESS_STEMS, DEATH_STEMS, HUNGER_STEMS, HUNGER_STEMS + SHORT_STEMS)
)
_ALL_CHILDREN = _phrases(ALL_CHILDREN_PHRASES)
_ONE_CHILD = _phrases(ONE_CHILD_STEMS)
_CLASS_WORDS = frozenset(normalize(w) for w in CLASS_WORDS)
_CLASS_OF_WORDS = frozenset(normalize(w) for w in CLASS_OF_WORDS)
_UNIT_STEMS = tuple(normalize(w) for w in UNIT_WORDS if not w.isascii())
_QUANTITY_STEMS = tuple(normalize(w) for w in QUANTITY_WORDS if not w.isascii())
_DATIVE = frozenset(normalize(w) for w in DATIVE_ENDINGS)
_PLACE_STEMS = tuple(normalize(w) for w in PLACE_STEMS)
_GROWN_UP_STEMS = tuple(normalize(w) for w in GROWN_UP_STEMS)
_THERE_ARE = tuple(normalize(w) for w in THERE_ARE)
_FOR_WORDS = frozenset(normalize(p) for p in FOR_AFTER if " " not in p)
_FOR_PHRASES = tuple(normalize(p) for p in FOR_AFTER if " " in p)  # the last word of a phrase: a stem ("का बन")
_GIVEN_ENDINGS = tuple(w for w in _DATIVE if not w.isascii()) + ("kku", "ukku", "ki", "ku", "ke")
_SUFFIXES = frozenset(normalize(s) for s in NUMBER_SUFFIXES)
#: Tamil's doubled consonant at the end of a word before the next one ("பத்துக் குழந்தைகள்")
_SANDHI = frozenset("க் ச் த் ப்".split())
_PERSON = frozenset(normalize(s) for s in PERSON_WORDS)
_PERSON_STEMS = tuple(w for w in _PERSON if not w.isascii())
_PERSON_NUMERALS = frozenset(normalize(w) for w in PERSON_NUMERALS)
_BOTH = frozenset(normalize(w) for w in BOTH_WORDS)
_STRENGTH = frozenset(normalize(w) for w in STRENGTH_WORDS)
_ATTENDANCE = frozenset(normalize(w) for w in ATTENDANCE_WORDS)
_BREAK = ".!?।॥;:|۔؟"
#: a comma: the end of a clause, which a number and its word for children do not cross ("ఈగలు రెండు మూడు, మా అమ్మాయి")
_COMMA = ",،"
_TOKEN = re.compile(rf"{_LETTER}+|[{re.escape(_BREAK + _COMMA)}]")
#: dates, times, decimals, money and numbered references, read as no number at all
_NOT_A_COUNT = re.compile(
    r"\d+(?:\s*[:/]\s*|[.])\d+(?:\s*[./]\s*\d+)*"  # 2:30, 19/12/2023, 14.08, 2345/.. (not "52. 22")
    r"|(?:rs\.?|₹|inr)\s*\d[\d,]*"  # money
    r"|\d+\s*-\s*(?:year|yr|saal|sal|varsh)"  # 10-year-old
    r"|#\s*\d+"
    r"|\(\s*\d+\s*\)"  # an age after a name: "हरमन (7)"
    r"|,\s*\d{1,2}\s*,",  # an age between commas: "a neighbour's daughter, 8, said"
    re.IGNORECASE,
)

# ---------------------------------------------------------------------------- reading numbers


class _Number:
    """A number read from one or more words of a text: its value, where it stands and what is glued to it."""

    __slots__ = ("value", "start", "end", "ending", "digits", "weak", "person", "ordinal", "both", "languages",
                 "each", "fraction")  # fmt: skip

    def __init__(self, value: int, at: int, ending: str, base: str | None):
        self.value, self.start, self.end, self.ending = value, at, at, ending
        self.digits = base is None
        self.weak = base in WEAK_NUMBER_WORDS
        self.person = ending in _PERSON or base in _PERSON_NUMERALS
        self.ordinal = ending.lstrip("-") in ORDINAL_SUFFIXES
        self.both = base in _BOTH
        self.languages = None if base is None else _NUMBER_LANGUAGES.get(base, frozenset())
        self.each = False  # a number said twice: "one each" ("एक एक", "do-do")
        self.fraction = base in _HUNDRED_FRACTIONS  # "डेढ़" waiting for its hundred

    @property
    def dative(self) -> bool:
        return self.ending in _DATIVE


def _read(word: str) -> tuple[int, str, str | None] | None:
    """The number a word says, the ending glued to it, and the number word it is read from (None: digits): leading
    digits of any script ("12", "১২টি", "12-க்கும்"), a number word, or a number word with a known ending
    ("পাঁচজনের", "ನಾಲ್ವರಿಗೂ"). A word for children is no number ("beti" is no "be" + "ti")."""
    digits = ""
    for ch in word:
        if not ch.isdigit():
            break
        digits += str(unicodedata.digit(ch))
    if digits:
        return (int(digits), word[len(digits) :], None) if len(digits) <= 4 else None
    if word in NOT_NUMBERS:
        return None
    if word in NUMBER_WORDS:
        return NUMBER_WORDS[word], "", word
    if word[-2:] in _SANDHI:
        word = word[:-2]  # "பத்துப் பதினைஞ்சு", "ஒருவனுக்குத்": a consonant doubled before the next word
        if word in NUMBER_WORDS:
            return NUMBER_WORDS[word], "", word
    if word in _HUNDRED_FRACTIONS:
        return _HUNDRED_FRACTIONS[word], "", word
    if _is_child_word(word):
        return None
    for cut in range(len(word) - 1, 1, -1):
        ending = word[cut:]
        if ending not in _SUFFIXES:
            continue
        base = word[:cut]
        if base not in NUMBER_WORDS and (unicodedata.category(ending[0]).startswith("M") or ending.isascii()):
            base = _NUMBER_STEMS.get(base, base)  # "ನಾಲ್ವರ" + "ಿಗೂ": "ನಾಲ್ವರು"
        if base in NUMBER_WORDS and base not in WEAK_NUMBER_WORDS:
            return NUMBER_WORDS[base], ending, base
    return None


def _numbers(words: list[str]) -> list[_Number]:
    """The numbers of a word list, neighbouring numbers of one language joined: a compound ("twenty two", "एक सौ
    बीस", "നൂറ്റി അറുപത്തിയഞ്ച്") or a range ("8 10", "দশ বারোটা", "सात आठ"), which counts as its larger end; a
    number said twice is "each"; "डेढ़" without its hundred is no number."""
    found: list[_Number] = []
    for i, word in enumerate(words):
        read = _read(word)
        if read is None:
            continue
        number = _Number(read[0], i, read[1], read[2])
        last = found[-1] if found else None
        if (
            last is not None
            and last.end == i - 1
            and not last.ending
            and not number.ordinal
            and _joinable(last, number)
        ):
            if number.value == last.value:
                last.each = True
            else:
                last.value = _join(last.value, number.value)
                last.fraction = last.fraction and number.value != 100
            last.end, last.ending = i, number.ending
            last.person = last.person or number.person
            last.weak = last.weak and number.weak
            continue
        found.append(number)
    return [n for n in found if not n.fraction]


def _joinable(first: _Number, second: _Number) -> bool:
    """Whether two neighbouring numbers are one: both in digits, number words of one language, or "डेढ़" and
    its hundred."""
    if first.fraction and second.value == 100:
        return True
    if first.digits or second.digits:
        return first.digits and second.digits
    return bool(first.languages and second.languages and first.languages & second.languages)


def _join(first: int, second: int) -> int:
    """Two numbers written side by side: a compound ("twenty" "two", "ek" "sau", "একশো" "চল্লিশ") or a range,
    which gives its larger end."""
    if second in (100, 1000) and first < second:
        return first * second
    if first >= 100 and first % 100 == 0 and second < 100:
        return first + second
    if 20 <= first < 100 and first % 10 == 0 and second < 10:
        return first + second
    return max(first, second)


# ---------------------------------------------------------------------------- one number and its neighbours


def _is_child_word(word: str) -> bool:
    return word.startswith(_CHILD_STEMS)


def _mentions(words: list[str], stems: tuple[frozenset[str], tuple[str, ...]]) -> bool:
    """Whether one of ``words`` is one of the words of a ``_stems`` table."""
    whole, starts = stems
    return any(w in whole or w.startswith(starts) for w in words)


def _before(words: list[str], number: _Number) -> str:
    """The word before a number, over a full stop ("No. 14")."""
    i = number.start - 1
    if i >= 0 and words[i] == ".":
        i -= 1
    return words[i] if i >= 0 else ""


def _clause_after(words: list[str], number: _Number, span: int, stop: str = _BREAK) -> list[str]:
    """Up to ``span`` words after a number, up to the end of its sentence (or of what ``stop`` ends)."""
    after = []
    for w in words[number.end + 1 : number.end + 1 + span]:
        if w in stop:
            break
        after.append(w)
    return after


def _sentence(words: list[str], number: _Number) -> list[str]:
    """The words of the sentence a number stands in."""
    lo, hi = number.start, number.end
    while lo > 0 and words[lo - 1] not in _BREAK:
        lo -= 1
    while hi + 1 < len(words) and words[hi + 1] not in _BREAK:
        hi += 1
    return words[lo : hi + 1]


def _is_class(words: list[str], number: _Number) -> bool:
    """Whether a number names a class: an ordinal, a class word just after it ("5 वीं कक्षा", "৫ম শ্রেণির"), or a
    class word just before it, over "and", "to" and other class numbers ("class 1 and 2", "ધોરણ ૬ થી ૮") but not
    over a class number with its ending ("ધો. ૨નાં પાંચ ભૂલકાં"), after a class named before its word ("7వ
    తరగతి పదిహేను మంది") nor after "in the class" ("ক্লাসের দুই ছাত্রী", "class lo aiduguru")."""
    if number.ordinal:
        return True
    after = words[number.end + 1] if number.end + 1 < len(words) else ""
    if after in _CLASS_WORDS or after in _CLASS_OF_WORDS:
        return True
    i = number.start - 1
    while i >= 0 and number.start - i <= 4:
        read = None if words[i] in _JOINERS or words[i] == "." else _read(words[i])
        if read is not None and read[1] and read[1].lstrip("-") not in ORDINAL_SUFFIXES:
            return False
        if read is None and words[i] not in _JOINERS and words[i] != ".":
            break
        i -= 1
    if i < 0 or number.start - i > 4 or words[i] not in _CLASS_WORDS:
        return False
    if i > 0 and _read(words[i - 1]) is not None:
        return False
    return not (i + 1 < len(words) and words[i + 1] in _IN_THE_CLASS)


def _why_not(words: list[str], number: _Number) -> str:
    """Why a number is no count whatever stands beside it: ``quantity`` (of food or things), ``unit`` (an age, a
    time, money, a date, a count of times), ``reference``, ``whole`` ("out of 40", "40 of 73"), ``class``,
    ``year``, ``each``; "" when it may be one."""
    after = words[number.end + 1] if number.end + 1 < len(words) else ""
    if after in QUANTITY_WORDS or after.startswith(_QUANTITY_STEMS):
        return "quantity"
    if after in UNIT_WORDS or after.startswith(_UNIT_STEMS):
        return "unit"
    before = _before(words, number)
    if before in NOT_BEFORE or after in NOT_AFTER:
        return "reference"
    if before == "of" and number.start >= 2 and (words[number.start - 2] == "out" or _read(words[number.start - 2])):
        return "whole"
    if _is_class(words, number):
        return "class"
    if number.digits and not _child_after(words, number):
        if number.value in HELPLINE_NUMBERS:
            return "reference"
        if 1900 <= number.value <= 2100:
            return "year"
    return "each" if number.each else ""


def _child_after(words: list[str], number: _Number, window: int = NUMBER_WINDOW) -> bool:
    """A word for children within ``window`` words after the number, with no break, comma or "per" between."""
    for w in words[number.end + 1 : number.end + 1 + window]:
        if _is_child_word(w):
            return True
        if w in _BREAK or w in _COMMA or w in NOT_BETWEEN or _read(w) is not None:
            return False
    return False


def _affected_after(words: list[str], number: _Number, span: int = NUMBER_WINDOW, stop: str = _BREAK) -> bool:
    """An illness, an admission or hunger in the words just after a number, in its sentence (or what ``stop``
    ends; not a death: "दो चूहे मरे")."""
    after = _clause_after(words, number, span, stop)
    return _mentions(after, _HUNGER) or _mentions(after, _ILLNESS) and not _mentions(after, _DEATH)


def _not_even(words: list[str], number: _Number) -> bool:
    """Whether "one" is "not even one" ("एकाही मुलानं खाल्लं नाही", "একটা বাচ্চাও অসুস্থ হয়নি", "ek bhi bachha"):
    "even" glued to it or to its word for children, or just after it."""
    after = words[number.end + 1 : number.end + 3]
    if number.ending in EVEN or any(w in EVEN for w in after):
        return True
    return bool(after) and _is_child_word(after[0]) and after[0].endswith(EVEN_ENDINGS)


def _grown_ups_before(words: list[str], number: _Number) -> bool:
    """Whether a word for grown-ups (a cook, a teacher, a parent) stands just before a number in its clause."""
    for w in reversed(words[max(0, number.start - NUMBER_WINDOW) : number.start]):
        if w in _BREAK or w in _COMMA or w == "of":
            return False
        if w.startswith(_GROWN_UP_STEMS):
            return True
    return False


def _attending(words: list[str], number: _Number) -> bool:
    """Whether a word for being present stands just before a number or just after it and its word for children
    ("70 उपस्थित", "आते हैं 70", "hajar hata 85")."""
    beside = words[_after_children(words, number) :][:2] + words[max(0, number.start - 2) : number.start]
    return any(w in _ATTENDANCE for w in beside)


def _after_children(words: list[str], number: _Number) -> int:
    """Where the words after a number and its words for children or people begin ("40 बच्चों का खाना": "का")."""
    i = number.end + 1
    while i < len(words) and i <= number.end + 2 and (_is_child_word(words[i]) or words[i] in _PERSON):
        i += 1
    return i


def _counts(words: list[str], number: _Number, children_spoken_of: bool) -> bool:
    """Whether a number counts children: a word for children after it, a word for children just before it with
    digits, an ending or a classifier ("bache 212", "পোলা দুইটার"), a person classifier or numeral (not of
    grown-ups), or, in a text about children, a case ending, an "affected" word, an illness, a word for being
    present, "of them", "among them", "the rest" or "total" beside it. A weak number word, "one" and a number of
    four digits need a word for children just after them; "both" a child named just before it."""
    after = words[number.end + 1] if number.end + 1 < len(words) else ""
    if number.value == 1 and _not_even(words, number):
        return False
    if number.weak or number.value == 1 or number.value >= 1000:
        if _child_after(words, number, 2 if number.value < 1000 else 1):
            return True
    elif _child_after(words, number):
        return True
    if after in WELL_AFTER or number.value >= 1000:
        return False
    before = words[number.start - 1] if number.start > 0 else ""
    if _is_child_word(before) and (number.digits or number.ending or number.person):
        return True
    per_child = after.isascii() and _child_after(words, _Number(0, number.end + 1, "", None), 1)  # "2 per child"
    if number.person or after.startswith(_PERSON_STEMS) or after in _PERSON and not per_child:
        return not _grown_ups_before(words, number) and (number.value > 1 or _child_after(words, number, 1))
    if not children_spoken_of:
        return False
    if _before(words, number) in FROM_AMONG and number.start > 1 and words[number.start - 2] in IN_WORDS:
        return True  # "bachon mein se ek ki maut"
    if number.value > 1 and not number.weak and _attending(words, number):
        return True  # "आते हैं 70", "hajar hata 85"
    dative = number.dative or after in _DATIVE
    if number.both:
        named = words[max(0, number.start - NUMBER_WINDOW) : number.start]
        affected = _affected_after(words, number, 5, _BREAK + _COMMA)
        return dative or affected or any(_is_child_word(w) for w in named if w not in _BREAK)
    if number.weak:
        return number.dative or after in WEAK_DATIVE or after in MORE_AFTER and _after_is(words, number, _DATIVE)
    if number.value == 1:
        return False
    if after == "of":  # "16 of them were admitted", not "two of them fight"
        return _affected_after(words, number, 8) or _deprived(words, number)
    before = _before(words, number)
    if before == ":" and number.start > 1:
        before = words[number.start - 2]  # "ସଂଖ୍ୟା: ଅଠର"
    if before in TOTAL_BEFORE or before in PART_OF_BEFORE or before.endswith(PART_OF_ENDINGS):
        return True  # "कुल 19", "ਬੱਚਿਆਂ ਵਿੱਚੋਂ ਤਿੰਨ"
    if before in REMAINDER_BEFORE:
        return True  # "the last 30 get none"
    return dative or after in AFFECTED_AFTER or after in MORE_AFTER or _affected_after(words, number)


def _after_is(words: list[str], number: _Number, table: frozenset[str]) -> bool:
    """Whether the second word after a number is in ``table`` ("do aur ko chakkar")."""
    return number.end + 2 < len(words) and words[number.end + 2] in table


# ---------------------------------------------------------------------------- a number among the others


def _given(words: list[str], number: _Number) -> bool:
    """Whether a number of children is the ones something is given to or shared among: a case ending or "among"
    after it or its word for children, or "between" before it ("2 bachhon me", "నలుగురు పిల్లలకి", "split between
    4 kids")."""
    if number.dative:
        return True
    i = number.end + 1
    while i < len(words) and i <= number.end + 2 and (_is_child_word(words[i]) or words[i] in _PERSON):
        if words[i].endswith(_GIVEN_ENDINGS):
            return True
        i += 1
    if i + 1 < len(words) and words[i + 1] in FROM_AMONG:
        return False  # "چھ بچوں میں سے ایک": one of them, not one thing for them
    if any(w in SHARE_WORDS for w in words[max(0, number.start - 2) : number.start]):
        return True
    return i < len(words) and (words[i] in SHARE_WORDS or words[i] in _DATIVE)


def _shares(words: list[str], number: _Number, uncounted: list[tuple[_Number, str]]) -> bool:
    """Whether a few children share one thing out ("ek bachhe ko ek chammach", "నలుగురు పిల్లలకి ఒక్క పండు",
    "एक केला चार बच्चो में"): "one" of something (no count itself, not "a school", not "the same") a few words from
    a small number of children that it is given to, in the same clause."""
    if number.value > SHARE_MOST:
        return False
    for other, why in uncounted:
        following = words[other.end + 1] if other.end + 1 < len(words) else ""
        if other.value != 1 or why or following in SAME_AFTER or following.startswith(_PLACE_STEMS):
            continue
        lo, hi = sorted((other.start, number.start))
        if hi - lo > SHARE_WINDOW or any(w in _BREAK or w in _COMMA or w.isdigit() for w in words[lo + 1 : hi]):
            continue
        if _given(words, number):
            return True
    return False


def _is_whole(words: list[str], number: _Number, following: _Number | None) -> bool:
    """Whether a number is a whole of which the next number is a part ("40 में से 15", "112 மாணவர்களில் 21",
    "૯૦માંથી વીસને")."""
    if following is None or following.start - number.end > 5:
        return False
    between = words[number.end + 1 : following.start]
    among = any(w in IN_WORDS and nxt in FROM_AMONG for w, nxt in zip(between, between[1:]))
    among = among or bool(between) and between[-1] in IN_WORDS  # "सौ बच्चों में साठ"
    return (
        among
        or number.ending.endswith(PART_OF_ENDINGS)
        or any(w in PART_OF_WORDS or w.endswith(PART_OF_ENDINGS) for w in between)
    )


def _fell_ill(words: list[str], whole: _Number, part: _Number) -> bool:
    """Whether the whole of a whole and a part is the children who fell ill: an illness in its sentence before the
    part ("बीमार हुए 40 बच्चों में से दो", "22 બાળકો બીમાર, તેમાંથી ૧૦ને"), not only after it ("112 மாணவர்களில் 21
    பேருக்குக் குமட்டல்")."""
    lo = whole.start
    while lo > 0 and words[lo - 1] not in _BREAK:
        lo -= 1
    return _mentions(words[lo : part.start], _ILLNESS)


def _fed(words: list[str], number: _Number) -> bool:
    """Whether a number is the children a meal was cooked or was enough for ("40 का खाना", "for 60 kids", "৭০
    জনের রান্না", "मुलांसाठी"): the words after it and its word for children, or "for" just before it."""
    if any(w in FOR_BEFORE for w in words[max(0, number.start - 3) : number.start]):
        return True
    if number.ending.endswith(FOR_ENDINGS):
        return True
    i = _after_children(words, number)
    if any(w.endswith(FOR_ENDINGS) for w in words[number.end + 1 : i]):
        return True
    following = " ".join(words[i : i + 3])
    return i < len(words) and words[i] in _FOR_WORDS or following.startswith(_FOR_PHRASES)


def _strength(words: list[str], number: _Number, illness: bool = False) -> str:
    """``present`` when a number is the children present ("70 उपस्थित", "आते हैं 70"), ``register`` when it is
    the school's strength: a register word beside it ("310 students on roll", "पंजी में 96"), or in its sentence
    with no case ending on it and no illness or "without" after it, or "there are" after it in a complaint about
    no ``illness`` ("430 കുട്ടികൾ ഉണ്ട്"); else ""."""
    if _attending(words, number):
        return "present"
    i = _after_children(words, number)
    there = words[i] if i < len(words) else ""
    if (
        i > number.end + 1
        and not illness
        and (there in _THERE_ARE or not there.isascii() and there.startswith(_THERE_ARE))
    ):
        return "register"
    near = words[number.end + 1 : number.end + 1 + NUMBER_WINDOW + 2] + words[max(0, number.start - 2) : number.start]
    if any(w in _STRENGTH for w in near):
        return "register"
    if number.dative or _deprived(words, number) or not any(w in _STRENGTH for w in _sentence(words, number)):
        return ""
    return "" if _affected_after(words, number, NUMBER_WINDOW + 2) else "register"


def _deprived(words: list[str], number: _Number) -> bool:
    """Whether a number counts the children left without: "the rest" just before it, or a "not", a "without" or
    hunger just after it in its sentence ("বাকি ২৫ জন", "veeh bachian nu mili hi nahi", "কুড়িজন ফাঁকা থালা")."""
    if any(w in REMAINDER_BEFORE for w in words[max(0, number.start - 2) : number.start]):
        return True
    after = _clause_after(words, number, 6)
    return any(w in WITHOUT_AFTER for w in after) or _mentions(after, _HUNGER)


def _more(words: list[str], number: _Number) -> str:
    """How a number counts beside children named before it: ``more`` for "more" or "other" ("inka 12", "15 अन्य",
    "बीस बच्चे और बीमार"), ``friends`` for friends or classmates ("3 friends"), ``and`` for those after "and" and a
    child ("He and five classmates", "میری بیٹی اور پڑوس کے تین بچوں"), ``also`` for "also" or "too" after it in
    its clause ("दस बच्चों को भी", not "अब भी"); else ""."""
    after = words[number.end + 1 : number.end + 1 + NUMBER_WINDOW]
    if _before(words, number) in MORE_BEFORE or after[:1] and after[0] in MORE_AFTER:
        return "more"
    i = _after_children(words, number)
    if i > number.end + 1 and i < len(words) and words[i] in MORE_AFTER:
        if _affected_after(words, _Number(0, i, "", None)):
            return "more"  # "बीस बच्चे और बीमार"
    clause = _clause_after(words, number, 2 * NUMBER_WINDOW, _BREAK + _COMMA)
    if any(w.startswith(_FRIEND_STEMS) for w in clause[:NUMBER_WINDOW]):
        return "and" if _before(words, number) in _JOINERS else "friends"
    if any(w in ALSO_AFTER and (k == 0 or clause[k - 1] not in STILL_BEFORE) for k, w in enumerate(clause)):
        return "also"
    named = words[max(0, number.start - NUMBER_WINDOW - 1) : number.start]
    for k, w in enumerate(named[1:], 1):
        if w in _JOINERS and w not in _COMMA and _ONE_CHILD.match(named[k - 1]) and _child_after(words, number):
            return "and"
    return ""


def _one_child_before(words: list[str], at: int) -> bool:
    """Whether one child (a son, a daughter, "my child") is named before word ``at``."""
    return bool(_ONE_CHILD.search(" ".join(words[:at])))


# ---------------------------------------------------------------------------- the count


def children_named(text: str) -> int:
    """The most children ``text`` says a number of ("12 children", "teen bachche", "பன்னிரண்டு குழந்தைகள்",
    "১২ জন ছাত্র"), ``ALL_CHILDREN`` for "all the children" without a number, 0 for none."""
    folded = normalize(text)
    words = _TOKEN.findall(_NOT_A_COUNT.sub(" | ", folded))
    children_spoken_of = any(_is_child_word(w) for w in words)
    illness = _mentions(words, _ILLNESS)
    numbers = _numbers(words)
    reasons = [_why_not(words, n) for n in numbers]
    counted = [not why and _counts(words, n, children_spoken_of) for n, why in zip(numbers, reasons)]
    uncounted = [(n, why) for n, why, c in zip(numbers, reasons, counted) if not c]
    found: list[tuple[_Number, int]] = []  # the numbers of children affected, with their value
    kinds: dict[str, list[int]] = {"": [], "fed": [], "present": [], "register": []}
    left_without = False  # a number of children, or of those present, went without ("ਹਾਜ਼ਰ 63 ਬੱਚਿਆਂ ਨੂੰ ... ਨਹੀਂ")
    for k, number in enumerate(numbers):
        if not counted[k] or _shares(words, number, uncounted):
            continue
        part = numbers[k + 1] if k + 1 < len(numbers) else None
        total = _before(words, number) in TOTAL_BEFORE
        if part is not None and not total and _is_whole(words, number, part) and not _fell_ill(words, number, part):
            continue
        strength = _strength(words, number, illness)
        kind = "fed" if strength != "present" and _fed(words, number) else strength
        value = number.value + _beside(words, number, found)
        if not kind:
            found.append((number, value))
        kinds[kind].append(value)
        left_without = left_without or kind in ("", "present") and _deprived(words, number)
    short = [v for n, v in found if _deprived(words, n)]
    if short and not illness:
        kinds[""] = short  # "60 pila, 40 eggs, baki 20 jana ku na egg": 20
    shortage = left_without or _mentions(words, _SHORTAGE) or any(_fed(words, n) for n in numbers)
    for candidates in (kinds[""], kinds["fed"] + kinds["present"] * bool(shortage), kinds["register"] * bool(shortage)):
        if candidates:
            return min(max(candidates), MAX_CHILDREN)
    for match in _ALL_CHILDREN.finditer(folded):
        rest = folded[match.end() :]
        following = _TOKEN.findall(rest)[int(bool(re.match(_LETTER, rest))) :][:ALL_WINDOW]
        if not any(w in WELL_AFTER for w in following):
            return ALL_CHILDREN
    return 0


def _beside(words: list[str], number: _Number, found: list[tuple[_Number, int]]) -> int:
    """The children counted beside a number's own (``_more``): the count before it for "more" and "also" (not a
    total it is part of), else one child named before it."""
    more = _more(words, number)
    if not more:
        return 0
    earlier = found[-1][1] if found and _before(words, found[-1][0]) not in TOTAL_BEFORE else 0
    one = _one_child_before(words, number.start)
    if more == "more" or more == "also" and (earlier or one):
        return earlier or 1
    return int(more == "and" or more == "friends" and one)


def children_text(children: int) -> str | None:
    """How the page names the children part of a key: "12", "all", or None for none named."""
    if children <= 0:
        return None
    return "all" if children == ALL_CHILDREN else str(children)
