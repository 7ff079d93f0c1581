"""The children a complaint names, in every language form: numbers in digits and words, person classifiers,
glued endings, ranges, a named child beside others, "all the children", and the numbers that are no count
(ages, classes, dates, times, money, a school's strength)."""

from __future__ import annotations


import pytest

from mealwatch.children import ALL_CHILDREN, MAX_CHILDREN, children_named, children_text


@pytest.mark.parametrize(
    "text, children",
    [
        # English
        ("Thirty-one students fell ill after the khichdi", 31),
        ("my son and 3 friends had loose motions", 4),
        ("my daughter Rinki died; eleven others are in hospital", 12),
        ("dal was rotten and kids got stomach pain, 3 went to PHC", 3),
        ("8-10 kids vomited after lunch", 10),
        ("my twins were admitted with fever", 2),
        ("The cook asked for Rs 200 from each parent", 0),
        ("On 19/12/2023, 7 children of Class 2 complained of stomach ache", 7),
        ("A 10-year-old girl is in the ICU", 0),
        ("We have 310 students on roll and the food is fine", 0),
        ("only 2 rotis per child", 0),
        ("the rasam was so spicy small children were crying", 0),
        ("all the children vomited", ALL_CHILDREN),
        # Hindi, Devanagari and Latin letters
        ("बारह बच्चे बीमार, दो अस्पताल में", 12),
        ("अट्ठावन बच्चों को खाना नहीं मिला", 58),
        ("दस-बारह बच्चों को उल्टी", 12),
        ("6 aur bachhe zila aspatal me bhartee", 7),
        ("bacche kha gaye, 2 ko ulti", 2),
        ("8 saal ke bacche ke liye itna kam khana?", 0),
        ("bachhe 2 baje tak intezaar karte rahe", 0),
        ("dhai sau bacchon ke liye ek rasoiya", 250),
        ("sabhi bachche bimar pad gaye", ALL_CHILDREN),
        # Bengali, in its script and in Latin letters
        ("খাওয়ার পর ষোলজন শিশু অসুস্থ হয়", 16),
        ("আটান্ন জন পড়ুয়া খালি পেটে ফিরছে", 58),
        ("দশ বারোটা বাচ্চার পেট ব্যথা", 12),
        ("একশো চল্লিশজন বাচ্চা খালি পেটে", 140),
        ("চল্লিশ জনের মধ্যে অন্তত পনেরো জন কিছু পায় না", 15),
        ("amago iskule 18 jon polapan kisu pay nai", 18),
        # Marathi
        ("आमच्या शाळेची नऊ पोरं दवाखान्यात", 9),
        ("दहा जण आजारी पडले", 10),
        # Gujarati
        ("વાસી ખીચડી ખાવાથી ૨૨ બાળકો બીમાર", 22),
        ("ધોરણ ૫ના ૪૨ છોકરાંમાંથી છેલ્લા પંદરને રોટલી ન મળી", 15),
        ("પછી પાંચ-છ જણને ઊબકા", 6),
        # Punjabi
        ("ਸੱਠ ਜੁਆਕਾਂ ਲਈ ਇੱਕ ਪਤੀਲਾ ਦਾਲ", 60),
        ("ਅਠਵੰਜਾ ਬੱਚੇ ਭੁੱਖੇ ਰਹੇ", 58),
        # Odia
        ("ସ୍କୁଲରୁ ୯ ଜଣ ଛୁଆ ବାନ୍ତି କରି", 9),
        ("ଦଶ ଜଣ ପିଲା ଅସୁସ୍ଥ", 10),
        # Tamil, in its script and in Latin letters
        ("ஏழு பேருக்கு லூஸ் மோஷன்", 7),
        ("முப்பத்தஞ்சு பசங்களுக்கு கிடைக்கல", 35),
        ("நாலு பேருக்கு வயித்துவலி", 4),
        ("5ஆம் வகுப்பு குழந்தைகள் வாந்தி", 0),
        ("GH la admit, 10 pasanga", 10),
        # Telugu, in its script and in Latin letters
        ("పది మంది పిల్లలు వాంతులు చేసుకున్నారు", 10),
        ("ముగ్గురు పిల్లలకు కడుపు నొప్పి", 3),
        ("iravai aaru mandi pillalu hospital lo admit", 26),
        ("3rd class abbai chanipoyadu, inka 12 mandi Kurnool lo", 13),
        # Kannada
        ("ಇಪ್ಪತ್ತೈದು ಮಕ್ಕಳಿಗೆ ಕರಕಲು ಅನ್ನ", 25),
        ("ಮೂವರು ಮಕ್ಕಳು ಆಸ್ಪತ್ರೆಗೆ ದಾಖಲು", 3),
        ("ಹತ್ತು ಜನ ಮಕ್ಕಳಿಗೆ ವಾಂತಿ", 10),
        # Malayalam
        ("ഇരുപത്തിയെട്ട് വിദ്യാർത്ഥികളെ ആശുപത്രിയിൽ", 28),
        ("മൂന്നു പേർക്ക് ഛർദി, എല്ലാവരും കുട്ടികൾ", 3),
        # Urdu, in its script and in Latin letters
        ("تین بچوں کو قے ہوئی", 3),
        ("آج پچپن بچوں کو انڈا نہیں ملا", 55),
        ("paanch bachon ko ulti hui", 5),
        # none stated
        ("No meal today, gas over", 0),
        ("lizard in sambar. no one hurt but children scared to eat now", 0),
    ],
)
def test_children_are_counted_in_every_language_form(text, children):
    assert children_named(text) == children


def test_the_count_is_capped_and_named_on_the_page():
    assert children_named("12000 children") == 0  # five digits: a reference, not a count
    assert children_named("9999 children fell ill") == MAX_CHILDREN
    assert (children_text(0), children_text(12), children_text(ALL_CHILDREN)) == (None, "12", "all")


def test_the_count_is_deterministic():
    text = "Sir, on 14 Nov the kheer curdled; by evening 12 children had loose motions, 3 in hospital. " * 5
    assert {children_named(text) for _ in range(50)} == {12}  # (its speed: a benchmark's business, not a test's)
