"""The children a complaint names, in every language form: numbers in digits and words, person classifiers and
numerals, glued endings, ranges, a named child beside others, "all the children", the numbers that are no count
(ages, classes, dates, times, money, references, a school's strength, grown-ups, one thing shared out), and the
count among several numbers (a whole and its part, the children left without, the meal cooked for fewer)."""

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


@pytest.mark.parametrize(
    "text, children",
    [
        # case endings and classifiers glued to a number word, person numerals
        ("ನಾಲ್ವರಿಗೂ ಊಟದ ನಂತರ ಹೊಟ್ಟೆ ನೋವು", 4),
        ("భోజనం తర్వాత ముగ్గురికి వాంతులు", 3),
        ("சாப்பிட்ட மூவருக்கு வாந்தி", 3),
        ("खिचडी खाल्ल्यावर दोघांना उलट्या झाल्या", 2),
        ("ਸੱਤਾਂ ਜੁਆਕਾਂ ਨੂੰ ਦਵਾਈ ਦਿੱਤੀ", 7),
        ("அத சாப்பிட்ட பத்துப் பதினைஞ்சு பசங்களுக்கு வாந்தி", 15),
        # tens and hundreds glued to the number after them; "about"
        ("ഗ്യാസ് തീർന്നു, നൂറ്റിനാല്പത് കുട്ടികൾക്ക് ഇന്ന് ഭക്ഷണമില്ല", 140),
        ("innu irupathirandu kuttikal hospital il", 22),
        ("nalavattaidu makkalige oota sigalilla", 45),
        ("રોટલી ખાઈ ત્રીસેક બાળકો માંદાં પડ્યાં", 30),
        ("ഉച്ചഭക്ഷണത്തിന് ശേഷം മുപ്പതോളം വിദ്യാർത്ഥികൾക്ക് ഛർദി", 30),
        # number words of two languages are no range; a weak word is no number
        ("mara bhatrija ne teni saathe na be chhokra ne ulti", 2),
        ("ee pulihora tinte pillalu hospital lo padatharu", 0),
        ("ithu kazhichal aarum hospital il aakum, athrakku naattam", 0),
        # a class named before its word, "of the class", "in the class"
        ("তৃতীয় শ্রেণির দুই ছাত্রী খাবারের পর অজ্ঞান", 2),
        ("ગંધાતું દૂધ પીધું, ધો. ૨નાં પાંચ ભૂલકાંને ઝાડા", 5),
        ("మా బడిలో 7వ తరగతి పదిహేను మంది పిల్లలకు అన్నం లేదు", 15),
        ("4-ാം ക്ലാസിലെ 5 കുട്ടികൾ തലകറങ്ങി വീണു", 5),
        ("8th class lo naluguru ki kadupu noppi", 4),
        # grown-ups, "not even one"
        ("রাঁধুনি আর সহায়িকা দুজনেই আজ আসেনি, বাচ্চারা না খেয়ে ফিরল", 0),
        ("स्वयंपाकी आणि मदतनीस दोघी रजेवर, मुलांना जेवण नाही", 0),
        ("ঝোলে মাছ পচা ছিল, তবে একটা বাচ্চাও অসুস্থ হয়নি", 0),
        ("वरण इतकं खारट की एकाही मुलानं खाल्लं नाही", 0),
        # an illness after a bare number; a death of something else is none
        ("कढ़ी खाकर बच्चों को उल्टी हुई, तीन बेहोश", 3),
        ("bachhon ke bore me do chuhe mare mile", 0),
        ("Our children ate the khichdi on Monday; by evening 9 of them were in the district hospital.", 9),
        ("Two of them come only twice a week and the children learn nothing", 0),
        ("my son and daughter both fell sick after the khichdi", 2),
        ("केला और अंडा दोनों बंद, बच्चे भूखे", 0),
    ],
)
def test_numbers_are_read_in_their_inflections_and_their_neighbours(text, children):
    assert children_named(text) == children


@pytest.mark.parametrize(
    "text, children",
    [
        # one thing shared out by a few children ("a school" is no thing)
        ("फल वाले दिन एक केला चार बच्चों में काट के देते हैं", 0),
        ("అరటిపండు రోజు నలుగురు పిల్లలకి ఒక్క పండు", 0),
        ("Bhopal ke ek school mein teen bachon ko khujli", 3),
        # others beside a child named before: "also", "more", "and", friends; "still" is no "also"
        ("मेरा बेटा भर्ती है, उसके अलावा दस बच्चों को भी उल्टी हुई", 11),
        ("பதின்மூன்று பேருக்கு வயிற்றுப்போக்கு; மேலும் இருவர் மருத்துவமனைக்கு மாற்றப்பட்டனர்", 15),
        ("ఏడో తరగతి విద్యార్థి కన్నుమూశాడు. మరో 16 మంది ఆసుపత్రిలో కోలుకుంటున్నారు", 17),
        ("ଆଜି ସ୍କୁଲ ଖାଇବା ପରେ ମୋ ପୁଅ ପେଟ ବିନ୍ଧା, ଆଉ 4 ପିଲାଙ୍କର ସେମିତି", 5),
        ("He and five classmates had eaten the meal with worms in it", 6),
        ("Two of our friends got stomach pain after the meal", 2),
        ("کل کی دال کھا کر میری بیٹی اور پڑوس کے تین بچوں کو الٹیاں ہوئیں", 4),
        ("कक्षा दो के चार बच्चों को उल्टी हुई, एक बच्ची अब भी भर्ती है", 4),
        ("Yavatmal: ekun 6 mulanna tras, tyatil eka 10 varshachya mulacha mrutyu, itar pach jananvar upchar", 6),
        # a whole and its part: the part, unless the whole fell ill first
        ("વાસી ખીચડીથી 22 બાળકો બીમાર, તેમાંથી ૧૦ને દવાખાને દાખલ કર્યાં", 22),
        ("மதிய உணவு உண்ட 112 மாணவர்களில் 21 பேருக்குக் குமட்டல்", 21),
        ("dal ma kida, 45 chhokra mathi pandar ne bhaat j na malyo", 15),
        ("पिछले हफ्ते बीमार हुए छह बच्चों में से एक की मौत हो गई", 6),
        ("bachon mein se ek ki aaj maut ho gayi", 1),
        # the children left without, beside the totals of a shortage
        ("৬০ জন বাচ্চা, অথচ ডিম আসে ৪০টা। কুড়িজন ফাঁকা থালা নিয়ে বসে থাকে", 20),
        ("egg dina 60 pila, egg 40, baki 20 jana ku na egg", 20),
        ("aaje 60 j chhokra mate bhojan banyu ne hajar hata 85, pachhla 25 ne kai nthi malyu", 25),
        # the children a meal was cooked for, present, on the register
        ("सिर्फ 40 बच्चों का खाना बनता है, आते हैं 70", 70),
        ("Only 5 kg rice is cooked for 90 children.", 90),
        ("Only 4 kg of dal for 180 children. After lunch 10-12 kids complained of nausea.", 12),
        ("Attendance register shows 150 kids eating when hardly 90 come.", 0),
        ("wo register me 180 bachhe likhte hain aur 100 ka hi khana banwate hain", 180),
        ("ਹਾਜ਼ਰ 63 ਬੱਚਿਆਂ ਨੂੰ ਖਾਣਾ ਨਹੀਂ ਮਿਲਿਆ", 63),
        ("സ്കൂളിൽ ആകെ 430 കുട്ടികൾ ഉണ്ട്, ശുചിമുറി ഒന്നേയുള്ളൂ", 0),
    ],
)
def test_several_numbers_give_the_children_affected(text, children):
    assert children_named(text) == children


@pytest.mark.parametrize(
    "text, children",
    [
        ("108 एम्बुलेंस से 14 बच्चों को अस्पताल ले गए", 14),
        ("shalet jevan karun behosh padlelya char porana 108 ne Akola la nela", 4),
        ("Complaint no. 14: a dead housefly in the egg curry of a child", 0),
        ("Construction of the kitchen started in 2022 and children eat outside", 0),
        ("৭৯৪ নং বিদ্যালয়ে চব্বিশ জন শিশু অসুস্থ", 24),
        ("दिनांक 14 को खाना खाकर 9 बच्चों को उल्टी", 9),
        ("2 hafte se khana band, bachhe bhookhe", 0),
        ("en paiyan moonu thadava vaandhi eduthan", 0),
        ("रोटी इतनी कम की हर बच्चे को डेढ़ रोटी", 0),
        ("हर बच्चे को एक एक रोटी", 0),
        ("ei dalma khaile hospital jiba, kintu sabu pila thik achanti", 0),
    ],
)
def test_references_times_shares_and_wellness_are_no_count(text, children):
    assert children_named(text) == children


def test_the_count_is_capped_and_named_on_the_page():
    assert children_named("12000 children") == 0  # five digits: a reference, not a count
    assert children_named("9999 children fell ill") == MAX_CHILDREN
    assert (children_text(0), children_text(12), children_text(ALL_CHILDREN)) == (None, "12", "all")


def test_the_count_is_deterministic():
    text = "Sir, on 14 Nov the kheer curdled; by evening 12 children had loose motions, 3 in hospital. " * 5
    assert {children_named(text) for _ in range(50)} == {12}  # (its speed: a benchmark's business, not a test's)
